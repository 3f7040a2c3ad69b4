package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/query/resolve"
	"github.com/viberag/viberag/tables"
)

// Planner answers searches over one index. It routes a request to an
// intent, runs the intent's channels, fuses them and finishes the page;
// the channels that keep state of their own (vectors, term counts, names)
// are the parts it holds. It is safe for concurrent use: its statements
// are prepared once and shared, and its caches are guarded.
type Planner struct {
	db   tables.Reader
	tune Tuning

	vec     *vectorChannels // the vector channels and the index's vectors
	text    *textChannels   // the bm25 channels and their term counts
	symbols *symbolFinder   // definitions and references by name
	page    *pageFinisher   // snippets, groups, suggestions and the budget
	files   fileCache       // paths and their words, for the path prior

	traceFn func(FusionTrace) // Options.Trace
}

// Options configure a Planner. The zero value gives the defaults.
type Options struct {
	// Tuning overrides the ranking constants (nil: DefaultTuning). It is
	// exposed for the benchmark command's ablations; agents have no reason
	// to change it.
	Tuning *Tuning

	// Embedder embeds queries for the vector channels. It must be the
	// provider (same ID) that embedded the index; otherwise, or when nil,
	// searches are lexical and say why in Response.Vectors (VectorsOff
	// when set).
	Embedder   embed.Provider
	VectorsOff string

	// QueryEmbed bounds the embedding of a query: a deadline per search
	// (default 2s) and a circuit breaker, so that a provider that stopped
	// answering costs one deadline, not one per search, and is tried
	// again after a cooldown (default 30s, doubling while it fails).
	// Searches it cuts short are lexical and say why.
	QueryEmbed embed.GuardOptions

	// Present, when set, rewrites every suggested action as the planner
	// makes it (see Action): the caller's names for the steps and their
	// arguments.
	Present func(Action) Action

	// ResidentVectors is for planners that answer many searches (a
	// server): once a search has mapped the index's vector file, the
	// vectors are loaded into memory in the background, and later
	// searches scan memory instead of reading back the rows they rescore
	// and list from the index. Without it (a one-shot search) the mapped
	// file serves every search: no load at all.
	ResidentVectors bool

	// KeepGoChecks is for planners that answer many lookups of one index
	// (a server of it): the Go packages a reference lookup type-checked
	// are kept for later lookups, bounded (some 60 MB at most). Without
	// it, or GoChecks, each lookup checks afresh.
	KeepGoChecks bool

	// GoChecks, when set, keeps the Go packages reference lookups
	// type-checked, for the later lookups of every planner given the
	// same one, within its one bound (resolve.GoChecks): a caller keeping
	// a planner per repository of a store gives them all one, not
	// KeepGoChecks (a bound per planner). It takes KeepGoChecks' place.
	GoChecks *resolve.GoChecks
	// GoChecksScope names whose lookups these are when GoChecks is
	// shared (a store's repository): a kept package serves only lookups
	// of the same scope. Keys hash sources with a fast hash that is not
	// collision-resistant, so without scopes one repository's pushed
	// sources could be made to stand in for another's check.
	GoChecksScope string

	// FixedWeights searches with Tuning's vector weights, not those the
	// index's calibration chose (Calibration): for measurements.
	FixedWeights bool

	// Trace, when set, is called with the fusion of every definition and
	// concept search, on the search's goroutine, before the search
	// returns (FusionTrace): for measurements of channel weights.
	Trace func(FusionTrace)
}

// New returns a Planner over db, an open index (an SQLite file, or one
// repository of a shared store: any tables.Reader); the Planner only reads
// it, through db's read methods, and db stays the caller's to close. It
// prepares the statements every search uses (tables.Reader.PrepareReads), so
// a missing table or an index of another schema fails here rather than
// on the first search.
func New(ctx context.Context, db tables.Reader, opts Options) (*Planner, error) {
	p := &Planner{db: db, tune: DefaultTuning(), traceFn: opts.Trace}
	if opts.Tuning != nil {
		p.tune = *opts.Tuning
	}
	p.vec = newVectorChannels(db, &p.tune, opts)
	p.text = &textChannels{db: db, tune: &p.tune}
	p.symbols = &symbolFinder{db: db, files: &p.files}
	switch {
	case opts.GoChecks != nil:
		p.symbols.goChecks, p.symbols.goScope = opts.GoChecks, opts.GoChecksScope
	case opts.KeepGoChecks:
		p.symbols.goChecks = &resolve.GoChecks{}
	}
	p.page = &pageFinisher{db: db, present: opts.Present}
	if err := db.PrepareReads(ctx); err != nil {
		return nil, fmt.Errorf("query: %w", err)
	}
	return p, nil
}

// SetEmbedder replaces the embedder of queries (and the reason vectors
// are off when it is nil): a server that fetched its model after it
// started turns vectors on without a restart.
func (p *Planner) SetEmbedder(e embed.Provider, off string) { p.vec.setEmbedder(e, off) }

// Close releases what the Planner holds, after stopping a background load
// of vectors. The index stays open: it belongs to the caller.
func (p *Planner) Close() error {
	p.vec.close()
	return nil
}

// Search runs one search.
func (p *Planner) Search(ctx context.Context, req Request) (*Response, error) {
	start := time.Now()
	if err := req.validate(); err != nil {
		return nil, err
	}
	resp, err := p.search(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", req.Query, err)
	}
	resp.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, nil
}

// RankOptions configure Planner.Rank.
type RankOptions struct {
	// ExactChunks bounds the blocks an exact_text search reads, when the
	// index can stop early (a shared store's repository) and the search
	// is not exhaustive: past it the occurrences are those of the blocks
	// read, Total is a lower bound (Response.TotalAtLeast) and a note
	// says how to count them all. 0: every block, as Search does.
	ExactChunks int
}

// Draft is a search ranked but not finished: Response holds the hits in
// their order, with their groups and suggested next actions, but no
// snippets, and the size budget is not applied. It is for a caller that
// merges the drafts of many indexes (a shared store's repositories):
// the rows and text that snippets are made of are then read for the hits
// that survive the merge (Finish), not for a page of hits per index.
type Draft struct {
	Response *Response
	fill     func(ctx context.Context, hits []Hit) error
}

// Rank runs a search up to its ranking (see Draft). Without
// opts.ExactChunks, a Draft finished for every one of its hits holds the
// hits Search would have answered, in the same order.
func (p *Planner) Rank(ctx context.Context, req Request, opts RankOptions) (*Draft, error) {
	start := time.Now()
	if err := req.validate(); err != nil {
		return nil, err
	}
	req.draft, req.exactChunks = true, opts.ExactChunks
	resp, err := p.search(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", req.Query, err)
	}
	d := &Draft{Response: resp, fill: resp.fill}
	resp.fill = nil
	resp.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return d, nil
}

// Finish makes the snippets of hits, which are hits of d.Response (by
// kind and id; the other fields are left as they are), reading only
// their rows. A hit whose row was rewritten since the draft read it keeps
// no snippet.
func (d *Draft) Finish(ctx context.Context, hits []Hit) error {
	if d.fill == nil || len(hits) == 0 {
		return nil
	}
	if err := d.fill(ctx, hits); err != nil {
		return fmt.Errorf("search %q: snippets: %w", d.Response.Query, err)
	}
	return nil
}

// validate checks and completes a request.
func (r *Request) validate() error {
	if strings.TrimSpace(r.Query) == "" {
		return errors.New("search: empty query")
	}
	if len(r.Query) > MaxQueryBytes {
		return fmt.Errorf("search: query is %d bytes, at most %d allowed", len(r.Query), MaxQueryBytes)
	}
	if len(r.Query) > MaxLiteralBytes && r.Intent != "" && r.Intent != Auto && r.Intent != Concept {
		return fmt.Errorf("search: query is %d bytes; intent %s searches it as it stands, at most %d bytes (auto and concept take up to %d bytes of task text and reduce it)", len(r.Query), r.Intent, MaxLiteralBytes, MaxQueryBytes)
	}
	if !utf8.ValidString(r.Query) {
		return errors.New("search: query is not valid UTF-8")
	}
	if r.Intent == "" {
		r.Intent = Auto
	}
	known := false
	for _, i := range Intents() {
		known = known || r.Intent == i
	}
	if !known {
		return fmt.Errorf("search: intent %q: unknown; known intents: auto, definition, usage, concept, exact_text, similar_code", r.Intent)
	}
	switch {
	case r.Limit < 0:
		return fmt.Errorf("search: limit %d: must be positive", r.Limit)
	case r.Limit == 0:
		r.Limit = DefaultLimit
	case r.Limit > MaxLimit:
		return fmt.Errorf("search: limit %d: at most %d allowed", r.Limit, MaxLimit)
	}
	if r.MaxTokens < 0 || r.MaxBytes < 0 {
		return fmt.Errorf("search: max_tokens %d, max_bytes %d: must not be negative", r.MaxTokens, r.MaxBytes)
	}
	if (r.Exhaustive || r.Cursor != "" || r.IgnoreCase) && r.Intent != ExactText && r.Intent != Auto {
		return fmt.Errorf("search: exhaustive, cursor and ignore_case apply to exact_text, not %s", r.Intent)
	}
	return r.Scope.Validate()
}

// maxEchoBytes bounds the echo of task text in Response.Query: the
// caller has the text; sending kilobytes back would spend its budget.
const maxEchoBytes = 200

// echoTaskText cuts task text for Response.Query at a rune boundary,
// saying how long it was.
func echoTaskText(q string) string {
	if len(q) <= maxEchoBytes {
		return q
	}
	cut := maxEchoBytes
	for cut > 0 && !utf8.RuneStart(q[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", q[:cut], len(q))
}

func (p *Planner) search(ctx context.Context, req Request) (*Response, error) {
	resp := &Response{Query: req.Query, Intent: req.Intent, Total: -1}
	text := strings.TrimSpace(req.Query)
	intent := req.Intent
	fuseConcept := false
	if (intent == Auto || intent == Concept) && IsTaskText(text) {
		reduced := ReduceTaskText(text)
		if reduced == "" {
			return nil, fmt.Errorf("the query's %d bytes hold no identifier, path, error message or content word to search for", len(text))
		}
		text, resp.QueryUsed = reduced, reduced
		resp.Query = echoTaskText(req.Query)
		if intent == Auto {
			intent, resp.Routing = Concept, RuleTaskText+": reduced to query_used, searched as concept"
			if r := Decide(reduced); r.Intent == Definition {
				intent, fuseConcept = Definition, true
				resp.Routing = RuleTaskText + ": reduced to one identifier, definitions first, fused with concept results"
			}
		}
	}
	if intent == Auto {
		r := Decide(text)
		intent, text = r.Intent, r.Text
		resp.Routing = r.Rule
		if r.Intent == Definition {
			// The benchmark's lesson, and an agent's too: a bare name is
			// usually a definition lookup, but the files about it matter
			// next, so the definitions lead and concept results follow.
			fuseConcept = true
			resp.Routing += ": definitions first, fused with concept results"
		}
	}
	if (req.Exhaustive || req.Cursor != "" || req.IgnoreCase) && intent != ExactText {
		return nil, fmt.Errorf("exhaustive, cursor and ignore_case apply to exact_text; the query routed to %s (quote it to search the text)", intent)
	}
	resp.Intent, resp.text = intent, text

	var err error
	switch intent {
	case ExactText:
		err = p.exactText(ctx, req, text, resp)
	case Usage:
		err = p.usage(ctx, req, text, resp)
	case SimilarCode:
		err = p.similar(ctx, req, text, resp)
	case Definition:
		err = p.ranked(ctx, req, text, resp, true, fuseConcept)
	default:
		err = p.ranked(ctx, req, text, resp, false, true)
	}
	if err != nil {
		return nil, err
	}
	p.page.finish(req, resp)
	return resp, nil
}
