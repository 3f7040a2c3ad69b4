package mcp

import (
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/viberag/viberag/fanout"
	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query"
)

// The tools' argument checks, for both servers (Server, StoreServer) and
// the CLI's answers (Answers). Each returns the value to use or a tool
// error naming the argument and what it accepts, so that the model can
// correct its call; none reads an index. Limits are checked here so that
// errors name the tool's own argument (k, not the planner's limit).

// MaxNameBytes bounds a symbol name argument (symbol_name); no name in
// any language is longer.
const MaxNameBytes = 512

// Limits of the tools' arguments.
const (
	defRefs         = 50
	maxRefs         = 1000
	defCodeChars    = 8000
	maxSearchTokens = 200_000
	// maxPathLen bounds a path argument; no repository path is longer.
	maxPathLen    = 4096
	maxNeighbours = 20
	defNeighbours = 3
)

// idPattern is a symbol (s) or chunk (c) id without its repository.
var idPattern = lazyregexp.New(`^[sc][0-9a-f]{16}$`)

// toolError is a tool failure caused by the arguments: its message names
// the argument and what it accepts. Handlers return it as a plain error,
// which the SDK turns into a tool result with isError set, so the model
// sees it and can correct the call.
type toolError struct {
	msg string
	err error // what it is, for callers that tell kinds apart (query.ErrNoSymbol)
}

func (e *toolError) Error() string { return e.msg }
func (e *toolError) Unwrap() error { return e.err }

// argErr builds the error for a bad argument.
func argErr(arg, format string, a ...any) error {
	return &toolError{msg: arg + ": " + fmt.Sprintf(format, a...)}
}

// CheckSearch checks codebase_search's arguments as the tool does, and
// reads no index: the command line calls it before it opens one. Its
// error reads "argument: what is wrong; what to give".
func CheckSearch(in SearchIn) error {
	_, err := searchArgs(in)
	return err
}

// searchArgs checks codebase_search's arguments and returns the planner's
// request.
func searchArgs(in SearchIn) (query.Request, error) {
	q := strings.TrimSpace(in.Query)
	switch {
	case q == "":
		return query.Request{}, argErr("query", "is empty; give an identifier, a phrase, an error message or a code snippet")
	case len(in.Query) > query.MaxQueryBytes:
		return query.Request{}, argErr("query", "is %d bytes, over the limit of %d; search for a distinctive line or identifier from it instead", len(in.Query), query.MaxQueryBytes)
	case !utf8.ValidString(in.Query):
		return query.Request{}, argErr("query", "is not valid UTF-8")
	}
	intent := query.Intent(in.Intent)
	if in.Intent == "" {
		intent = query.Auto
	}
	if !validIntent(intent) {
		return query.Request{}, argErr("intent", "%q is not an intent; give one of %s", trunc(in.Intent), intentList())
	}
	if in.K < 0 || in.K > query.MaxLimit {
		return query.Request{}, argErr("k", "%d is out of range; give 1 to %d (default %d)", in.K, query.MaxLimit, query.DefaultLimit)
	}
	if in.MaxTokens < 0 || in.MaxTokens > maxSearchTokens || in.MaxTokens > 0 && in.MaxTokens < query.MinTokens {
		return query.Request{}, argErr("max_tokens", "%d is out of range; give 0 (no bound) or %d to %d", in.MaxTokens, query.MinTokens, maxSearchTokens)
	}
	req := query.Request{Query: in.Query, Intent: intent, Limit: in.K, MaxTokens: in.MaxTokens, Explain: in.Explain,
		Exhaustive: in.Exhaustive, Cursor: in.Cursor, IgnoreCase: in.IgnoreCase}
	if in.Scope != nil {
		req.Scope = *in.Scope
	}
	return req, nil
}

func validIntent(i query.Intent) bool {
	for _, k := range query.Intents() {
		if i == k {
			return true
		}
	}
	return false
}

func intentList() string {
	var b strings.Builder
	for n, i := range query.Intents() {
		if n > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(i))
	}
	return b.String()
}

// symbolArgs checks a symbol_id / symbol_name pair: exactly one, an id
// of the right form (qualified: ending in @ and its repository), a sane
// name. Whether the index holds the id is the engine's to say.
func symbolArgs(id, name string, qualified bool) error {
	local, repo := id, ""
	if qualified {
		l, _, ok := fanout.SplitID(id)
		if !ok {
			l = ""
		}
		local, repo = l, " and @repository"
	}
	switch {
	case id == "" && strings.TrimSpace(name) == "":
		return argErr("symbol_id", "missing; give symbol_id (s + 16 hex digits%s, from codebase_search) or symbol_name", repo)
	case id != "" && name != "":
		return argErr("symbol_name", "give symbol_id or symbol_name, not both")
	case id != "" && (!idPattern.MatchString(local) || id[0] != 's'):
		return argErr("symbol_id", "%q is not a symbol id; give s + 16 hex digits%s from codebase_search or find_references, or pass a name as symbol_name", trunc(id), repo)
	case len(name) > MaxNameBytes:
		return argErr("symbol_name", "is %d bytes, over the limit of %d", len(name), MaxNameBytes)
	case name != "" && (!utf8.ValidString(name) || strings.ContainsAny(name, "\x00\n")):
		return argErr("symbol_name", "is not a name (NUL, newline or invalid UTF-8)")
	}
	return nil
}

// codeCharsArg checks get_symbol_details' max_code_chars and returns the
// bound to use.
func codeCharsArg(n int) (int, error) {
	if n < 0 || n > query.MaxCodeBytes {
		return 0, argErr("max_code_chars", "%d is out of range; give 1 to %d (default %d)", n, query.MaxCodeBytes, defCodeChars)
	}
	return cmp.Or(n, defCodeChars), nil
}

// refsLimitArg checks find_references' k and returns the limit to use.
func refsLimitArg(k int) (int, error) {
	if k < 0 || k > maxRefs {
		return 0, argErr("k", "%d is out of range; give 1 to %d (default %d)", k, maxRefs, defRefs)
	}
	return cmp.Or(k, defRefs), nil
}

// anchorArgs are get_surrounding_code's checked arguments: an id (without
// its repository) or a path and line, and how many neighbours to list.
type anchorArgs struct {
	ID, Repo      string // Repo: the repository a qualified id names
	Path          string
	Line          int
	Before, After int
}

// surroundingArgs checks get_surrounding_code's arguments; qualified ids
// end in @ and their repository, and a path then goes with a repo.
func surroundingArgs(in GetSurroundingCodeIn, qualified bool) (anchorArgs, error) {
	a := anchorArgs{ID: in.ID, Line: in.Line}
	byLine := in.Path != "" || in.Line != 0
	switch {
	case in.ID == "" && !byLine:
		if qualified {
			return a, argErr("id", "missing; give a symbol or chunk id from another tool's result, or path, line and repo")
		}
		return a, argErr("id", "missing; give a symbol or chunk id from another tool's result, or path and line")
	case in.ID != "" && byLine:
		return a, argErr("id", "give id, or path and line, not both")
	case in.ID != "" && qualified:
		local, repo, ok := fanout.SplitID(in.ID)
		if !ok || !idPattern.MatchString(local) {
			return a, argErr("id", "%q is not an id; give a symbol or chunk id (s or c + 16 hex digits, @ and the repository) from codebase_search or find_references", trunc(in.ID))
		}
		a.ID, a.Repo = local, repo
	case in.ID != "" && !idPattern.MatchString(in.ID):
		return a, argErr("id", "%q is not an id; give a symbol id (s + 16 hex digits) or chunk id (c + 16 hex digits) from codebase_search or find_references", trunc(in.ID))
	case byLine && in.Line < 1:
		return a, argErr("line", "%d is not a line number; give a 1-based line together with path", in.Line)
	}
	var err error
	if byLine {
		if a.Path, err = cleanRel("path", in.Path); err != nil {
			return a, err
		}
	}
	if a.Before, err = countArg("before", in.Before); err != nil {
		return a, err
	}
	if a.After, err = countArg("after", in.After); err != nil {
		return a, err
	}
	return a, nil
}

// countArg checks an optional count of neighbours.
func countArg(name string, v *int) (int, error) {
	if v == nil {
		return defNeighbours, nil
	}
	if *v < 0 || *v > maxNeighbours {
		return 0, argErr(name, "%d is out of range; give 0 to %d", *v, maxNeighbours)
	}
	return *v, nil
}

// linesArgs are read_file_lines' checked arguments.
type linesArgs struct {
	Path       string // cleaned, '/'-separated
	Start, End int    // 1-based, inclusive
}

// readArgs checks read_file_lines' arguments: start_line 0 is 1, and
// end_line 0 is 200 lines on.
func readArgs(in ReadFileLinesIn) (linesArgs, error) {
	rel, err := cleanRel("path", in.Path)
	if err != nil {
		return linesArgs{}, err
	}
	start := cmp.Or(in.StartLine, 1)
	if start < 1 {
		return linesArgs{}, argErr("start_line", "%d is not a line number; lines are 1-based", in.StartLine)
	}
	end := cmp.Or(in.EndLine, start+199)
	if end < start {
		return linesArgs{}, argErr("end_line", "%d is before start_line %d", end, start)
	}
	return linesArgs{Path: rel, Start: start, End: end}, nil
}

// cleanRel checks a repository-relative path argument and returns it
// cleaned, '/'-separated. It refuses what could name a file outside the
// root before touching the file system: absolute paths, volume names,
// backslashes and any ".." element. Symbolic links are checked later, on
// the real path (see resolveInRoot).
func cleanRel(arg, p string) (string, error) {
	switch {
	case p == "":
		return "", argErr(arg, "is empty; give a path relative to the repository root, e.g. \"src/main.go\"")
	case len(p) > maxPathLen:
		return "", argErr(arg, "is %d bytes, over the limit of %d", len(p), maxPathLen)
	case !utf8.ValidString(p) || strings.ContainsRune(p, 0):
		return "", argErr(arg, "is not a valid path (NUL byte or invalid UTF-8)")
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return "", argErr(arg, "%q is absolute; give a path relative to the repository root", trunc(p))
	case strings.Contains(p, "\\"):
		return "", argErr(arg, "%q contains a backslash; use '/' separators", trunc(p))
	}
	for _, el := range strings.Split(p, "/") {
		if el == ".." {
			return "", argErr(arg, "%q contains \"..\"; paths must stay inside the repository", trunc(p))
		}
	}
	c := path.Clean(p)
	if c == "." {
		return "", argErr(arg, "%q names the repository root, not a file", trunc(p))
	}
	return c, nil
}
