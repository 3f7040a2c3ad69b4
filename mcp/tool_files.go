package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"

	"strings"

	"github.com/cespare/xxhash/v2"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables"
)

// Limits of read_file_lines and get_surrounding_code: enough to read any
// function, small enough that one call cannot flood the model's context.
const (
	maxReadLines   = 400
	maxReadBytes   = 64 << 10
	maxLineBytes   = 2000
	maxAnchorLines = 200
	maxFileRead    = 16 << 20 // never read more of a file than this
)

// ReadFileLinesIn is read_file_lines' input.
type ReadFileLinesIn struct {
	Path      string `json:"path" jsonschema:"repository-relative path with / separators, as results give it (e.g. src/queue.py); absolute paths and .. are refused"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line, 1-based (default 1)"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line, inclusive (default start_line+199); at most 400 lines are returned per call"`
}

// ReadFileLinesOut is read_file_lines' result.
type ReadFileLinesOut struct {
	Path       string `json:"path"`
	StartLine  int    `json:"start_line"`
	EndLine    int    `json:"end_line" jsonschema:"last line returned"`
	TotalLines int    `json:"total_lines"`
	Text       string `json:"text" jsonschema:"the lines, joined with newlines; lines longer than 2000 bytes are cut and end with …"`
	Truncated  bool   `json:"truncated,omitempty" jsonschema:"fewer lines than asked were returned (line or byte cap); continue at next_start_line"`
	NextStart  int    `json:"next_start_line,omitempty"`
	// Changed is set when the file on disk differs from the indexed
	// version: line numbers from other results may be off.
	Changed bool `json:"changed_since_indexed,omitempty" jsonschema:"the file changed since it was indexed; line numbers from search results may be off until the watcher re-indexes it"`
	Freshness
}

func (s *Server) readFileLines(ctx context.Context, _ *sdk.CallToolRequest, in ReadFileLinesIn) (*sdk.CallToolResult, *ReadFileLinesOut, error) {
	args, err := readArgs(in)
	if err != nil {
		return nil, nil, err
	}
	rel := args.Path
	hash, err := s.indexedFile(ctx, rel)
	if err != nil {
		return nil, nil, err
	}
	real, err := resolveInRoot(s.root, rel)
	if err != nil {
		return nil, nil, err
	}
	data, err := fileset.ReadText(ctx, real, maxFileRead)
	var skip *fileset.SkipError
	if errors.As(err, &skip) {
		return nil, nil, argErr("path", "%q cannot be read: %s", rel, skip)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", rel, err)
	}
	out := &ReadFileLinesOut{Path: rel, StartLine: args.Start, Freshness: s.freshness()}
	out.Changed = tables.Hex(xxhash.Sum64(data)) != hash
	lines := splitLines(string(data))
	out.TotalLines = len(lines)
	if len(lines) == 0 && args.Start == 1 {
		return nil, out, nil // an empty file
	}
	if args.Start > len(lines) {
		return nil, nil, argErr("start_line", "%d is past the end of %s, which has %d lines", args.Start, rel, len(lines))
	}
	out.page(lines[args.Start-1:min(args.End, len(lines), args.Start+maxReadLines-1)], args.End)
	return nil, out, nil
}

// page fills in the text of lines, read from StartLine on, up to end of
// TotalLines: lines longer than maxLineBytes are cut, and the text stops
// before maxReadBytes. When it holds fewer lines than asked for, the
// answer says where to continue.
func (out *ReadFileLinesOut) page(lines []string, end int) {
	var b strings.Builder
	n := out.StartLine - 1
	for i, line := range lines {
		if len(line) > maxLineBytes {
			line = trunc(line[:maxLineBytes]) + "…"
		}
		if b.Len()+len(line)+1 > maxReadBytes {
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		n++
	}
	out.Text, out.EndLine = b.String(), n
	if n < min(end, out.TotalLines) {
		out.Truncated, out.NextStart = true, n+1
	}
}

// splitLines splits text into lines without their terminators; a final
// newline does not start an extra line.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	text = strings.TrimSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// GetSurroundingCodeIn is get_surrounding_code's input.
type GetSurroundingCodeIn struct {
	ID     string `json:"id,omitempty" jsonschema:"a symbol id (s + 16 hex digits) or chunk id (c + 16 hex digits) from another tool's result; or give path and line instead"`
	Path   string `json:"path,omitempty" jsonschema:"with line, instead of id: a repository-relative file path"`
	Line   int    `json:"line,omitempty" jsonschema:"with path, instead of id: a 1-based line; the anchor is the smallest symbol containing it"`
	Before *int   `json:"before,omitempty" jsonschema:"how many sibling symbols before the anchor to list, nearest first (0-20, default 3)"`
	After  *int   `json:"after,omitempty" jsonschema:"how many sibling symbols after the anchor to list, nearest first (0-20, default 3)"`
}

// SurroundingSymbol is a symbol near the anchor.
type SurroundingSymbol struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Qualname  string `json:"qualname"`
	Signature string `json:"signature,omitempty"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Distance  int    `json:"distance_lines,omitempty" jsonschema:"lines between this symbol and the anchor"`
}

// GetSurroundingCodeOut is get_surrounding_code's result.
type GetSurroundingCodeOut struct {
	Path     string              `json:"path"`
	Language string              `json:"language"`
	Lines    int                 `json:"file_lines"`
	Anchor   SurroundingAnchor   `json:"anchor"`
	Parent   *SurroundingSymbol  `json:"enclosing,omitempty" jsonschema:"the symbol that contains the anchor (class, module…); absent at top level"`
	Before   []SurroundingSymbol `json:"before" jsonschema:"siblings above the anchor, nearest first"`
	After    []SurroundingSymbol `json:"after" jsonschema:"siblings below the anchor, nearest first"`
	Freshness
}

// SurroundingAnchor is the symbol the id names (or, for a chunk, the
// smallest symbol containing it; the chunk itself at top level), with its
// code.
type SurroundingAnchor struct {
	SurroundingSymbol
	Code          string `json:"code"`
	CodeTruncated bool   `json:"code_truncated,omitempty" jsonschema:"the code was cut at 200 lines; use read_file_lines for the rest"`
	Changed       bool   `json:"changed_since_indexed,omitempty"`
}

func (s *Server) getSurroundingCode(ctx context.Context, _ *sdk.CallToolRequest, in GetSurroundingCodeIn) (*sdk.CallToolResult, *GetSurroundingCodeOut, error) {
	args, err := surroundingArgs(in, false)
	if err != nil {
		return nil, nil, err
	}
	byLine := args.Path != ""
	p, err := s.engine(ctx)
	if err != nil {
		return nil, nil, err
	}
	n, err := p.Neighbourhood(ctx, args.ID, args.Path, args.Line, args.Before, args.After)
	switch {
	case errors.Is(err, query.ErrNoAnchor) && byLine:
		if _, ferr := s.indexedFile(ctx, args.Path); ferr != nil {
			return nil, nil, ferr
		}
		return nil, nil, argErr("line", "%d is past the last indexed line of %s", args.Line, args.Path)
	case errors.Is(err, query.ErrNoAnchor):
		return nil, nil, argErr("id", "%s is not in the index (ids change when a symbol is renamed or its file is re-chunked); search again for a current id", in.ID)
	case err != nil:
		return nil, nil, err
	}
	out := &GetSurroundingCodeOut{Path: n.Path, Language: n.Language, Lines: n.Lines,
		Before: surrounding(n.Before), After: surrounding(n.After)}
	if n.Parent != nil {
		p := SurroundingSymbol(*n.Parent)
		out.Parent = &p
	}
	out.Anchor.SurroundingSymbol = SurroundingSymbol(n.Anchor)
	code, truncated, changed := s.codeLines(ctx, out.Path, n.Hash, n.Anchor.StartLine, n.Anchor.EndLine)
	out.Anchor.Code, out.Anchor.CodeTruncated, out.Anchor.Changed = code, truncated, changed
	out.Freshness = s.freshness()
	return nil, out, nil
}

// surrounding converts the planner's neighbours to the tool's type.
func surrounding(ns []query.Neighbour) []SurroundingSymbol {
	out := make([]SurroundingSymbol, len(ns))
	for i, n := range ns {
		out[i] = SurroundingSymbol(n)
	}
	return out
}

// codeLines reads lines start..end of an indexed file from disk, at most
// maxAnchorLines of them, and reports whether the file changed since it
// was indexed (the lines may then have moved).
func (s *Server) codeLines(ctx context.Context, rel, hash string, start, end int) (code string, truncated, changed bool) {
	real, err := resolveInRoot(s.root, rel)
	if err != nil {
		return "", false, true
	}
	data, err := fileset.ReadText(ctx, real, maxFileRead)
	if err != nil {
		return "", false, true
	}
	changed = tables.Hex(xxhash.Sum64(data)) != hash
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, maxFileRead)
	var b strings.Builder
	for n := 1; sc.Scan(); n++ {
		if n < start {
			continue
		}
		if n > end {
			break
		}
		if n-start >= maxAnchorLines || b.Len() > maxReadBytes {
			truncated = true
			break
		}
		line := strings.TrimSuffix(sc.Text(), "\r")
		if len(line) > maxLineBytes {
			line = trunc(line[:maxLineBytes]) + "…"
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n"), truncated, changed
}
