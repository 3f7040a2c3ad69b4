package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/scope"
)

// The answers search, symbol and refs print are the MCP tools' (their
// --json is exactly what the tools return), so their notes and suggested
// next steps name the tools' arguments. The text the CLI prints names the
// CLI's own commands and flags instead: cliWords translates sentences,
// cliAction next steps.

// mcpWords pairs the MCP tools' words, as the planner's notes and errors
// use them, with the command line's. Longer phrases come first: at the
// same position the first pair listed wins.
var mcpWords = []string{
	"codebase_search with intent definition", "viberag search --intent definition",
	"set ignore_case to widen", "add -i (--ignore-case) to widen",
	"scope.repo one repository (and set exhaustive to page through them)", "search one repository with --repo (and add --exhaustive to page through them)",
	"set exhaustive (and page with the cursor)", "add --exhaustive (and page with --cursor)",
	"exhaustive, cursor and ignore_case apply to", "--exhaustive, --cursor and -i apply to",
	"exhaustive and cursor apply to", "--exhaustive and --cursor apply to",
	"exhaustive pages through", "--exhaustive pages through",
	"name one in scope.repo", "name one with --repo",
	"give symbol_id or scope a repository", "give a symbol id or --repo",
	"next_cursor continues", "--cursor continues",
	"find_references lists", "viberag refs lists",
	"list_repos shows", "viberag store ls shows",
	"raise max_tokens", "raise --max-tokens",
	"symbol_id:", "symbol id",
	"intent auto", "--intent auto",
	"intent definition", "--intent definition",
	"intent usage", "--intent usage",
	"intent concept", "--intent concept",
	"intent exact_text", "--intent exact_text",
	"intent similar_code", "--intent similar_code",
	"max_tokens", "--max-tokens",
	"ignore_case", "-i (--ignore-case)",
	"codebase_search", "viberag search",
	"get_symbol_details", "viberag symbol",
	"find_references", "viberag refs",
	"scope.repo", "--repo",
}

var mcpReplacer = strings.NewReplacer(mcpWords...)

// doubleDash undoes a translation applied to text that already named the
// flag ("--intent concept" must not become "----intent concept").
var doubleDash = lazyregexp.New(`-{3,}`)

// cliWords says s (a note, a reason, an error of the planner) in the
// command line's words.
func cliWords(s string) string {
	return doubleDash.ReplaceAllString(mcpReplacer.Replace(s), "--")
}

// cliAction is the command line that takes a suggested next step (an MCP
// tool call, as the answer names it), and what it shows.
func cliAction(a query.Action) (cmd, why string) {
	str := func(k string) string {
		if v, ok := a.Args[k]; ok {
			return fmt.Sprint(v)
		}
		return ""
	}
	why = a.Reason
	switch a.Tool {
	case "get_symbol_details":
		return "viberag symbol " + shellQuote(str("symbol_id")), why
	case "find_references":
		return "viberag refs " + shellQuote(str("symbol_id")), why
	case "get_surrounding_code":
		return fmt.Sprintf("open %s:%s", str("path"), str("line")), why
	case "read_file_lines":
		return fmt.Sprintf("open %s:%s-%s", str("path"), str("start_line"), str("end_line")), why
	case "codebase_search":
		parts := []string{"viberag search"}
		keys := make([]string, 0, len(a.Args))
		for k := range a.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch v := a.Args[k]; {
			case k == "query":
			case v == true:
				parts = append(parts, "--"+strings.ReplaceAll(k, "_", "-"))
			case v == false || v == nil:
			default:
				parts = append(parts, "--"+strings.ReplaceAll(k, "_", "-"), shellQuote(fmt.Sprint(v)))
			}
		}
		q := str("query")
		if strings.HasPrefix(q, "-") {
			parts = append(parts, "--")
		}
		return strings.Join(append(parts, shellQuote(q)), " "), why
	}
	// A tool the command line has no command for: name it as the answer
	// does.
	return a.Tool + " " + fmt.Sprint(a.Args), why
}

// scopeFlags names each scope field by the flag that sets it.
var scopeFlags = map[string]string{
	scope.FieldPathPrefix:      "--path-prefix",
	scope.FieldPathContains:    "--path-contains",
	scope.FieldPathNotContains: "--path-not-contains",
	scope.FieldExtension:       "--ext",
	scope.FieldSymbolKind:      "--kind",
	scope.FieldIsExported:      "--exported",
	scope.FieldDecorator:       "--decorator",
}

// scopeUsage is the usage error for a scope built from the command
// line's flags that does not validate: it names the flag and the value
// as the user typed them, not the MCP scope's field ("--kind "bogus"",
// not "scope: symbol_kind[0] "bogus"").
func scopeUsage(err error) error {
	var fe *scope.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	name, ok := scopeFlags[fe.Field]
	switch {
	case !ok:
		return err
	case fe.Index >= 0 || fe.Value != "":
		return usageErrorf("%s %q: %s", name, fe.Value, fe.Reason)
	}
	return usageErrorf("%s: %s", name, fe.Reason)
}
