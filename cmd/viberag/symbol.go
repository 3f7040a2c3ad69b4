package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/mcp"
	"github.com/viberag/viberag/query"
)

type symbolCmd struct {
	repoFlags
	storeRead
	Dir     string `short:"C" name:"dir" help:"Use the repository containing PATH (default: the current directory)." type:"path" placeholder:"PATH"`
	ID      string `arg:"" name:"id-or-name" help:"A symbol id (from search) or a name (Class, Class.method, pkg::Func)."`
	MaxCode int    `name:"max-code-chars" placeholder:"N" help:"Cut the code after this many bytes, at a line end (default 8000, at most 16384)."`
	NoCode  bool   `name:"no-code" help:"Leave the code out."`
	JSON    bool   `help:"Print the JSON the MCP server returns (get_symbol_details)."`
}

func (c *symbolCmd) Run(ctx context.Context) error {
	if err := checkName(c.ID); err != nil {
		return err
	}
	in := mcp.SymbolIn{MaxCodeChars: c.MaxCode}
	if symbolIDRe.MatchString(c.ID) {
		in.SymbolID = c.ID
	} else {
		in.SymbolName = c.ID
	}
	if c.NoCode {
		in.IncludeCode = new(false)
	}
	src, err := c.storeRead.open(ctx, c.repoFlags, c.Dir, nil)
	if err != nil {
		return err
	}
	defer src.close()
	out, err := src.answers.Symbol(ctx, in)
	if errors.Is(err, query.ErrNoSymbol) {
		return &notFound{err}
	}
	if err != nil {
		return src.note(err)
	}
	if c.JSON {
		return writeJSON(os.Stdout, out)
	}
	printState(os.Stdout, out.Freshness, newStyle(os.Stdout))
	printSymbol(os.Stdout, out.SymbolDetails, newStyle(os.Stdout))
	return nil
}

func printSymbol(w io.Writer, d *query.SymbolDetails, st style) {
	fmt.Fprintf(w, "%s  %s %s\n", st.path(fmt.Sprintf("%s:%d-%d", d.Path, d.StartLine, d.EndLine)), d.Kind, st.title(d.Qualname))
	exported := "unexported"
	if d.Exported {
		exported = "exported"
	}
	fmt.Fprintln(w, st.dim(fmt.Sprintf("  id %s · %s · %s", d.ID, d.Language, exported)))
	if d.Note != "" {
		fmt.Fprintln(w, st.dim("  note: "+cliWords(d.Note)))
	}
	if d.Parent != nil {
		fmt.Fprintln(w, st.dim(fmt.Sprintf("  in %s %s (%s)", d.Parent.Kind, d.Parent.Qualname, d.Parent.ID)))
	}
	if len(d.Decorators) > 0 {
		fmt.Fprintln(w, st.dim("  decorators: "+strings.Join(d.Decorators, ", ")))
	}
	if d.Doc != "" {
		for _, l := range strings.Split(d.Doc, "\n") {
			fmt.Fprintln(w, "  "+st.dim(l))
		}
	}
	fmt.Fprintln(w)
	for i, l := range strings.Split(d.Code, "\n") {
		fmt.Fprintf(w, "%s %s\n", st.dim(fmt.Sprintf("%5d", d.StartLine+i)), l)
	}
	if d.CodeTruncated {
		fmt.Fprintln(w, st.dim(fmt.Sprintf("  … code cut at %d bytes (--max-code-chars)", len(d.Code))))
	}
	if len(d.Children) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, st.dim(fmt.Sprintf("%d members:", len(d.Children))))
		for _, ch := range d.Children {
			fmt.Fprintf(w, "  %s %s %s\n", st.path(fmt.Sprintf("%d-%d", ch.StartLine, ch.EndLine)), ch.Kind, ch.Qualname)
		}
	}
	if len(d.Calls) > 0 {
		fmt.Fprintln(w, st.dim("calls: "+strings.Join(d.Calls, ", ")))
	}
	if len(d.Others) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, st.dim(fmt.Sprintf("%d other symbols of that name:", len(d.Others))))
		for _, o := range d.Others {
			fmt.Fprintf(w, "  %s %s %s %s\n", st.path(fmt.Sprintf("%s:%d-%d", o.Path, o.StartLine, o.EndLine)), o.Kind, o.Qualname, st.dim(o.ID))
		}
	}
}

// notFound is an answer of none (exit status 1) that still deserves a
// message: no symbol of that name or id.
type notFound struct{ err error }

func (e *notFound) Error() string { return e.err.Error() }
func (e *notFound) Unwrap() error { return e.err }
func (e *notFound) ExitCode() int { return exitNone }

// checkName refuses, before any index is opened, a symbol name or id
// the command line was given that cannot name a symbol, saying what to
// give in the command line's words (the tools' checks name their
// arguments, symbol_id and symbol_name).
func checkName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return usageErrorf("the name is empty; give a symbol's name (Queue, Queue.push) or its id from viberag search")
	case len(name) > mcp.MaxNameBytes:
		return usageErrorf("the name is %d bytes, over the limit of %d; give a symbol's name (Queue, Queue.push) or its id from viberag search", len(name), mcp.MaxNameBytes)
	case chunkIDRe.MatchString(name):
		return usageErrorf("%s is the id of a block of lines, not of a symbol: read the block at the path and lines its search hit shows, or give a symbol's name or its id (s…)", name)
	}
	return nil
}

// chunkIDRe matches a chunk's id (a search hit of kind block), of a
// local index or of a store.
var chunkIDRe = lazyregexp.New(`^c[0-9a-f]{16}(@[^@]+)?$`)
