package query

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// Exact text. The trigram index finds the chunks that may hold the text
// (it ignores ASCII case and needs two bytes); every candidate is
// then searched in Go for real occurrences, so what is returned is exactly
// the literal text, with the line of each occurrence. Chunks of unparsed
// files overlap, so occurrences are deduplicated by path, line and column.
// An occurrence must lie inside one chunk: always true for text without a
// newline, since chunks are whole lines.
const (
	// maxOccurrences bounds the occurrences counted for one text; past it
	// the total is reported as a lower bound.
	maxOccurrences = 100000
)

// occurrence is one place the text occurs.
type occurrence struct {
	path       string
	line, col  int // 1-based line of the first character; 0-based byte column
	endLine    int
	class      int // 0 source, 1 auxiliary, 2 test: listed in that order
	title      string
	snippet    string
	chunkRowID int64
}

func (o occurrence) less(b occurrence) bool {
	if o.class != b.class {
		return o.class < b.class
	}
	if o.path != b.path {
		return o.path < b.path
	}
	if o.line != b.line {
		return o.line < b.line
	}
	return o.col < b.col
}

// exactCursor is the position after the last occurrence of a page, and a
// fingerprint of the search it belongs to.
type exactCursor struct {
	Class int    `json:"k"`
	Path  string `json:"p"`
	Line  int    `json:"l"`
	Col   int    `json:"c"`
	Query string `json:"q"`
}

func (p *Planner) exactText(ctx context.Context, req Request, text string, resp *Response) error {
	if text == "" {
		return fmt.Errorf("exact_text: empty text")
	}
	files, err := p.files.get(ctx, p.db)
	if err != nil {
		return err
	}
	sc := newScoped(req.Scope)
	sc.note(req.Scope, scope.Chunks)
	resp.FiltersApplied = sc.applied
	fp := exactFingerprint(text, req)

	var after *exactCursor
	if req.Cursor != "" {
		c, err := decodeCursor(req.Cursor)
		if err != nil {
			return err
		}
		if c.Query != fp {
			return fmt.Errorf("cursor %q: it belongs to another search (text, case or scope differ)", req.Cursor)
		}
		after = c
	}

	needle := text
	if req.IgnoreCase {
		needle = tables.ASCIILower(text)
	}
	seen := map[lineKey]bool{}
	var occ []occurrence
	capped := false
	visit := func(c *tables.ChunkText) bool {
		id, path, fileID, start, header, content := c.ID, c.Path, c.FileID, c.StartLine, c.Header, c.Content
		class := 0
		if f := files[fileID]; f != nil {
			switch {
			case f.test:
				class = 2
			case f.aux:
				class = 1
			}
		}
		hay := content
		if req.IgnoreCase {
			hay = tables.ASCIILower(content)
		}
		// line and lineStart advance with the search (counted from the
		// previous occurrence, not from the chunk's start: a chunk with
		// thousands of occurrences is one pass, not a pass per occurrence).
		line, lineStart, counted := start, 0, 0
		for off := 0; ; {
			i := strings.Index(hay[off:], needle)
			if i < 0 {
				break
			}
			at := off + i
			off = at + max(1, len(needle))
			if n := strings.Count(content[counted:at], "\n"); n > 0 {
				line += n
				lineStart = strings.LastIndexByte(content[counted:at], '\n') + counted + 1
			}
			counted = at
			// One hit per line: a line holding the text twice is one place
			// to look (and one id), not two hits.
			key := lineKey{path, line}
			if seen[key] {
				continue
			}
			seen[key] = true
			o := occurrence{path: path, line: line, col: at - lineStart, class: class, title: blockTitle(header, path), chunkRowID: id}
			o.endLine = line + strings.Count(needle, "\n")
			lineEnd := strings.IndexByte(content[at:], '\n')
			if lineEnd < 0 {
				lineEnd = len(content)
			} else {
				lineEnd += at
			}
			if o.endLine > o.line {
				// A multi-line text: show through the end of its last line.
				end := at + len(needle)
				if e := strings.IndexByte(content[end:], '\n'); e >= 0 {
					lineEnd = end + e
				} else {
					lineEnd = len(content)
				}
			}
			o.snippet = trimLines(strings.Split(content[lineStart:lineEnd], "\n"))
			occ = append(occ, o)
			if len(occ) >= maxOccurrences {
				capped = true
				break
			}
		}
		return !capped
	}
	complete := true
	if bc, ok := p.db.(boundedContainer); ok && req.exactChunks > 0 && !req.Exhaustive && req.Cursor == "" {
		complete, err = bc.ChunksContainingAtMost(ctx, text, req.Scope, req.exactChunks, visit)
	} else {
		err = p.db.ChunksContaining(ctx, text, req.Scope, visit)
	}
	if err != nil {
		return err
	}

	sort.Slice(occ, func(i, j int) bool { return occ[i].less(occ[j]) })
	resp.Total = len(occ)
	if capped {
		resp.Notes = append(resp.Notes, fmt.Sprintf("stopped counting at %d occurrences; narrow the scope", maxOccurrences))
	}
	from := 0
	if after != nil {
		mark := occurrence{class: after.Class, path: after.Path, line: after.Line, col: after.Col}
		from = sort.Search(len(occ), func(i int) bool { return mark.less(occ[i]) })
	}
	to := min(len(occ), from+req.Limit)
	page := occ[from:to]
	for i, o := range page {
		h := Hit{
			ID: fmt.Sprintf("r:%s:%d", o.path, o.line), Kind: KindBlock, Path: o.path,
			StartLine: o.line, EndLine: o.endLine, Title: o.title, Snippet: o.snippet,
			Score: round(1 / float64(from+i+1)), Lines: []int{o.line},
		}
		if o.class > 0 {
			h.Why = &Why{Channels: []ChannelRank{{Channel: "exact_text", Rank: from + i + 1, Weight: 1}},
				Note: "listed after source files: " + [...]string{"", "examples, docs, benchmarks or vendored code", "test file"}[o.class]}
		} else if req.Explain {
			h.Why = &Why{Channels: []ChannelRank{{Channel: "exact_text", Rank: from + i + 1, Weight: 1}}}
		}
		resp.Hits = append(resp.Hits, h)
	}
	if !complete && !capped {
		resp.Truncated, resp.TotalAtLeast = true, true
		resp.Notes = append(resp.Notes, fmt.Sprintf("total is a lower bound: occurrences counted in the first %d blocks that may hold the text; scope.repo one repository (and set exhaustive to page through them) for all", req.exactChunks))
	}
	if to < len(occ) {
		resp.Truncated = true
		last := occ[to-1]
		if req.Exhaustive {
			resp.NextCursor = encodeCursor(exactCursor{Class: last.class, Path: last.path, Line: last.line, Col: last.col, Query: fp})
			resp.Notes = append(resp.Notes, fmt.Sprintf("occurrences %d-%d of %d; next_cursor continues", from+1, to, len(occ)))
		} else if complete {
			resp.Notes = append(resp.Notes, fmt.Sprintf("%d of %d occurrences shown; set exhaustive (and page with the cursor) for all", len(page), len(occ)))
		}
	}
	if len(occ) == 0 {
		resp.Notes = append(resp.Notes, "no occurrence of the exact text"+map[bool]string{true: " (ignoring case)", false: " (case-sensitive; set ignore_case to widen)"}[req.IgnoreCase])
	}
	return nil
}

// boundedContainer is an index that can stop reading the chunks that
// may contain a text after the first n of them (a shared store's
// repository, where a search over many repositories bounds each one's
// part): complete is false when more may hold it.
type boundedContainer interface {
	ChunksContainingAtMost(ctx context.Context, text string, s scope.Scope, n int, fn func(*tables.ChunkText) bool) (complete bool, err error)
}

// exactFingerprint identifies an exact search, so a cursor is not used
// with another one.
func exactFingerprint(text string, req Request) string {
	b, _ := json.Marshal(struct {
		T string
		I bool
		S any
	}{text, req.IgnoreCase, req.Scope})
	return fmt.Sprintf("%016x", xxhash.Sum64(b))
}

func encodeCursor(c exactCursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (*exactCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("cursor %q: not a cursor this server issued", s)
	}
	var c exactCursor
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("cursor %q: not a cursor this server issued", s)
	}
	return &c, nil
}

// lineKey names one line of one file: exact text answers one hit per line.
type lineKey struct {
	path string
	line int
}
