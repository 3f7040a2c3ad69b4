package fanout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables/postgres"
)

// ErrNotFound is returned, wrapped, for an id, cursor or repository that
// names nothing the caller may read.
var ErrNotFound = errors.New("not found")

// ErrUnavailable is returned, wrapped, when nothing could be answered
// because the shards holding the repositories asked about do not answer.
var ErrUnavailable = errors.New("shard unavailable")

func unavailable(missing []Missing) error {
	var parts []string
	for _, m := range missing {
		parts = append(parts, m.String())
	}
	return fmt.Errorf("%w: no answer from %s; retry later", ErrUnavailable, strings.Join(parts, ", "))
}

// Search runs req in every repository of repos and merges the answers:
// hits by score (ties by repository, then each repository's own order),
// at most req.Limit, each with its repository and a qualified id. An
// exhaustive exact_text search pages through one repository (its cursor
// names it).
func (s *Searcher) Search(ctx context.Context, repos []postgres.Repo, req query.Request) (*query.Response, []Missing, error) {
	if req.Cursor != "" {
		inner, name, ok := SplitID(req.Cursor)
		i := slices.IndexFunc(repos, func(r postgres.Repo) bool { return r.Name == name })
		if !ok || i < 0 {
			return nil, nil, fmt.Errorf("cursor %q: %w: not a cursor of this search's repositories", req.Cursor, ErrNotFound)
		}
		repos, req.Cursor = repos[i:i+1], inner
	}
	if req.Exhaustive && len(repos) > 1 {
		return nil, nil, fmt.Errorf("exhaustive pages through one repository at a time: name one in scope.repo (%d match: %s)", len(repos), repoNames(repos, 5))
	}
	limit := req.Limit
	if limit == 0 {
		limit = query.DefaultLimit
	}
	defer s.admit(ctx, len(repos))()
	if len(repos) > 1 && !s.whole {
		return s.searchMany(ctx, repos, req, limit)
	}
	resps, missing, err := gather(ctx, s, repos, func(ctx context.Context, rp *repoPlanner) (*query.Response, error) {
		return rp.planner.Search(ctx, req)
	})
	if err != nil {
		return nil, nil, err
	}
	return merge(req, limit, repos, resps), missing, nil
}

// ExactChunksPerLimit bounds each repository's part of an exact_text
// search over many repositories: it reads the first limit ×
// ExactChunksPerLimit blocks that may hold the text, enough for its share
// of the merged page (at most limit occurrences), and its total is a
// lower bound past them (query.RankOptions.ExactChunks). One repository
// named in scope.repo, or an exhaustive search, counts every one.
const ExactChunksPerLimit = 2

// searchMany answers a search over several repositories in two phases.
// Each repository ranks (query.Planner.Rank: its hits in order, without
// snippets, its exact text read only as far as its share of a page
// needs); the drafts merge; and only the hits that survive the merge are
// finished, by their repositories, so a search over 50 repositories reads
// the rows and text of one page of snippets, not of 50. Without a budget
// or a bound reached, the answer is the one each repository answering in
// full and merging would give.
func (s *Searcher) searchMany(ctx context.Context, repos []postgres.Repo, req query.Request, limit int) (*query.Response, []Missing, error) {
	opts := query.RankOptions{ExactChunks: limit * ExactChunksPerLimit}
	drafts, missing, err := gather(ctx, s, repos, func(ctx context.Context, rp *repoPlanner) (*query.Draft, error) {
		return rp.planner.Rank(ctx, req, opts)
	})
	if err != nil {
		return nil, nil, err
	}
	resps := make(map[string]*query.Response, len(drafts))
	for name, d := range drafts {
		resps[name] = d.Response
	}
	unbounded := req
	unbounded.MaxBytes, unbounded.MaxTokens = 0, 0
	out := merge(unbounded, limit, repos, resps)

	// The finish phase: each repository makes the snippets of its hits
	// that made the page, by their own ids.
	type slot struct {
		hits []query.Hit
		at   []int
	}
	byRepo := map[string]*slot{}
	var finish []postgres.Repo
	for i, h := range out.Hits {
		if h.Snippet != "" {
			continue // made while ranking (exact text)
		}
		sl := byRepo[h.Repo]
		if sl == nil {
			sl = &slot{}
			byRepo[h.Repo] = sl
		}
		local, _, _ := SplitID(h.ID)
		h.ID = local
		sl.hits, sl.at = append(sl.hits, h), append(sl.at, i)
	}
	for _, r := range repos {
		if byRepo[r.Name] != nil {
			finish = append(finish, r)
		}
	}
	if len(finish) > 0 {
		more, err := s.each(ctx, finish, func(ctx context.Context, rp *repoPlanner) error {
			sl := byRepo[rp.repo.Name]
			return drafts[rp.repo.Name].Finish(ctx, sl.hits)
		})
		if err != nil {
			return nil, nil, err
		}
		for _, m := range more {
			m.Reason = "snippets not made: " + m.Reason
			missing = append(missing, m)
		}
		for _, sl := range byRepo {
			for k, i := range sl.at {
				out.Hits[i].Snippet = sl.hits[k].Snippet
			}
		}
	}
	if out.TotalAtLeast = anyAtLeast(resps); out.TotalAtLeast {
		out.Truncated = true
	}
	fitBudget(req, out)
	return out, missing, nil
}

func anyAtLeast(resps map[string]*query.Response) bool {
	for _, r := range resps {
		if r.TotalAtLeast {
			return true
		}
	}
	return false
}

func repoNames(repos []postgres.Repo, n int) string {
	var names []string
	for i, r := range repos {
		if i == n {
			names = append(names, "…")
			break
		}
		names = append(names, r.Name)
	}
	return strings.Join(names, ", ")
}

type mergedHit struct {
	h    query.Hit
	repo string
	pos  int
}

// merge combines the repositories' answers to req.
func merge(req query.Request, limit int, repos []postgres.Repo, resps map[string]*query.Response) *query.Response {
	out := &query.Response{Query: req.Query, Intent: req.Intent, Total: 0, Hits: []query.Hit{}}
	var all []mergedHit
	var notes repoNotes
	seenFilter := map[string]bool{}
	var best *query.Response
	bestScore := -1.0
	answered := 0
	for _, r := range repos {
		resp := resps[r.Name]
		if resp == nil {
			continue
		}
		answered++
		if answered == 1 {
			out.Query, out.QueryUsed, out.Intent, out.Routing, out.Vectors = resp.Query, resp.QueryUsed, resp.Intent, resp.Routing, resp.Vectors
		}
		if resp.Total < 0 || out.Total < 0 {
			out.Total = -1
		} else {
			out.Total += resp.Total
		}
		out.Truncated = out.Truncated || resp.Truncated
		out.Dropped += resp.Dropped
		if resp.NextCursor != "" {
			out.NextCursor = QualifyID(resp.NextCursor, r.Name)
		}
		for _, f := range resp.FiltersApplied {
			if !seenFilter[f] {
				seenFilter[f] = true
				out.FiltersApplied = append(out.FiltersApplied, f)
			}
		}
		notes.add(r.Name, resp.Notes)
		for i, h := range resp.Hits {
			h.Repo = r.Name
			h.ID = QualifyID(h.ID, r.Name)
			all = append(all, mergedHit{h: h, repo: r.Name, pos: i})
			if h.Score > bestScore {
				best, bestScore = resp, h.Score
			}
		}
	}
	out.Notes = append(out.Notes, notes.list(answered)...)
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.h.Score != b.h.Score {
			return a.h.Score > b.h.Score
		}
		if a.repo != b.repo {
			return a.repo < b.repo
		}
		return a.pos < b.pos
	})
	if len(all) > limit {
		if out.Intent == query.ExactText || out.Intent == query.Usage {
			out.Truncated = true
		}
		all = all[:limit]
	}
	for _, m := range all {
		out.Hits = append(out.Hits, m.h)
	}
	regroup(out)
	if best != nil {
		out.SuggestedNextActions = best.SuggestedNextActions
	}
	applyBudget(req, out)
	return out
}

// regroup indexes the hits by kind.
func regroup(resp *query.Response) {
	resp.Groups = query.Groups{Definitions: []int{}, Usages: []int{}, Files: []int{}, Blocks: []int{}}
	for i, h := range resp.Hits {
		switch h.Kind {
		case query.KindDefinition:
			resp.Groups.Definitions = append(resp.Groups.Definitions, i)
		case query.KindUsage:
			resp.Groups.Usages = append(resp.Groups.Usages, i)
		case query.KindFile:
			resp.Groups.Files = append(resp.Groups.Files, i)
		default:
			resp.Groups.Blocks = append(resp.Groups.Blocks, i)
		}
	}
}

// applyBudget keeps the merged answer within the request's bound: each
// repository's answer was bounded alone, so hits are dropped from the
// end until the whole fits (one is always kept).
func applyBudget(req query.Request, resp *query.Response) {
	b := budget(req)
	if b <= 0 {
		return
	}
	dropHits(resp, b)
}

// budget is the request's bound on the answer's size in bytes, less what
// the caller reserves; 0 for none.
func budget(req query.Request) int {
	b := req.MaxBytes
	if t := req.MaxTokens * 4; t > 0 && (b == 0 || t < b) {
		b = t
	}
	if b <= 0 {
		return 0
	}
	return max(b-req.ReserveBytes, 1)
}

func dropHits(resp *query.Response, b int) {
	for len(resp.Hits) > 1 {
		data, _ := json.Marshal(resp)
		if len(data) <= b {
			return
		}
		resp.Hits = resp.Hits[:len(resp.Hits)-1]
		resp.Dropped++
		resp.Truncated = true
		regroup(resp)
	}
}

// fitBudget bounds a merged answer whose repositories left the budget to
// it (searchMany) as a planner bounds its own (query's budget): the why
// of each hit goes first, then snippets (cut to their first line, then
// removed, from the last hit up), and only then hits from the end.
func fitBudget(req query.Request, resp *query.Response) {
	b := budget(req)
	if b <= 0 {
		return
	}
	over := func() bool {
		data, _ := json.Marshal(resp)
		return len(data) > b
	}
	if !over() {
		return
	}
	resp.Truncated = true
	resp.Notes = append(resp.Notes, fmt.Sprintf("trimmed to the size budget of %d bytes: explanations, then snippets cut, then hits dropped from the end", b))
	if query.TrimExtras(resp, b) {
		dropHits(resp, b)
	}
}

// Symbol answers a symbol's details: an id names its repository; a name
// is looked up in every repository, and the first (by name) that defines
// it answers, with a note naming the others.
func (s *Searcher) Symbol(ctx context.Context, repos []postgres.Repo, idOrName string, opts query.SymbolOptions) (*query.SymbolDetails, string, []Missing, error) {
	if local, name, ok := SplitID(idOrName); ok {
		i := slices.IndexFunc(repos, func(r postgres.Repo) bool { return r.Name == name })
		if i < 0 {
			return nil, "", nil, fmt.Errorf("%s: %w", idOrName, query.ErrNoSymbol)
		}
		repos, idOrName = repos[i:i+1], local
	}
	defer s.admit(ctx, len(repos))()
	found, missing, err := gather(ctx, s, repos, func(ctx context.Context, rp *repoPlanner) (*query.SymbolDetails, error) {
		d, err := rp.planner.SymbolWith(ctx, idOrName, opts)
		if errors.Is(err, query.ErrNoSymbol) {
			return nil, nil
		}
		return d, err
	})
	if err != nil {
		return nil, "", nil, err
	}
	var names []string
	for _, r := range repos {
		if found[r.Name] != nil {
			names = append(names, r.Name)
		}
	}
	if len(names) == 0 {
		if len(missing) > 0 {
			return nil, "", missing, unavailable(missing)
		}
		return nil, "", missing, fmt.Errorf("%s: %w", idOrName, query.ErrNoSymbol)
	}
	repo := names[0]
	d := found[repo]
	qualifySymbol(d, repo)
	if len(names) > 1 {
		note := fmt.Sprintf("also defined in %d other repositories: %s (give symbol_id or scope a repository)", len(names)-1, strings.Join(names[1:min(len(names), 6)], ", "))
		if d.Note != "" {
			note = d.Note + "; " + note
		}
		d.Note = note
	}
	return d, repo, missing, nil
}

func qualifySymbol(d *query.SymbolDetails, repo string) {
	d.ID = QualifyID(d.ID, repo)
	if d.Parent != nil {
		d.Parent.ID = QualifyID(d.Parent.ID, repo)
	}
	for i := range d.Children {
		d.Children[i].ID = QualifyID(d.Children[i].ID, repo)
	}
	for i := range d.Others {
		d.Others[i].ID = QualifyID(d.Others[i].ID, repo)
	}
}

// Neighbourhood reads the code around an anchor in one repository, with
// the ids qualified.
func (s *Searcher) Neighbourhood(ctx context.Context, r postgres.Repo, id, path string, line, before, after int) (*query.Neighbourhood, error) {
	rp, err := s.planner(ctx, r)
	if err != nil {
		return nil, err
	}
	n, err := rp.planner.Neighbourhood(ctx, id, path, line, before, after)
	if err != nil {
		return nil, err
	}
	n.Anchor.ID = QualifyID(n.Anchor.ID, r.Name)
	if n.Parent != nil {
		n.Parent.ID = QualifyID(n.Parent.ID, r.Name)
	}
	for i := range n.Before {
		n.Before[i].ID = QualifyID(n.Before[i].ID, r.Name)
	}
	for i := range n.After {
		n.After[i].ID = QualifyID(n.After[i].ID, r.Name)
	}
	return n, nil
}
