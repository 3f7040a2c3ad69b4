package query

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/fulltext"
)

// Definition match tiers, best first.
const (
	tierQualified = iota // name and qualifier match as written
	tierExact            // name matches as written
	tierFold             // name matches ignoring case
	tierPrefix           // name starts with the query
	tierParts            // name holds every word of the query
	tierFuzzy            // name is a typo away
)

var tierNames = [...]string{"qualified name", "exact name", "name ignoring case", "name prefix", "name words", "typo-corrected name"}

// qualSep splits a qualified name: a.b, A::B, a->b, A\B, A#b.
var qualSep = lazyregexp.New(`::|->|\\|#|\.`)

// defQuery is a name to look up, split into its qualifier and last part.
type defQuery struct {
	raw   string   // as written, without a leading @ or $ and a trailing ? or !
	parts []string // qualifier parts and the name
	name  string   // the last part
}

func parseDefQuery(s string) defQuery {
	s = strings.TrimSpace(s)
	// A leading '$' is kept: JavaScript's $x is a name of its own
	// (resolveName retries without it, for PHP's $variable).
	s = strings.TrimSuffix(strings.TrimPrefix(s, "@"), "()")
	q := defQuery{raw: s}
	for _, p := range qualSep.Split(s, -1) {
		if p != "" {
			q.parts = append(q.parts, p)
		}
	}
	if len(q.parts) > 0 {
		q.name = q.parts[len(q.parts)-1]
	}
	return q
}

// defCand is a definition found, with how it matched.
type defCand struct {
	u    *unit
	tier int
	test bool
}

// symbolFinder finds the symbols and the reference lines a name may
// mean, and resolves a name to one symbol (resolve.go).
type symbolFinder struct {
	db       tables.Reader
	files    *fileCache        // the planner's
	names    nameCache         // distinct symbol names, for typo correction
	goChecks *resolve.GoChecks // Go packages type-checked by lookups, kept when Options.KeepGoChecks or GoChecks
	goScope  string            // Options.GoChecksScope
}

// definitions finds the symbols a name may mean, best first: by tier, then
// type-like kinds before functions before methods before variables (a
// bare name most often asks for the type), exported first, outside tests
// first, then path and line. prefixAndFuzzy widens the search beyond the
// exact name; fuzzy lookups run only when nothing else matched.
func (sf *symbolFinder) definitions(ctx context.Context, text string, sc *scoped, pool unitPool, files map[int64]*fileInfo, wide bool) ([]defCand, []string, error) {
	q := parseDefQuery(text)
	if q.name == "" {
		return nil, nil, nil
	}
	var notes []string
	found := map[string]*defCand{}
	// collect(tier)(rows, err) adds the symbols a lookup of tier found.
	collect := func(tier int) func([]tables.SymbolRow, error) error {
		return func(rows []tables.SymbolRow, err error) error {
			if err != nil {
				return err
			}
			for _, r := range rows {
				u := symbolUnit(r)
				t := nameTier(q, u, tier)
				if !wide && t > tierFold {
					continue // the narrow lookup wants the name itself
				}
				if old, ok := found[u.id]; ok && old.tier <= t {
					continue
				}
				test := false
				if f := files[u.fileID]; f != nil {
					test = f.test
				}
				found[u.id] = &defCand{u: pool.intern(u), tier: t, test: test}
			}
			return nil
		}
	}

	if err := collect(tierFold)(sf.db.SymbolsNamed(ctx, tables.NameLookup{Name: q.name}, sc.scope)); err != nil {
		return nil, nil, err
	}
	if words := nameWords(q.name); len(words) == 1 {
		// Qualified names stored whole (Elixir's Plug.Conn, Ruby's
		// Sinatra::Base when the reader keeps them) end with the name: the
		// name column's words find them, nameTier grades them.
		q := fulltext.In([]string{"name"}, fulltext.Term(words[0]))
		if err := collect(tierParts)(sf.db.SymbolsMatching(ctx, q, sc.scope)); err != nil {
			return nil, nil, err
		}
	}
	if wide {
		if len(q.name) >= 3 {
			if err := collect(tierPrefix)(sf.db.SymbolsNamed(ctx, tables.NameLookup{Name: q.name, Prefix: true}, sc.scope)); err != nil {
				return nil, nil, err
			}
		}
		if words := nameWords(q.name); len(words) >= 2 {
			var terms []fulltext.Query
			for _, w := range words {
				terms = append(terms, fulltext.Term(w))
			}
			q := fulltext.In([]string{"name"}, fulltext.And(terms...))
			if err := collect(tierParts)(sf.db.SymbolsMatching(ctx, q, sc.scope)); err != nil {
				return nil, nil, err
			}
		}
		if len(found) == 0 {
			names, err := sf.names.get(ctx, sf.db)
			if err != nil {
				return nil, nil, err
			}
			if close := names.close(q.name, 8); len(close) > 0 {
				if err := collect(tierFuzzy)(sf.db.SymbolsNamed(ctx, tables.NameLookup{Any: close}, sc.scope)); err != nil {
					return nil, nil, err
				}
				notes = append(notes, fmt.Sprintf("no symbol is named %q; showing the nearest names: %s", q.name, strings.Join(close, ", ")))
			}
		}
	}
	out := make([]defCand, 0, len(found))
	for _, c := range found {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return defLess(out[i], out[j]) })
	return out, notes, nil
}

// nameTier grades a symbol found by a lookup of the given tier: a symbol
// whose name, or the last part of its qualified name, is the query's name
// is an exact match (qualified when the query's qualifier matches too),
// or a case-folded one; any other keeps the lookup's tier.
func nameTier(q defQuery, u *unit, tier int) int {
	name := u.name
	if parts := qualSep.Split(name, -1); len(parts) > 1 {
		name = parts[len(parts)-1]
	}
	switch {
	case name == q.name:
	case strings.EqualFold(name, q.name):
		return min(tier, tierFold)
	default:
		return tier
	}
	if len(q.parts) > 1 {
		// The qualifier must match the end of the qualname, compared part
		// by part whatever the separators ("Sinatra::Base" ~ "Sinatra.Base").
		qual := qualSep.Split(u.qualname, -1)
		if len(qual) >= len(q.parts) && strings.EqualFold(strings.Join(qual[len(qual)-len(q.parts):], "."), strings.Join(q.parts, ".")) {
			return tierQualified
		}
	}
	return tierExact
}

func defLess(a, b defCand) bool {
	if a.tier != b.tier {
		return a.tier < b.tier
	}
	if ka, kb := kindRank(a.u.symKind), kindRank(b.u.symKind); ka != kb {
		return ka < kb
	}
	if a.u.exported != b.u.exported {
		return a.u.exported
	}
	if a.test != b.test {
		return !a.test
	}
	// The larger of two otherwise equal definitions first: the main part
	// of a partial class, a type rather than its forward declaration.
	if sa, sb := a.u.end-a.u.start, b.u.end-b.u.start; sa != sb {
		return sa > sb
	}
	if a.u.path != b.u.path {
		return a.u.path < b.u.path
	}
	return a.u.start < b.u.start
}

// kindRank orders symbol kinds for a bare-name lookup.
func kindRank(kind string) int {
	switch kind {
	case extract.KindClass, extract.KindStruct, extract.KindInterface, extract.KindTrait,
		extract.KindEnum, extract.KindType, extract.KindModule, extract.KindNamespace:
		return 0
	case extract.KindFunction, extract.KindMacro:
		return 1
	case extract.KindMethod:
		return 2
	case extract.KindConst, extract.KindVar, extract.KindImpl:
		return 3
	case extract.KindField, extract.KindProperty:
		return 4
	default:
		return 5
	}
}

// nameWords are a name's split words without the whole form.
func nameWords(name string) []string {
	ws := extract.SplitIdentifier(name)
	if n := len(ws); n > 1 && ws[n-1] == strings.ToLower(strings.Trim(name, "_-.:/ \t")) {
		ws = ws[:n-1] // the whole form SplitIdentifier appends
	}
	return ws
}

// maxImporters bounds the import lines that stand in for a definition.
const maxImporters = 10

// importers finds, when no symbol has the name, the lines that import it
// by that exact name (`from m import Engine`, `pub use other::Thing`,
// `export { Widget } from '../core'`): the definition lies outside the
// indexed files (another package, a parent directory, a dependency), and
// the import says where it comes from. Source files before auxiliary and
// test files, as usages are ordered.
func (p *Planner) importers(ctx context.Context, q defQuery, sc *scoped, pool unitPool, files map[int64]*fileInfo) ([]*unit, error) {
	refs, err := p.symbols.findRefs(ctx, q, sc, files)
	if err != nil {
		return nil, err
	}
	var lines []*refLine
	for _, r := range refs {
		if contains(r.kinds, "import") && r.target == q.name {
			lines = append(lines, r)
			if len(lines) == maxImporters {
				break
			}
		}
	}
	snips, err := p.page.refSnippets(ctx, lines)
	if err != nil {
		return nil, err
	}
	out := make([]*unit, len(lines))
	for i, r := range lines {
		out[i] = pool.intern(&unit{kind: KindUsage, id: fmt.Sprintf("r:%s:%d", r.path, r.line), fileID: r.fileID, path: r.path,
			start: r.line, end: r.line, title: "import of " + q.name, signature: snips[i]})
	}
	return out, nil
}
