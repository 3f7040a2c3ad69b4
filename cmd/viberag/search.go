package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/mcp"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

type searchCmd struct {
	repoFlags
	storeRead
	queryEmbedFlags
	Dir   string   `short:"C" name:"dir" help:"Search the repository containing PATH (default: the current directory)." type:"path" placeholder:"PATH"`
	Query []string `arg:"" help:"What to look for; the words are joined with spaces. Quote the whole query (e.g. '\"reset by peer\"') for exact text."`

	Intent          string   `help:"auto, definition, usage, concept, exact_text or similar_code." default:"auto" enum:"auto,definition,usage,concept,exact_text,similar_code"`
	PathPrefix      []string `name:"path-prefix" indexpath:"" sep:"none" placeholder:"PATH" help:"Only paths starting with this (repeatable: any of)."`
	PathContains    []string `name:"path-contains" indexpath:"" sep:"none" placeholder:"TEXT" help:"Only paths containing this (repeatable: any of)."`
	PathNotContains []string `name:"path-not-contains" indexpath:"" sep:"none" placeholder:"TEXT" help:"No paths containing this (repeatable: none of)."`
	Ext             []string `help:"Only files with this extension, with or without the dot (repeatable)."`
	Kind            []string `help:"Only symbols of this kind: function, method, class… (repeatable; blocks by their enclosing symbol)."`
	Decorator       []string `help:"Only symbols with this decorator or annotation (repeatable)."`
	Exported        *bool    `help:"Only exported (--exported) or unexported (--exported=false) symbols."`
	K               int      `short:"k" default:"10" help:"Number of hits."`
	MaxTokens       int      `name:"max-tokens" placeholder:"N" help:"Fit the whole answer into this many tokens (explanations and snippets go first, hits last)."`
	Exhaustive      bool     `help:"exact_text: every occurrence, K per page."`
	Cursor          string   `placeholder:"CURSOR" help:"exact_text: continue from a previous page's next_cursor."`
	IgnoreCase      bool     `name:"ignore-case" short:"i" help:"exact_text: ignore case."`
	JSON            bool     `help:"Print the JSON the MCP server returns."`
	Explain         bool     `help:"Show why each hit ranks where it does."`
	Verbose         bool     `short:"v" help:"Say in full why vectors are off (the text shows one short line; --json always has it all)."`
}

func (c *searchCmd) Run(ctx context.Context) error {
	in := mcp.SearchIn{
		Query: strings.Join(c.Query, " "), Intent: c.Intent, K: c.K, MaxTokens: c.MaxTokens, Explain: c.Explain,
		Exhaustive: c.Exhaustive, Cursor: c.Cursor, IgnoreCase: c.IgnoreCase,
	}
	sc := scope.Scope{
		PathPrefix: c.PathPrefix, PathContains: c.PathContains, PathNotContains: c.PathNotContains,
		Extension: c.Ext, SymbolKind: c.Kind, Decorator: c.Decorator, IsExported: c.Exported,
	}
	// Check the request before opening anything, as the tool would:
	// "query: is empty; …" is said "the query is empty; …".
	if err := mcp.CheckSearch(in); err != nil {
		arg, what, _ := strings.Cut(err.Error(), ": ")
		return usageErrorf("the %s %s", arg, cliWords(what))
	}
	if err := sc.Validate(); err != nil {
		return scopeUsage(err)
	}
	if !sc.IsZero() {
		in.Scope = &sc
	}
	src, err := c.storeRead.open(ctx, c.repoFlags, c.Dir, &c.queryEmbedFlags)
	if err != nil {
		return err
	}
	defer src.close()
	out, err := src.answers.Search(ctx, in)
	if err != nil {
		return src.note(err)
	}
	if c.JSON {
		err = writeJSON(os.Stdout, out)
	} else {
		st := newStyle(os.Stdout)
		st.verbose = c.Verbose
		printSearch(os.Stdout, out, st, c.Explain)
	}
	// Exit 1 says the search found nothing: not hits that --max-tokens
	// left out.
	if err == nil && len(out.Hits) == 0 && out.Dropped == 0 {
		return errNone
	}
	return err
}

// searchHits runs a query exactly as `viberag search QUERY` does with its
// defaults; the benchmark scores these hits.
func searchHits(ctx context.Context, p *query.Planner, q string) (*query.Response, error) {
	return p.Search(ctx, query.Request{Query: q, Intent: query.Auto, Limit: query.DefaultLimit})
}

// openedIndex is an index opened read-only with a planner on it.
type openedIndex struct {
	root    string
	db      *tables.DB
	planner *query.Planner
}

// answers makes the answers `viberag search|symbol|refs` print: the
// MCP tools' (mcp.Answers), made the same way.
func (ix *openedIndex) answers() *mcp.Answers {
	return &mcp.Answers{Planner: ix.planner, DB: ix.db, Root: ix.root}
}

func (ix *openedIndex) Close() error {
	return errors.Join(ix.planner.Close(), ix.db.Close())
}

// openIndex finds the index of the repository containing dir (the
// current directory when empty): with --data-dir, that directory's index;
// otherwise the nearest of dir and its parents that has an index in the
// data directory.
// openIndex opens the index of the repository holding dir, read-only;
// with vectors, it also loads the index's embedding provider for queries.
func openIndex(ctx context.Context, rf repoFlags, dir string, vectors bool) (*openedIndex, error) {
	if dir == "" {
		dir = "."
	}
	start, err := indexer.RealRoot(dir)
	if err != nil {
		return nil, err
	}
	root, path := start, ""
	if rf.DataDir != "" {
		d, err := indexer.DataDir(start, rf.DataDir)
		if err != nil {
			return nil, err
		}
		path = filepath.Join(d, indexer.IndexFile)
	} else {
		for r := start; ; r = filepath.Dir(r) {
			d, err := indexer.DataDir(r, "")
			if err != nil {
				return nil, err
			}
			if _, err := os.Stat(filepath.Join(d, indexer.IndexFile)); err == nil {
				root, path = r, filepath.Join(d, indexer.IndexFile)
				break
			}
			if filepath.Dir(r) == r {
				break
			}
		}
	}
	if path == "" {
		return nil, fmt.Errorf("%s: %w", start, indexer.ErrNoIndex)
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", root, indexer.ErrNoIndex)
	}
	db, err := indexer.Open(ctx, path, indexer.OpenOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	var emb embed.Provider
	var off string
	if vectors {
		emb, off = indexer.QueryEmbedder(ctx, db)
	}
	p, err := query.New(ctx, db.Reader(), query.Options{Embedder: emb, VectorsOff: off, Present: mcp.PresentAction, FixedWeights: rf.FixedWeights})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &openedIndex{root: root, db: db, planner: p}, nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// style is how text output looks: colours on a terminal, reasons in
// short or (verbose) in full. Its zero value prints plain, short text.
type style struct {
	on      bool
	verbose bool
}

// newStyle colours output to a terminal, unless NO_COLOR is set.
func newStyle(f *os.File) style {
	_, noColor := os.LookupEnv("NO_COLOR")
	return style{on: !noColor && isatty.IsTerminal(f.Fd())}
}

func (s style) wrap(code, text string) string {
	if !s.on || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s style) path(t string) string  { return s.wrap("36", t) }
func (s style) title(t string) string { return s.wrap("1", t) }
func (s style) dim(t string) string   { return s.wrap("2", t) }

// counted names what a response's Total counts, which depends on the
// intent: a hit is a file or a definition, so "5 hits of 2" would misread
// two candidate files as two hits.
func counted(in query.Intent, total int, atLeast bool) string {
	one, many := "candidate file", "candidate files"
	switch in {
	case query.ExactText:
		one, many = "occurrence", "occurrences"
	case query.Usage:
		one, many = "reference line", "reference lines"
	case query.SimilarCode:
		one, many = "candidate block", "candidate blocks"
	}
	unit := many
	if total == 1 && !atLeast {
		unit = one
	}
	if atLeast {
		return fmt.Sprintf("at least %d %s", total, unit)
	}
	return fmt.Sprintf("%d %s", total, unit)
}

func printSearch(w io.Writer, out *mcp.SearchOut, st style, explain bool) {
	r := out.Response
	head := string(r.Intent)
	if r.Routing != "" {
		head += " (" + r.Routing + ")"
	}
	if len(r.Hits) == 1 {
		head += " · 1 hit"
	} else {
		head += fmt.Sprintf(" · %d hits", len(r.Hits))
	}
	if r.Total >= 0 {
		head += fmt.Sprintf(" · %s", counted(r.Intent, r.Total, r.TotalAtLeast))
	}
	head += fmt.Sprintf(" · %.1f ms", r.TookMS)
	fmt.Fprintln(w, st.dim(head))
	printState(w, out.Freshness, st)
	if r.QueryUsed != "" {
		fmt.Fprintln(w, st.dim("  query used: "+r.QueryUsed))
	}
	for _, f := range r.FiltersApplied {
		fmt.Fprintln(w, st.dim("  filter: "+f))
	}
	for _, n := range r.Notes {
		if rest, ok := strings.CutPrefix(n, lexicalNote); ok {
			n = lexicalNote + st.reason(rest)
		}
		fmt.Fprintln(w, st.dim("  note: "+cliWords(n)))
	}
	if r.Vectors != "" {
		fmt.Fprintln(w, st.dim("  vectors: "+st.vectors(r.Vectors)))
	}
	for i, h := range r.Hits {
		path := h.Path
		if h.Repo != "" {
			path = h.Repo + ": " + path // a store's hit
		}
		loc := fmt.Sprintf("%s:%d-%d", path, h.StartLine, h.EndLine)
		if h.StartLine == h.EndLine {
			loc = fmt.Sprintf("%s:%d", path, h.StartLine)
		}
		fmt.Fprintf(w, "%2d %s  %s %s\n", i+1, st.path(loc), st.title(h.Title), st.dim("["+h.Kind+"]"))
		for _, l := range strings.Split(h.Snippet, "\n") {
			if l != "" {
				fmt.Fprintln(w, "     "+l)
			}
		}
		if h.Why != nil && (explain || len(h.Why.Priors) > 0 || h.Why.Note != "") {
			fmt.Fprintln(w, st.dim("     why: "+formatWhy(h, explain)))
		}
	}
	if r.Truncated {
		msg := fmt.Sprintf("truncated: %d shown", len(r.Hits))
		if r.Total > len(r.Hits) {
			msg += fmt.Sprintf(" (%s)", counted(r.Intent, r.Total, r.TotalAtLeast))
		}
		if r.Dropped > 0 {
			msg += fmt.Sprintf(": %d hits dropped by the size budget", r.Dropped)
		}
		if r.NextCursor != "" {
			msg += "; more with --cursor " + r.NextCursor
		}
		fmt.Fprintln(w, st.dim(msg))
	}
	for _, a := range r.SuggestedNextActions {
		cmd, why := cliAction(a)
		if why != "" {
			why = "  (" + why + ")"
		}
		fmt.Fprintln(w, st.dim("next: "+cmd+why))
	}
}

// lexicalNote starts the note of a search whose vectors could not be used.
const lexicalNote = "vectors unavailable, so this search is lexical: "

// vectors says an answer's vectors state ("on (model)", "off: why"), the
// reason in short unless verbose.
func (s style) vectors(v string) string {
	for _, p := range []string{"off: ", "off for this search: "} {
		if rest, ok := strings.CutPrefix(v, p); ok {
			return p + s.reason(rest)
		}
	}
	return v
}

// reason says why vectors are off, or an embedding failure: in one short
// line with a pointer to the rest (embed.Brief), or in full when verbose.
func (s style) reason(r string) string {
	b, cut := s.brief(r)
	if cut {
		b += " (-v: details)"
	}
	return b
}

// brief is reason without the pointer, and whether it left details out.
func (s style) brief(r string) (string, bool) {
	if s.verbose {
		return r, false
	}
	b := embed.Brief(r)
	return cliWords(b), b != r
}

func formatWhy(h query.Hit, all bool) string {
	var parts []string
	if all {
		for _, c := range h.Why.Channels {
			if c.Similarity != 0 {
				parts = append(parts, fmt.Sprintf("%s #%d cos %.3f", c.Channel, c.Rank, c.Similarity))
				continue
			}
			parts = append(parts, fmt.Sprintf("%s #%d", c.Channel, c.Rank))
		}
		parts = append(parts, fmt.Sprintf("score %.4f", h.Score))
	}
	for _, p := range h.Why.Priors {
		parts = append(parts, fmt.Sprintf("%s ×%.2f", p.Name, p.Factor))
	}
	if h.Why.Note != "" {
		parts = append(parts, cliWords(h.Why.Note))
	}
	return strings.Join(parts, ", ")
}

// printState says when the index an answer comes from is not ready.
func printState(w io.Writer, f indexer.Freshness, st style) {
	if f.IndexState == indexer.StateReady || f.IndexState == "" {
		return
	}
	msg := "  index: " + f.IndexState
	if f.Partial {
		msg += " (results are partial)"
	}
	fmt.Fprintln(w, st.dim(msg))
}
