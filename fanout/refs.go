package fanout

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables/postgres"
)

// maxRefDefinitions bounds the other definitions an answer over several
// repositories lists (the most referenced first); SharedBy counts them
// all and a note the ones not listed.
const maxRefDefinitions = 10

// References lists the references to a name (or to the definition an id
// names, in its repository) across repos, in one order that pages as a
// local answer does (query.Planner.References): every repository's
// resolved lines, then every repository's likely ones, then the lines
// that match the name only; within each, repository by repository (in
// the order of repos) in the repository's own order. req.Offset and
// req.Limit cut a page from that order; Truncated, NextOffset and
// Remaining say what follows it.
//
// Each repository judges all its lines (query.Planner.RankRefs, the work
// of one local page whatever the offset), and then makes snippets only
// for its part of the page, so a page costs every repository one
// judgement and limit snippets in all, however far into the order it
// starts. An answer over several repositories lists each one's counts
// (Repos) and the definitions of the name from all of them; one
// repository answers exactly as a local index of the same tree.
func (s *Searcher) References(ctx context.Context, repos []postgres.Repo, req query.RefsRequest) (*query.References, []Missing, error) {
	if req.ID != "" {
		local, name, ok := SplitID(req.ID)
		i := slices.IndexFunc(repos, func(r postgres.Repo) bool { return r.Name == name })
		if !ok || i < 0 {
			return nil, nil, fmt.Errorf("%s: %w", req.ID, query.ErrNoSymbol)
		}
		repos, req.ID = repos[i:i+1], local
	}
	if err := req.Check(); err != nil {
		return nil, nil, err
	}
	limit := cmp.Or(req.Limit, query.DefaultRefs)
	defer s.admit(ctx, len(repos))()
	drafts, missing, err := gather(ctx, s, repos, func(ctx context.Context, rp *repoPlanner) (*query.RefsDraft, error) {
		return rp.planner.RankRefs(ctx, req)
	})
	if err != nil {
		return nil, nil, err
	}
	var answered []postgres.Repo
	for _, r := range repos {
		if drafts[r.Name] != nil {
			answered = append(answered, r)
		}
	}
	var out *query.References
	if len(repos) == 1 && len(answered) == 1 {
		out = refsHeadOne(drafts[answered[0].Name].Refs, answered[0].Name)
	} else {
		out = refsHead(req, answered, drafts)
	}

	out.Offset = min(req.Offset, out.Total)
	end := min(out.Offset+limit, out.Total)
	if end < out.Total {
		out.Truncated = true
		out.NextOffset = end
		out.Remaining = out.Total - end
	}
	segs := refSegments(answered, drafts, out.Offset, end)
	spans := map[string][2]int{}
	var page []postgres.Repo
	for _, sg := range segs {
		sp, ok := spans[sg.repo.Name]
		if !ok {
			page = append(page, sg.repo)
			sp = [2]int{sg.from, sg.to}
		}
		sp[0], sp[1] = min(sp[0], sg.from), max(sp[1], sg.to)
		spans[sg.repo.Name] = sp
	}
	lines := map[string][]query.RefFile{}
	if len(page) > 0 {
		var more []Missing
		lines, more, err = gather(ctx, s, page, func(ctx context.Context, rp *repoPlanner) ([]query.RefFile, error) {
			sp := spans[rp.repo.Name]
			return drafts[rp.repo.Name].Lines(ctx, sp[0], sp[1]-sp[0])
		})
		if err != nil {
			return nil, nil, err
		}
		for _, m := range more {
			m.Reason = "lines of this page not read: " + m.Reason
			missing = append(missing, m)
		}
	}
	var flat []query.RefFile
	for _, sg := range segs {
		ls, ok := lines[sg.repo.Name]
		if !ok {
			continue // its shard stopped answering after judging: missing says so
		}
		from := spans[sg.repo.Name][0]
		for _, l := range ls[sg.from-from : sg.to-from] {
			l.Repo = sg.repo.Name
			flat = append(flat, l)
		}
	}
	out.Files = query.GroupRefFiles(flat)
	return out, missing, nil
}

// refSegment is lines [from, to) of one repository's order (RefsDraft)
// on a page.
type refSegment struct {
	repo     postgres.Repo
	from, to int
}

// refSegments cuts lines [offset, end) of the order across repositories
// (References) into the runs of each repository's own order they are,
// in the page's order. A repository's lines of one confidence are a run
// of its order (its resolved lines first, then likely, then name only),
// so its segments of one page are adjacent in its order: one span of it.
func refSegments(repos []postgres.Repo, drafts map[string]*query.RefsDraft, offset, end int) []refSegment {
	var segs []refSegment
	starts := make([]int, len(repos)) // where each repository's current confidence starts
	at := 0
	for _, conf := range query.RefConfidences() {
		for i, r := range repos {
			n := drafts[r.Name].Refs.Confidence[conf]
			if lo, hi := max(offset, at), min(end, at+n); lo < hi {
				segs = append(segs, refSegment{repo: r, from: starts[i] + lo - at, to: starts[i] + hi - at})
			}
			at += n
			starts[i] += n
		}
	}
	return segs
}

// refsHeadOne is the answer of one repository without its lines, its ids
// qualified.
func refsHeadOne(refs *query.References, repo string) *query.References {
	out := *refs
	if refs.Symbol != nil {
		sym := *refs.Symbol
		sym.ID = QualifyID(sym.ID, repo)
		out.Symbol = &sym
	}
	out.Definitions = nil
	for _, d := range refs.Definitions {
		d.ID = QualifyID(d.ID, repo)
		out.Definitions = append(out.Definitions, d)
	}
	return &out
}

// refsHead merges the answers of several repositories without their
// lines: counts added, the symbol the one with the most resolved and
// likely lines, and every other definition of the name, by references.
func refsHead(req query.RefsRequest, repos []postgres.Repo, drafts map[string]*query.RefsDraft) *query.References {
	out := &query.References{Name: req.Name, Files: []query.RefFile{}}
	var notes repoNotes
	seenFilter := map[string]bool{}
	var defs []query.RefDefinition
	best, bestUse, defining := "", -1, 0
	for _, r := range repos {
		refs := drafts[r.Name].Refs
		out.Name = refs.Name
		out.Total += refs.Total
		for c, n := range refs.Confidence {
			if out.Confidence == nil {
				out.Confidence = map[string]int{}
			}
			out.Confidence[c] += n
		}
		for _, l := range refs.LeftOut {
			i := slices.IndexFunc(out.LeftOut, func(o query.RefLeftOut) bool { return o.Reason == l.Reason })
			if i < 0 {
				out.LeftOut = append(out.LeftOut, l)
			} else {
				out.LeftOut[i].Lines += l.Lines
			}
		}
		for _, f := range refs.FiltersApplied {
			if !seenFilter[f] {
				seenFilter[f] = true
				out.FiltersApplied = append(out.FiltersApplied, f)
			}
		}
		notes.add(r.Name, refs.Notes)
		rr := query.RefRepo{Repo: r.Name, Total: refs.Total, Confidence: refs.Confidence}
		if refs.Symbol != nil {
			defining++
			rr.SymbolID = QualifyID(refs.Symbol.ID, r.Name)
			use := refs.Confidence[query.ConfResolved] + refs.Confidence[query.ConfLikely]
			defs = append(defs, query.RefDefinition{SymRef: *refs.Symbol, References: use})
			defs[len(defs)-1].ID = rr.SymbolID
			if use > bestUse {
				best, bestUse = rr.SymbolID, use
			}
			out.SharedBy += max(refs.SharedBy, 1)
		}
		for _, d := range refs.Definitions {
			d.ID = QualifyID(d.ID, r.Name)
			defs = append(defs, d)
		}
		if refs.Total > 0 {
			out.Repos = append(out.Repos, rr)
		}
	}
	out.Notes = notes.list(len(repos))
	if out.SharedBy < 2 {
		out.SharedBy = 0
	}
	slices.SortStableFunc(defs, func(a, b query.RefDefinition) int { return b.References - a.References })
	for _, d := range defs {
		switch {
		case d.ID == best:
			sym := d.SymRef
			out.Symbol = &sym
		case len(out.Definitions) < maxRefDefinitions:
			out.Definitions = append(out.Definitions, d)
		}
	}
	if n := out.SharedBy - 1 - len(out.Definitions); n > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d more definitions of %s, less referenced, are not listed: give scope.repo to list a repository's", n, out.Name))
	}
	if defining > 1 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d repositories define %s: each one's lines are the references of its own definition (named with its counts per repository)", defining, out.Name))
	}
	return out
}

// repoNotes gathers the notes of several repositories' answers: each
// once, in the order first given, named by the repositories that gave it
// unless every repository answering did.
type repoNotes struct {
	order []string
	repos map[string][]string
}

func (n *repoNotes) add(repo string, notes []string) {
	if n.repos == nil {
		n.repos = map[string][]string{}
	}
	for _, note := range notes {
		if _, ok := n.repos[note]; !ok {
			n.order = append(n.order, note)
		}
		n.repos[note] = append(n.repos[note], repo)
	}
}

// list returns the notes, of answered repositories in all.
func (n *repoNotes) list(answered int) []string {
	var out []string
	for _, note := range n.order {
		if rs := n.repos[note]; answered > 1 && len(rs) < answered {
			note = strings.Join(rs, ", ") + ": " + note
		}
		out = append(out, note)
	}
	return out
}
