package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/mcp"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/scope"
)

type refsCmd struct {
	repoFlags
	storeRead
	Dir             string   `short:"C" name:"dir" help:"Use the repository containing PATH (default: the current directory)." type:"path" placeholder:"PATH"`
	Name            string   `arg:"" help:"A name (send, Session.send) or a symbol id from search."`
	PathPrefix      []string `name:"path-prefix" indexpath:"" sep:"none" placeholder:"PATH" help:"Only paths starting with this (repeatable: any of)."`
	PathContains    []string `name:"path-contains" indexpath:"" sep:"none" placeholder:"TEXT" help:"Only paths containing this (repeatable: any of)."`
	PathNotContains []string `name:"path-not-contains" indexpath:"" sep:"none" placeholder:"TEXT" help:"No paths containing this (repeatable: none of)."`
	Ext             []string `help:"Only files with this extension (repeatable)."`
	Limit           int      `default:"500" help:"At most this many reference lines (1 to 1000)."`
	Offset          int      `placeholder:"N" help:"Skip this many reference lines (the next page starts at the answer's next_offset)."`
	JSON            bool     `help:"Print the JSON the MCP server returns (find_references)."`
}

// symbolIDRe matches a symbol id, and one of a store (…@repository).
var symbolIDRe = lazyregexp.New(`^s[0-9a-f]{16}(@[^@]+)?$`)

func (c *refsCmd) Run(ctx context.Context) error {
	if err := checkName(c.Name); err != nil {
		return err
	}
	in := mcp.RefsIn{K: c.Limit, Offset: c.Offset}
	if symbolIDRe.MatchString(c.Name) {
		in.SymbolID = c.Name
	} else {
		in.SymbolName = c.Name
	}
	sc := scope.Scope{PathPrefix: c.PathPrefix, PathContains: c.PathContains, PathNotContains: c.PathNotContains, Extension: c.Ext}
	if err := sc.Validate(); err != nil {
		return scopeUsage(err)
	}
	if !sc.IsZero() {
		in.Scope = &sc
	}
	src, err := c.storeRead.open(ctx, c.repoFlags, c.Dir, nil)
	if err != nil {
		return err
	}
	defer src.close()
	out, err := src.answers.References(ctx, in)
	if errors.Is(err, query.ErrNoSymbol) {
		return &notFound{err}
	}
	if err != nil {
		return src.note(err)
	}
	if c.JSON {
		err = writeJSON(os.Stdout, out)
	} else {
		printState(os.Stdout, out.Freshness, newStyle(os.Stdout))
		printRefs(os.Stdout, out.References, newStyle(os.Stdout))
	}
	if err == nil && out.Total == 0 {
		return errNone
	}
	return err
}

func printRefs(w io.Writer, r *query.References, st style) {
	head := fmt.Sprintf("%d references to %s in %d files", r.Total, r.Name, len(r.Files))
	if r.Symbol != nil {
		head += fmt.Sprintf(" (symbol %s %s at %s:%d)", r.Symbol.Kind, r.Symbol.Qualname, r.Symbol.Path, r.Symbol.StartLine)
	}
	fmt.Fprintln(w, st.dim(head))
	if r.SharedBy > 0 {
		fmt.Fprintln(w, st.dim(fmt.Sprintf("  %d definitions share the name:", r.SharedBy)))
		for _, d := range r.Definitions {
			fmt.Fprintln(w, st.dim(fmt.Sprintf("    %s %s at %s:%d (%d references) %s", d.Kind, d.Qualname, d.Path, d.StartLine, d.References, d.ID)))
		}
	}
	for _, rr := range r.Repos {
		line := fmt.Sprintf("  %s: %d lines", rr.Repo, rr.Total)
		for _, c := range query.RefConfidences() {
			if n := rr.Confidence[c]; n > 0 {
				line += fmt.Sprintf(", %d %s", n, c)
			}
		}
		if rr.SymbolID != "" {
			line += " (references of " + rr.SymbolID + ")"
		}
		fmt.Fprintln(w, st.dim(line))
	}
	for _, l := range r.LeftOut {
		fmt.Fprintln(w, st.dim(fmt.Sprintf("  left out: %d lines: %s", l.Lines, l.Reason)))
	}
	for _, f := range r.FiltersApplied {
		fmt.Fprintln(w, st.dim("  filter: "+f))
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, st.dim("  note: "+cliWords(n)))
	}
	for _, f := range r.Files {
		path := f.Path
		if f.Repo != "" {
			path = f.Repo + ": " + path // a store's file
		}
		fmt.Fprintf(w, "%s %s\n", st.path(path), st.dim(fmt.Sprintf("(%d)", f.Count)))
		for _, h := range f.Refs {
			where := h.Symbol
			if where == "" {
				where = "top level"
			}
			fmt.Fprintf(w, "  %s %s  %s\n", st.dim(fmt.Sprintf("%5d", h.Line)), h.Snippet, st.dim("["+where+"] "+h.Confidence))
		}
	}
	if r.Truncated {
		fmt.Fprintln(w, st.dim(fmt.Sprintf("%d of %d shown; %d more from --offset %d", countRefs(r), r.Total, r.Remaining, r.NextOffset)))
	}
}

func countRefs(r *query.References) int {
	n := 0
	for _, f := range r.Files {
		n += len(f.Refs)
	}
	return n
}
