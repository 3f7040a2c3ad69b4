package query

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/viberag/viberag/scope"
)

// Usages come from the refs table (tables.Reader.RefsNamed): calls,
// identifier uses, type references and imports of the name, matched
// case-insensitively on the name and, for imports, on the imported name.
// The index has no types, so a reference is matched by name, never
// resolved to one definition; a qualified query ("Session.send") lists
// the references whose receiver.method ends with it first. A
// definition's own name is not a usage and is left out.

// refLine is one line referring to a name, with everything found on it.
type refLine struct {
	path      string
	fileID    int64
	line      int
	kinds     []string
	target    string
	symbol    string
	qualified bool // the receiver.method or import matched the qualified query
	class     int  // 0 source, 1 auxiliary, 2 test
}

// findRefs returns the lines referring to q, ordered: qualified matches
// first, then source before auxiliary before test files, by path and line.
func (sf *symbolFinder) findRefs(ctx context.Context, q defQuery, sc *scoped, files map[int64]*fileInfo) ([]*refLine, error) {
	rows, err := sf.db.RefsNamed(ctx, q.name, sc.scope)
	if err != nil {
		return nil, err
	}
	qual := ""
	if len(q.parts) > 1 {
		qual = strings.ToLower(strings.Join(q.parts, "."))
	}
	byLine := map[string]*refLine{}
	var out []*refLine
	for _, row := range rows {
		r := refLine{path: row.Path, fileID: row.FileID, line: row.Line, symbol: row.Qualname}
		kind, target := row.Kind, row.Target
		key := fmt.Sprintf("%s\x00%d", r.path, r.line)
		cur, ok := byLine[key]
		if !ok {
			cur = &r
			if f := files[r.fileID]; f != nil {
				switch {
				case f.test:
					cur.class = 2
				case f.aux:
					cur.class = 1
				}
			}
			byLine[key] = cur
			out = append(out, cur)
		}
		if !contains(cur.kinds, kind) {
			cur.kinds = append(cur.kinds, kind)
		}
		if target != "" && cur.target == "" {
			cur.target = target
		}
		if qual != "" && qualifiedMatch(strings.ToLower(target), qual) {
			cur.qualified = true
		}
	}
	for _, r := range out {
		sort.Strings(r.kinds)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.qualified != b.qualified {
			return a.qualified
		}
		if a.class != b.class {
			return a.class < b.class
		}
		if a.path != b.path {
			return a.path < b.path
		}
		return a.line < b.line
	})
	return out, nil
}

// qualifiedMatch: target ends with qual on a segment boundary
// ("self.session.send" ends with "session.send").
func qualifiedMatch(target, qual string) bool {
	target = strings.NewReplacer("::", ".", "->", ".", "#", ".").Replace(target)
	return target == qual || strings.HasSuffix(target, "."+qual)
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// usage runs the usage intent: reference lines as hits, grouped by file.
func (p *Planner) usage(ctx context.Context, req Request, text string, resp *Response) error {
	q := parseDefQuery(text)
	if q.name == "" {
		return fmt.Errorf("usage: %q is not a name", text)
	}
	files, err := p.files.get(ctx, p.db)
	if err != nil {
		return err
	}
	sc := newScoped(req.Scope)
	sc.note(req.Scope, scope.Refs)
	resp.FiltersApplied = sc.applied
	refs, err := p.symbols.findRefs(ctx, q, sc, files)
	if err != nil {
		return err
	}
	if len(refs) == 0 {
		return p.usageByText(ctx, req, q, resp)
	}
	resp.Total = len(refs)
	if len(q.parts) > 1 {
		n := 0
		for _, r := range refs {
			if r.qualified {
				n++
			}
		}
		resp.Notes = append(resp.Notes, fmt.Sprintf("references are matched by name: %d of %d lines call or import %s itself, the rest use the name %s", n, len(refs), q.raw, q.name))
	}
	page := refs[:min(len(refs), req.Limit)]
	if len(page) < len(refs) {
		resp.Truncated = true
		resp.Notes = append(resp.Notes, fmt.Sprintf("%d of %d reference lines shown; find_references lists them all by file", len(page), len(refs)))
	}
	// Group the page by file, keeping the order of first appearance.
	snips := make([]string, len(page))
	if req.draft {
		byID := make(map[string]*refLine, len(page))
		for _, r := range page {
			byID[refID(r)] = r
		}
		resp.fill = func(ctx context.Context, hits []Hit) error {
			var refs []*refLine
			var at []int
			for i, h := range hits {
				if r := byID[h.ID]; r != nil && h.Kind == KindUsage {
					refs, at = append(refs, r), append(at, i)
				}
			}
			s, err := p.page.refSnippets(ctx, refs)
			for k, i := range at {
				if err == nil {
					hits[i].Snippet = s[k]
				}
			}
			return err
		}
	} else {
		var err error
		if snips, err = p.page.refSnippets(ctx, page); err != nil {
			return err
		}
	}
	for i, r := range page {
		title := r.symbol
		if title == "" {
			title = "(top level)"
		}
		h := Hit{ID: refID(r), Kind: KindUsage, Path: r.path, StartLine: r.line, EndLine: r.line,
			Title: title + " · " + strings.Join(r.kinds, ","), Snippet: snips[i], Score: round(1 / float64(i+1)), Lines: []int{r.line}}
		if r.class > 0 || req.Explain {
			h.Why = &Why{Channels: []ChannelRank{{Channel: "refs", Rank: i + 1, Weight: 1}}}
			if r.class > 0 {
				h.Why.Note = "listed after source files: " + [...]string{"", "examples, docs, benchmarks or vendored code", "test file"}[r.class]
			}
		}
		resp.Hits = append(resp.Hits, h)
	}
	return nil
}

// refID is the id of a reference line's hit.
func refID(r *refLine) string { return fmt.Sprintf("r:%s:%d", r.path, r.line) }

// refSnippets returns the source line of each reference, reading each
// file's chunks once.
func (pf *pageFinisher) refSnippets(ctx context.Context, refs []*refLine) ([]string, error) {
	out := make([]string, len(refs))
	type span struct{ from, to int }
	spans := map[int64]*span{}
	for _, r := range refs {
		s, ok := spans[r.fileID]
		if !ok {
			spans[r.fileID] = &span{r.line, r.line}
			continue
		}
		s.from, s.to = min(s.from, r.line), max(s.to, r.line)
	}
	lines := map[int64][]string{}
	for id, s := range spans {
		ls, err := pf.fileLines(ctx, id, s.from, s.to)
		if err != nil {
			return nil, err
		}
		lines[id] = ls
	}
	for i, r := range refs {
		if ls := lines[r.fileID]; r.line-spans[r.fileID].from < len(ls) {
			out[i] = cutLine(strings.TrimSpace(ls[r.line-spans[r.fileID].from]))
		}
	}
	return out, nil
}

// usageByText is the fallback when no reference facts match: the files of
// a language without a reader have none. It lists the lines where the
// name occurs as a whole word.
func (p *Planner) usageByText(ctx context.Context, req Request, q defQuery, resp *Response) error {
	sub := req
	sub.Exhaustive, sub.Cursor, sub.IgnoreCase = false, "", false
	sub.Limit = MaxLimit
	tmp := &Response{}
	if err := p.exactText(ctx, sub, q.name, tmp); err != nil {
		return err
	}
	word := regexp.MustCompile(`(^|[^A-Za-z0-9_$])` + regexp.QuoteMeta(q.name) + `($|[^A-Za-z0-9_$])`)
	var hits []Hit
	for _, h := range tmp.Hits {
		if word.MatchString(h.Snippet) && !isDefinitionLine(h.Snippet, q.name) {
			h.Kind = KindUsage
			hits = append(hits, h)
		}
	}
	resp.Total = len(hits)
	resp.Notes = append(resp.Notes, fmt.Sprintf("no reference facts for %q; showing the lines where it occurs as a word (text matches, not resolved references)", q.name))
	if tmp.TotalAtLeast {
		resp.Notes = append(resp.Notes, fmt.Sprintf("searched the first %d of at least %d text occurrences", len(tmp.Hits), tmp.Total))
	} else if tmp.Total > len(tmp.Hits) {
		resp.Notes = append(resp.Notes, fmt.Sprintf("searched the first %d of %d text occurrences", len(tmp.Hits), tmp.Total))
	}
	if len(hits) > req.Limit {
		resp.Truncated = true
		hits = hits[:req.Limit]
	}
	for i := range hits {
		hits[i].Score = round(1 / float64(i+1))
	}
	resp.Hits = hits
	return nil
}

// isDefinitionLine reports whether line looks like the definition of
// name rather than a use ("func name(", "def name", "class name").
func isDefinitionLine(line, name string) bool {
	re := regexp.MustCompile(`(?:^|\s)(?:def|func|fn|function|class|struct|interface|trait|type|enum|module|defmodule|defp?|local function|fun|val|var|let|const)\s+(?:\([^)]*\)\s*)?` + regexp.QuoteMeta(name) + `\b`)
	return re.MatchString(line)
}

// RefsRequest asks for the references to a symbol (by id) or a name.
type RefsRequest struct {
	ID    string      `json:"id,omitempty"`
	Name  string      `json:"name,omitempty"`
	Scope scope.Scope `json:"scope,omitzero"`
	// Limit bounds the reference lines returned (default 500, at most
	// MaxRefs); Truncated says when more exist.
	Limit int `json:"limit,omitempty"`
}

// Reference limits.
const (
	DefaultRefs = 500
	MaxRefs     = 5000
)

// References lists the lines referring to a symbol or a name, grouped by
// file: files with qualified matches first, then source before auxiliary
// before test files, then by path; lines in order.
func (p *Planner) References(ctx context.Context, req RefsRequest) (*References, error) {
	if (req.ID == "") == (req.Name == "") {
		return nil, errors.New("references: give exactly one of id and name")
	}
	switch {
	case req.Limit < 0 || req.Limit > MaxRefs:
		return nil, fmt.Errorf("references: limit %d: must be 1..%d", req.Limit, MaxRefs)
	case req.Limit == 0:
		req.Limit = DefaultRefs
	}
	if err := req.Scope.Validate(); err != nil {
		return nil, err
	}
	out := &References{Files: []RefFile{}}
	name := req.Name
	if req.ID != "" {
		u, err := p.symbols.symbolByID(ctx, req.ID)
		if err != nil {
			return nil, err
		}
		name = u.name
		out.Symbol = &SymRef{ID: u.id, Kind: u.symKind, Qualname: u.qualname, Path: u.path, StartLine: u.start, EndLine: u.end}
		out.Notes = append(out.Notes, "references are matched by the name "+u.name+", not resolved to this definition: other symbols of that name share them")
	}
	q := parseDefQuery(name)
	if q.name == "" {
		return nil, fmt.Errorf("references: %q is not a name", name)
	}
	out.Name = q.raw
	files, err := p.files.get(ctx, p.db)
	if err != nil {
		return nil, err
	}
	sc := newScoped(req.Scope)
	sc.note(req.Scope, scope.Refs)
	out.FiltersApplied = sc.applied
	refs, err := p.symbols.findRefs(ctx, q, sc, files)
	if err != nil {
		return nil, err
	}
	out.Total = len(refs)
	if len(refs) > req.Limit {
		out.Truncated = true
		refs = refs[:req.Limit]
	}
	snips, err := p.page.refSnippets(ctx, refs)
	if err != nil {
		return nil, err
	}
	idx := map[string]int{}
	for i, r := range refs {
		j, ok := idx[r.path]
		if !ok {
			j = len(out.Files)
			idx[r.path] = j
			out.Files = append(out.Files, RefFile{Path: r.path})
		}
		f := &out.Files[j]
		f.Count++
		f.Refs = append(f.Refs, RefHit{Line: r.line, Kinds: r.kinds, Target: r.target, Symbol: r.symbol, Snippet: snips[i]})
	}
	for i := range out.Files {
		sort.Slice(out.Files[i].Refs, func(a, b int) bool { return out.Files[i].Refs[a].Line < out.Files[i].Refs[b].Line })
	}
	if out.Total == 0 {
		out.Notes = append(out.Notes, "no reference facts match; files in languages without a reader have none (search with intent exact_text instead)")
	}
	return out, nil
}

// symbolByID reads one symbol by sid.
func (sf *symbolFinder) symbolByID(ctx context.Context, sid string) (*unit, error) {
	r, ok, err := sf.db.SymbolBySID(ctx, sid)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("symbol %q: %w: not in the index (ids change when a symbol is renamed or moved; search again)", sid, ErrNoSymbol)
	}
	return symbolUnit(r), nil
}
