package fanout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/query/resolve"
	"github.com/viberag/viberag/tables/postgres"
)

// Searcher runs searches over a store's repositories. It is safe for
// concurrent use; a server holds one.
type Searcher struct {
	store      *postgres.Store
	present    func(query.Action) query.Action
	timeout    time.Duration
	embedder   embed.Provider
	vectorsOff string
	unbatched  bool
	whole      bool

	// goChecks are the Go packages every repository's reference lookups
	// type-checked (nil: not kept).
	goChecks *resolve.GoChecks

	mu       sync.Mutex
	planners map[int64]*repoPlanner
	// wide holds a token for each call over many repositories running
	// (admit).
	wide     chan struct{}
	wideFrom int
	waits    atomic.Int64 // wide calls that waited for their turn
}

type repoPlanner struct {
	repo    postgres.Repo
	reader  *postgres.Reader
	planner *query.Planner
}

// Options configure a Searcher.
type Options struct {
	// Present names the planner's suggested steps as the caller's tools
	// (query.Options.Present); Searcher then qualifies their ids with the
	// repository.
	Present func(query.Action) query.Action
	// Timeout bounds each repository's part of a request (default 10s):
	// past it the repository is reported missing, not waited for.
	Timeout time.Duration
	// Embedder embeds queries for the vector channels of repositories
	// pushed with vectors of its model (query.Options.Embedder); without
	// one, VectorsOff says why vectors are off.
	Embedder   embed.Provider
	VectorsOff string
	// Unbatched sends each repository's statements on their own, as
	// before batches (one round trip per statement and repository); for
	// comparisons in tests.
	Unbatched bool
	// Whole has every repository of a search answer in full (snippets
	// made, exact text counted to the end) before the merge, as before
	// the rank and finish phases; for comparisons in tests.
	Whole bool
	// WideCalls is how many calls over WideFrom repositories or more run
	// at once (default GOMAXPROCS, at least 2); more wait their turn
	// (Searcher.admit). WideFrom defaults to DefaultWideFrom.
	WideCalls, WideFrom int
	// KeepGoChecks is for a server: the Go packages reference lookups
	// type-checked are kept for the later lookups of every repository,
	// under one bound for them all (query.Options.GoChecks; some 60 MB
	// at most). Without it each lookup checks afresh.
	KeepGoChecks bool
}

// DefaultWideFrom is the fewest repositories of a call that takes turns
// with the other wide calls (Options.WideFrom).
const DefaultWideFrom = 8

// New returns a Searcher over st.
func New(st *postgres.Store, opts Options) *Searcher {
	off := opts.VectorsOff
	if opts.Embedder == nil && off == "" {
		off = "the server has no embedding model (viberag serve --embed)"
	}
	s := &Searcher{store: st, present: opts.Present, timeout: cmp.Or(opts.Timeout, 10*time.Second),
		embedder: opts.Embedder, vectorsOff: off, unbatched: opts.Unbatched, whole: opts.Whole, planners: map[int64]*repoPlanner{},
		wide: make(chan struct{}, cmp.Or(opts.WideCalls, max(runtime.GOMAXPROCS(0), 2))), wideFrom: cmp.Or(opts.WideFrom, DefaultWideFrom)}
	if opts.KeepGoChecks {
		s.goChecks = &resolve.GoChecks{}
	}
	return s
}

// GoChecks returns the Go checks s keeps for every repository's lookups
// (Options.KeepGoChecks), nil when it keeps none.
func (s *Searcher) GoChecks() *resolve.GoChecks { return s.goChecks }

// QualifyID makes a repository's id unique across repositories.
func QualifyID(id, repo string) string { return id + "@" + repo }

// SplitID splits a qualified id into the repository's id and the
// repository; ok is false when id names no repository. Repository names
// never hold '@', paths may: the last '@' separates them.
func SplitID(id string) (local, repo string, ok bool) {
	i := strings.LastIndexByte(id, '@')
	if i <= 0 || i == len(id)-1 {
		return id, "", false
	}
	return id[:i], id[i+1:], true
}

// Repos returns the repositories access may read that match one of
// patterns (names or doublestar globs; none: all of them), by name.
func (s *Searcher) Repos(ctx context.Context, access postgres.Access, patterns []string) ([]postgres.Repo, error) {
	for _, p := range patterns {
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("scope.repo: %q is not a repository name or glob", p)
		}
	}
	all, err := s.store.Catalog.Repos(ctx, access)
	if err != nil {
		return nil, err
	}
	if len(patterns) == 0 {
		return all, nil
	}
	var out []postgres.Repo
	for _, r := range all {
		for _, p := range patterns {
			if ok, _ := doublestar.Match(p, r.Name); ok {
				out = append(out, r)
				break
			}
		}
	}
	return out, nil
}

// Repo returns the repository called name when access may read it, else
// postgres.ErrNotFound (the same answer for one that does not exist).
func (s *Searcher) Repo(ctx context.Context, access postgres.Access, name string) (postgres.Repo, error) {
	return s.store.Catalog.Repo(ctx, access, name)
}

// planner returns the planner of repository r, made when first needed
// and made again when r moved to another shard.
func (s *Searcher) planner(ctx context.Context, r postgres.Repo) (*repoPlanner, error) {
	s.mu.Lock()
	rp := s.planners[r.ID]
	s.mu.Unlock()
	if rp != nil && rp.repo.Shard == r.Shard && rp.repo.Name == r.Name {
		return rp, nil
	}
	rd, err := s.store.Reader(ctx, r)
	if err != nil {
		return nil, err
	}
	name := r.Name
	present := func(a query.Action) query.Action {
		if s.present != nil {
			a = s.present(a)
		}
		return qualifyAction(a, name)
	}
	p, err := query.New(ctx, rd, query.Options{Embedder: s.embedder, VectorsOff: s.vectorsOff, Present: present, GoChecks: s.goChecks,
		GoChecksScope: strconv.FormatInt(r.ID, 10)})
	if err != nil {
		return nil, err
	}
	rp = &repoPlanner{repo: r, reader: rd, planner: p}
	s.mu.Lock()
	s.planners[r.ID] = rp
	s.mu.Unlock()
	return rp, nil
}

// Reader returns the reader of repository r.
func (s *Searcher) Reader(ctx context.Context, r postgres.Repo) (*postgres.Reader, error) {
	rp, err := s.planner(ctx, r)
	if err != nil {
		return nil, err
	}
	return rp.reader, nil
}

// qualifyAction qualifies the ids in a suggested call with the repository
// and names the repository beside a path.
func qualifyAction(a query.Action, repo string) query.Action {
	args := make(map[string]any, len(a.Args)+1)
	for k, v := range a.Args {
		args[k] = v
	}
	for _, k := range []string{"symbol_id", "id", "cursor"} {
		if v, ok := args[k].(string); ok && v != "" {
			if _, _, done := SplitID(v); !done || k == "cursor" {
				args[k] = QualifyID(v, repo)
			}
		}
	}
	if _, ok := args["path"]; ok {
		args["repo"] = repo
	}
	if a.Tool == "codebase_search" || a.Tool == query.StepSearch {
		args["scope"] = map[string]any{"repo": []string{repo}}
	}
	a.Args = args
	return a
}

// Missing is a repository left out of an answer, and why.
type Missing struct {
	Repo    string `json:"repo"`
	Shard   string `json:"shard"`
	Address string `json:"address,omitempty"` // the shard's host:port/database
	Reason  string `json:"reason"`
}

// String names the repository and its shard, with the shard's address.
func (m Missing) String() string {
	s := m.Repo + " (shard " + m.Shard
	if m.Address != "" {
		s += " at " + m.Address
	}
	return s + ")"
}

// each runs fn for every repository in parallel, all bounded by the
// Searcher's timeout. The repositories of one shard read through one
// postgres.Batch: their statements travel together, a round trip for each
// step of their planners rather than one per step and repository, in one
// snapshot of the shard. A repository whose shard is unavailable is
// reported missing; any other error ends the call.
func (s *Searcher) each(ctx context.Context, repos []postgres.Repo, fn func(context.Context, *repoPlanner) error) ([]Missing, error) {
	outer := ctx
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var mu sync.Mutex
	var missing []Missing
	var firstErr error
	fail := func(r postgres.Repo, err error) {
		mu.Lock()
		defer mu.Unlock()
		if outer.Err() == nil && (postgres.IsUnavailable(err) || errors.Is(err, context.DeadlineExceeded)) {
			missing = append(missing, Missing{Repo: r.Name, Shard: r.Shard, Address: s.store.ShardAddress(r.Shard), Reason: unavailableReason(err)})
			return
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	byShard := map[string][]postgres.Repo{}
	for _, r := range repos {
		byShard[r.Shard] = append(byShard[r.Shard], r)
	}
	var wg sync.WaitGroup
	for _, rs := range byShard {
		for _, part := range batchParts(rs, runtime.GOMAXPROCS(0)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.eachOnShard(ctx, part, fn, fail)
			}()
		}
	}
	wg.Wait()
	sort.Slice(missing, func(i, j int) bool { return missing[i].Repo < missing[j].Repo })
	return missing, firstErr
}

// gather runs fn for every repository as each does and collects the
// answers of those that answered by repository name.
func gather[T any](ctx context.Context, s *Searcher, repos []postgres.Repo, fn func(context.Context, *repoPlanner) (T, error)) (map[string]T, []Missing, error) {
	got := make(map[string]T, len(repos))
	var mu sync.Mutex
	missing, err := s.each(ctx, repos, func(ctx context.Context, rp *repoPlanner) error {
		v, err := fn(ctx, rp)
		if err != nil {
			return err
		}
		mu.Lock()
		got[rp.repo.Name] = v
		mu.Unlock()
		return nil
	})
	return got, missing, err
}

// minPerBatch is the fewest repositories a part of a shard's batch holds.
const minPerBatch = 4

// batchParts splits the repositories of one shard into the parts that
// read through a batch each: one, or as many as there are CPUs (cpus)
// with minPerBatch repositories at least in each. A batch reads its rows,
// and runs its readers' scans of them, in one goroutine, on one server
// backend: one batch for forty repositories would leave the other CPUs
// idle when the server is not busy. The round trips stay bounded by the
// CPUs, not the repositories.
//
// The parts are balanced by the repositories' bytes, largest first, each
// to the part holding the fewest bytes (then the fewest repositories): a
// search's work in a repository grows with its size, and a part's rounds
// wait for all of its repositories, so a 118 MB repository placed with
// four others by turn made their statements part of its own critical
// path (the slowest searches across 50 repositories were the common
// words of the largest). Each part keeps the repositories' order.
func batchParts(rs []postgres.Repo, cpus int) [][]postgres.Repo {
	n := min(max(cpus, 1), len(rs)/minPerBatch)
	if n <= 1 {
		return [][]postgres.Repo{rs}
	}
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rs[order[a]].Bytes > rs[order[b]].Bytes })
	part := make([]int, len(rs))
	bytes := make([]int64, n)
	count := make([]int, n)
	for _, i := range order {
		p := 0
		for q := 1; q < n; q++ {
			if bytes[q] < bytes[p] || bytes[q] == bytes[p] && count[q] < count[p] {
				p = q
			}
		}
		part[i] = p
		bytes[p] += rs[i].Bytes
		count[p]++
	}
	parts := make([][]postgres.Repo, n)
	for i, r := range rs {
		parts[part[i]] = append(parts[part[i]], r)
	}
	return parts
}

// eachOnShard runs fn for the repositories rs of one shard, in parallel,
// through one batch. The planners come first (made once per repository,
// on the pool), so that no participant of the batch needs a connection of
// its own; the batch's connection is taken before any participant runs,
// so none waits for one while holding a planner's cache. Shards go on
// independently: a shard that does not answer delays only its own.
func (s *Searcher) eachOnShard(ctx context.Context, rs []postgres.Repo, fn func(context.Context, *repoPlanner) error, fail func(postgres.Repo, error)) {
	rps := make([]*repoPlanner, len(rs))
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rp, err := s.planner(ctx, r)
			if err != nil {
				fail(r, err)
				return
			}
			rps[i] = rp
		}()
	}
	wg.Wait()
	n := 0
	for _, rp := range rps {
		if rp != nil {
			n++
		}
	}
	if n == 0 {
		return
	}
	var b *postgres.Batch
	if !s.unbatched {
		var err error
		if b, err = s.store.Batch(ctx, rs[0].Shard, n); err != nil {
			for i, r := range rs {
				if rps[i] != nil {
					fail(r, err)
				}
			}
			return
		}
		defer b.Close()
	}
	for i, r := range rs {
		if rps[i] == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx := ctx
			if b != nil {
				defer b.Done()
				rctx = postgres.WithBatch(ctx, b)
			}
			if err := fn(rctx, rps[i]); err != nil {
				fail(r, err)
			}
		}()
	}
	wg.Wait()
}

func unavailableReason(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "shard did not answer in time"
	}
	msg := err.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	return "shard unavailable: " + msg
}

// admit waits for a wide call's turn: a call over wideFrom repositories or
// more runs when fewer than cap(wide) others do. A search across 50
// repositories costs tens of milliseconds of CPU on every core, so a
// burst of them shared the CPU with the calls that name one repository,
// and those waited for all of them: 16 agents starting at once (8 of their
// first calls across 50 repositories) had their one-repository calls
// answered in 15–211 ms; taking turns, 12–88 ms, and the wide calls
// finish about when they did. A call over
// fewer repositories never waits. The wait is bounded by ctx and by half
// the Searcher's timeout, after which the call runs anyway: taking turns
// orders calls, it never fails one. Call release when the call is done.
func (s *Searcher) admit(ctx context.Context, n int) (release func()) {
	if n < s.wideFrom {
		return func() {}
	}
	select {
	case s.wide <- struct{}{}:
		return func() { <-s.wide }
	default:
	}
	s.waits.Add(1)
	t := time.NewTimer(s.timeout / 2)
	defer t.Stop()
	select {
	case s.wide <- struct{}{}:
		return func() { <-s.wide }
	case <-ctx.Done():
	case <-t.C:
	}
	return func() {}
}
