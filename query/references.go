package query

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/viberag/viberag/query/resolve"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// A reference's confidence that it belongs to one definition (see
// resolve.ConfResolved and the others).
const (
	ConfResolved = resolve.ConfResolved
	ConfLikely   = resolve.ConfLikely
	ConfNameOnly = resolve.ConfNameOnly
)

// KindReexport marks a reference line that re-exports the name under
// itself ("from .m import name as name", the explicit re-export of a
// typed package's __init__): it names the definition, uses nothing.
const KindReexport = "reexport"

// RefsRequest asks for the references to a symbol (by id) or a name.
type RefsRequest struct {
	ID    string      `json:"id,omitempty"`
	Name  string      `json:"name,omitempty"`
	Scope scope.Scope `json:"scope,omitzero"`
	// Limit bounds the reference lines returned (default 500, at most
	// MaxRefs); Offset skips that many first (paging: the answer's
	// NextOffset).
	Limit  int `json:"limit,omitempty"`
	Offset int `json:"offset,omitempty"`
}

// RefConfidences returns the confidences of reference lines in the order
// an answer lists them.
func RefConfidences() []string { return []string{ConfResolved, ConfLikely, ConfNameOnly} }

// Reference limits.
const (
	DefaultRefs = 500
	MaxRefs     = 5000
)

// maxRefDefs bounds the definitions of one name the resolver judges
// lines against; a name with more is judged against the first ones.
const maxRefDefs = 200

// References lists one definition's references: those resolved to it
// first, then the likely ones, then those that match its name only (see
// package resolve); within each, source before auxiliary before test files,
// by path and line. Lines the facts tie elsewhere are left out and
// counted by reason. A name with one definition is that definition; a
// name several share lists them with their reference counts and answers
// for the most used.
func (p *Planner) References(ctx context.Context, req RefsRequest) (*References, error) {
	if err := req.Check(); err != nil {
		return nil, err
	}
	d, err := p.RankRefs(ctx, req)
	if err != nil {
		return nil, err
	}
	return d.Page(ctx, req.Offset, cmp.Or(req.Limit, DefaultRefs))
}

// Check checks a request's id or name, limit, offset and scope.
func (req RefsRequest) Check() error {
	if (req.ID == "") == (req.Name == "") {
		return errors.New("references: give exactly one of id and name")
	}
	if req.Limit < 0 || req.Limit > MaxRefs {
		return fmt.Errorf("references: limit %d: must be 1..%d", req.Limit, MaxRefs)
	}
	if req.Offset < 0 {
		return fmt.Errorf("references: offset %d: must be 0 or more", req.Offset)
	}
	return req.Scope.Validate()
}

// RefsDraft is one index's references judged and put in their order,
// without snippets: the first phase of References, which an answer over
// many repositories (fanout) runs in each before it knows which of their
// lines its page holds. Refs is the answer without its lines (Files
// empty, Offset, NextOffset and Remaining unset); its Confidence counts
// say where each confidence's lines start in the order.
type RefsDraft struct {
	Refs  *References
	p     *Planner
	lines []*refLine // in the answer's order
	conf  []string
	name  string
	files map[int64]*fileInfo
}

// RankRefs judges the lines of req's definition or name and orders them
// (References without the page; req's Limit and Offset are not used).
func (p *Planner) RankRefs(ctx context.Context, req RefsRequest) (*RefsDraft, error) {
	if err := req.Check(); err != nil {
		return nil, err
	}
	out := &References{Files: []RefFile{}}
	files, err := p.files.get(ctx, p.db)
	if err != nil {
		return nil, err
	}
	var def *unit
	name := req.Name
	if req.ID != "" {
		if def, err = p.symbols.symbolByID(ctx, req.ID); err != nil {
			return nil, err
		}
		name = def.name
	} else if q := parseDefQuery(name); len(q.parts) > 1 {
		// A qualified name is one definition. The answer says how it was
		// found (inherited, a module qualifier), or that the type has no
		// such member and the lines of the bare name follow.
		r, err := p.symbols.resolveName(ctx, name)
		var nm *noMemberError
		switch {
		case err == nil && r.sid != "":
			if def, err = p.symbols.symbolByID(ctx, r.sid); err != nil {
				return nil, err
			}
			name = def.name
			if r.note != "" {
				out.Notes = append(out.Notes, r.note)
			}
		case errors.As(err, &nm):
			out.Notes = append(out.Notes, "no symbol is named "+nm.raw+": "+nm.detail+"; these are the references of the name "+nm.name)
		}
	}
	q := defQuery{raw: name, name: name, parts: []string{name}}
	if def == nil {
		q = parseDefQuery(name)
		if q.name == "" {
			return nil, fmt.Errorf("references: %q is not a name", name)
		}
	}
	out.Name = q.raw
	sc := newScoped(req.Scope)
	sc.note(req.Scope, scope.Refs)
	out.FiltersApplied = sc.applied
	refs, err := p.symbols.refLines(ctx, q, sc, files, true)
	if err != nil {
		return nil, err
	}
	defUnits, err := p.symbols.exactDefs(ctx, q.name, def)
	if err != nil {
		return nil, err
	}
	defs := resolveSymbols(defUnits)
	var kept []*refLine
	var conf []string
	if len(defs) == 0 {
		// No definition of the name in the index (another language's
		// reader, a dependency's name): the lines matching it.
		for _, r := range refs {
			kept, conf = append(kept, r), append(conf, ConfNameOnly)
		}
		out.Notes = append(out.Notes, "no definition of "+q.name+" is indexed: these lines match the name only")
	} else {
		src := refSource{p: p, files: files}
		rr := resolve.New(q.name, defs, resolveFiles(files), src, p.symbols.goChecks, p.symbols.goScope) // nil checks: this lookup's own
		lines := make([]resolve.Line, len(refs))
		for i, r := range refs {
			lines[i] = resolve.Line{Path: r.path, FileID: r.fileID, Line: r.line, Kinds: r.kinds,
				Symbol: r.symbol, EnclName: r.enclName, EnclStart: r.enclStart, DefLine: r.defLine}
		}
		js, err := rr.Judge(ctx, lines)
		if err != nil {
			return nil, err
		}
		if n := rr.GoNote(); n != "" {
			out.Notes = append(out.Notes, n)
		}
		counts := make([]int, len(defs))
		for i := range defs {
			_, c, _ := js.Confidences(i)
			for _, x := range c {
				if x != ConfNameOnly {
					counts[i]++
				}
			}
		}
		di, why := 0, ""
		if def != nil {
			for i, d := range defs {
				if d.ID == def.id {
					di = i
				}
			}
		} else {
			if di, why, err = rr.MostUsed(ctx, js, counts); err != nil {
				return nil, err
			}
			def = defUnits[di]
		}
		out.Symbol = &SymRef{ID: def.id, Kind: def.symKind, Qualname: def.qualname, Path: def.path, StartLine: def.start, EndLine: def.end}
		if len(defs) > 1 {
			out.SharedBy = len(defs)
			for i, d := range defs {
				if i == di || len(out.Definitions) >= maxOthers*2 {
					continue
				}
				out.Definitions = append(out.Definitions, RefDefinition{SymRef: SymRef{ID: d.ID, Kind: d.Kind, Qualname: d.Qualname, Path: d.Path, StartLine: d.Start, EndLine: d.End}, References: counts[i]})
			}
			if req.ID == "" {
				out.Notes = append(out.Notes, fmt.Sprintf("%d definitions are named %s; these are the references of the most used one (%d resolved or likely lines%s); ask by id for another one's", len(defs), q.name, counts[di], why))
			}
		}
		var at []int
		var left map[string]int
		at, conf, left = js.Confidences(di)
		for _, i := range at {
			kept = append(kept, refs[i])
		}
		if kept, conf, err = p.withCtorLines(ctx, req, def, files, kept, conf); err != nil {
			return nil, err
		}
		for why, n := range left {
			out.LeftOut = append(out.LeftOut, RefLeftOut{Reason: why, Lines: n})
		}
		slices.SortFunc(out.LeftOut, func(a, b RefLeftOut) int { return cmp.Or(b.Lines-a.Lines, cmp.Compare(a.Reason, b.Reason)) })
	}
	order := map[string]int{}
	for i, c := range RefConfidences() {
		order[c] = i
	}
	idx := make([]int, len(kept))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := kept[idx[a]], kept[idx[b]]
		if order[conf[idx[a]]] != order[conf[idx[b]]] {
			return order[conf[idx[a]]] < order[conf[idx[b]]]
		}
		if x.class != y.class {
			return x.class < y.class
		}
		if x.path != y.path {
			return x.path < y.path
		}
		return x.line < y.line
	})
	out.Confidence = map[string]int{}
	for _, c := range conf {
		out.Confidence[c]++
	}
	out.Total = len(kept)
	if out.Total == 0 && len(out.LeftOut) == 0 {
		out.Notes = append(out.Notes, "no reference facts match; files in languages without a reader have none (search with intent exact_text instead)")
	}
	d := &RefsDraft{Refs: out, p: p, lines: make([]*refLine, len(kept)), conf: make([]string, len(kept)), name: q.name, files: files}
	for k, i := range idx {
		d.lines[k], d.conf[k] = kept[i], conf[i]
	}
	return d, nil
}

// Page answers lines [offset, offset+limit) of the draft's order, grouped
// by file: References' answer. Truncated is set, with NextOffset and
// Remaining, when lines follow the page.
func (d *RefsDraft) Page(ctx context.Context, offset, limit int) (*References, error) {
	out := *d.Refs
	out.Offset = min(offset, out.Total)
	end := min(out.Offset+limit, out.Total)
	if end < out.Total {
		out.Truncated = true
		out.NextOffset = end
		out.Remaining = out.Total - end
	}
	lines, err := d.Lines(ctx, out.Offset, end-out.Offset)
	if err != nil {
		return nil, err
	}
	out.Files = GroupRefFiles(lines)
	return &out, nil
}

// Lines returns lines [offset, offset+limit) of the draft's order, each
// as a file of one line with its snippet, for GroupRefFiles.
func (d *RefsDraft) Lines(ctx context.Context, offset, limit int) ([]RefFile, error) {
	offset = min(max(offset, 0), len(d.lines))
	end := min(offset+max(limit, 0), len(d.lines))
	page := d.lines[offset:end]
	snips, err := d.p.page.refSnippets(ctx, page)
	if err != nil {
		return nil, err
	}
	out := make([]RefFile, len(page))
	for i, r := range page {
		kinds := r.kinds
		if fi := d.files[r.fileID]; fi != nil && fi.language == "python" && resolve.PyReexport(snips[i], d.name) {
			kinds = append(slices.Clip(kinds), KindReexport)
		}
		out[i] = RefFile{Path: r.path, Count: 1, Refs: []RefHit{{Line: r.line, Kinds: kinds, Target: r.target, Symbol: r.symbol, Snippet: snips[i], Confidence: d.conf[offset+i]}}}
	}
	return out, nil
}

// GroupRefFiles groups lines (in order) by repository and path: a file's
// lines follow its first, in their order, and files come in the order of
// their first lines.
func GroupRefFiles(lines []RefFile) []RefFile {
	type key struct{ repo, path string }
	at := map[key]int{}
	out := []RefFile{}
	for _, l := range lines {
		k := key{l.Repo, l.Path}
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, RefFile{Repo: l.Repo, Path: l.Path})
		}
		out[j].Count += len(l.Refs)
		out[j].Refs = append(out[j].Refs, l.Refs...)
	}
	return out
}

// declared returns every symbol named exactly name, tests included.
func (sf *symbolFinder) declared(ctx context.Context, name string) ([]*unit, error) {
	rows, err := sf.db.SymbolsNamed(ctx, tables.NameLookup{Name: name}, scope.Scope{})
	if err != nil {
		return nil, err
	}
	var out []*unit
	for _, r := range rows {
		if r.Name == name {
			out = append(out, symbolUnit(r))
		}
	}
	return out, nil
}

// exactDefs returns the definitions named exactly name (case and all),
// def first when given, for the resolver.
func (sf *symbolFinder) exactDefs(ctx context.Context, name string, def *unit) ([]*unit, error) {
	rows, err := sf.db.SymbolsNamed(ctx, tables.NameLookup{Name: name}, scope.Scope{})
	if err != nil {
		return nil, err
	}
	// In the order of the tree, not of the store's rows: SQLite and
	// PostgreSQL list ties differently, and the first of equally used
	// definitions is the one answered for.
	slices.SortFunc(rows, func(a, b tables.SymbolRow) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.StartLine, b.StartLine), cmp.Compare(a.SID, b.SID))
	})
	var out []*unit
	if def != nil {
		out = append(out, def)
	}
	for _, r := range rows {
		if r.Name != name || (def != nil && r.SID == def.id) || len(out) >= maxRefDefs {
			continue
		}
		if r.Kind == "section" || r.Kind == "test" {
			continue
		}
		out = append(out, symbolUnit(r))
	}
	return out, nil
}

// refSource is the index as the resolver reads it.
type refSource struct {
	p     *Planner
	files map[int64]*fileInfo
}

func (s refSource) Lines(ctx context.Context, id int64) ([]string, error) {
	f := s.files[id]
	if f == nil {
		return nil, nil
	}
	return s.p.page.fileLines(ctx, id, 1, max(f.lines, 1))
}

func (s refSource) Named(ctx context.Context, name string) ([]resolve.Symbol, error) {
	us, err := s.p.symbols.exactDefs(ctx, name, nil)
	return resolveSymbols(us), err
}

func (s refSource) Declared(ctx context.Context, name string) ([]resolve.Symbol, error) {
	us, err := s.p.symbols.declared(ctx, name)
	return resolveSymbols(us), err
}

// resolveSymbols is units as the resolver reads them.
func resolveSymbols(us []*unit) []resolve.Symbol {
	var out []resolve.Symbol
	for _, u := range us {
		out = append(out, resolve.Symbol{ID: u.id, FileID: u.fileID, Path: u.path, Start: u.start, End: u.end,
			Kind: u.symKind, Name: u.name, Qualname: u.qualname})
	}
	return out
}

// resolveFiles is the indexed files as the resolver reads them.
func resolveFiles(files map[int64]*fileInfo) []resolve.File {
	out := make([]resolve.File, 0, len(files))
	for _, f := range files {
		out = append(out, resolve.File{ID: f.id, Path: f.path, Language: f.language, Lines: f.lines})
	}
	return out
}
