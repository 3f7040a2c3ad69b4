package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/vectors"
)

// VectorResult is what a run's embedding stage did.
type VectorResult struct {
	// Model is the provider ID of the index's vectors, '' when off.
	Model string `json:"model,omitempty"`
	// Off says why vectors are off, and how to turn them on.
	Off string `json:"off,omitempty"`
	// Reset says the model changed and every vector was dropped to be
	// embedded again (the facts are kept).
	Reset string `json:"reset,omitempty"`
	// Written counts the vectors stored this run; Embedded of them were
	// computed by the provider, the rest came from the embedding cache.
	Written  int `json:"written"`
	Embedded int `json:"embedded"`
	// Missing counts, per surface, the rows still without a vector after
	// the run; the next run retries them.
	Missing map[string]int64 `json:"missing,omitempty"`
	// Error is the provider's failure that stopped the stage, if any. The
	// facts are written whatever happens here.
	Error     string `json:"error,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms"`
	// FileWritten says the run rewrote the vector file that searches
	// map (tables.VectorStore.SyncFile), which took FileMS (checking it too).
	FileWritten bool  `json:"file_written,omitempty"`
	FileMS      int64 `json:"file_ms"`
}

// embedPage is the rows embedded and written per step: big enough to keep
// a provider's batches full, small enough that an interrupted stage loses
// little.
const embedPage = 1024

// embedCacheFloor is the least number of replaced vectors the embedding
// cache keeps, whatever the index's size.
const embedCacheFloor = 20000

// DefaultEmbedBudget is Options.EmbedBudget when it is 0.
const DefaultEmbedBudget = 90 * time.Second

// errBudget ends an embedding stage whose provider made no progress for
// the budget.
type errBudget struct {
	budget time.Duration
	last   error // of the last failed attempt, if any
}

// Unwrap tells a guarded provider (embed.Guard) that the provider failed,
// and the next run how the last attempt failed (a refused connection).
func (e *errBudget) Unwrap() []error {
	if e.last == nil {
		return []error{embed.ErrStalled}
	}
	return []error{embed.ErrStalled, e.last}
}

func (e *errBudget) Error() string {
	msg := fmt.Sprintf("no embedding request succeeded for %v (the --embed-budget), so the stage stopped; the next run goes on", e.budget)
	if e.last != nil {
		msg += "; last error: " + e.last.Error()
	}
	return msg
}

// metaEmbeddingRefused records that the last embedding stage ended on a
// refused connection ("1"), so the next run does not spend its retries
// on a server that is not there (errRefused).
const metaEmbeddingRefused = "embedding_refused"

// errRefused ends an embedding stage whose provider refused the
// connection before any request of the run succeeded, as it did on the
// last run: a refusal is an answer (nothing listens there), not a stall,
// so the retries meant for a busy server would only spend time. The next
// run tries again.
type errRefused struct{ last error }

func (e *errRefused) Error() string {
	return fmt.Sprintf("the embedding server refused the connection, as on the last run, so it was not retried (%v)", e.last)
}

// Unwrap tells a guarded provider (embed.Guard) that the provider failed,
// and the next run that it was refused.
func (e *errRefused) Unwrap() []error { return []error{embed.ErrStalled, syscall.ECONNREFUSED} }

// watchdog ends ctx (cause *errBudget) when no request has succeeded for
// budget. Remote providers report each attempt through the trace in the
// context (and their retries go to notice); every embedded page counts as
// progress too, for providers that report nothing (model2vec).
type watchdog struct {
	budget time.Duration
	mu     sync.Mutex
	last   time.Time // of the last success, or the start
	err    error     // of the last failed attempt
	// succeeded: a request of this run has succeeded.
	succeeded bool
}

func (w *watchdog) progress() {
	w.mu.Lock()
	w.last, w.err = time.Now(), nil
	w.mu.Unlock()
}

// With refusedBefore (the last run ended on a refused connection), a
// refusal before any success ends ctx at once (cause *errRefused).
func startWatchdog(ctx context.Context, budget time.Duration, refusedBefore bool, notice func(string)) (context.Context, *watchdog, func()) {
	w := &watchdog{budget: budget, last: time.Now()}
	ctx, cancel := context.WithCancelCause(ctx)
	ctx = embed.WithTrace(ctx, &embed.Trace{
		Attempt: func(err error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			if err == nil {
				w.last, w.err, w.succeeded = time.Now(), nil, true
			} else {
				w.err = err
			}
		},
		Retry: func(n embed.RetryNotice) {
			w.mu.Lock()
			refused := refusedBefore && !w.succeeded && errors.Is(n.Err, syscall.ECONNREFUSED)
			w.mu.Unlock()
			if refused {
				cancel(&errRefused{last: n.Err})
				return
			}
			notice(n.String())
		},
	})
	tick := time.NewTicker(min(budget/10+time.Millisecond, time.Second))
	go func() {
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			w.mu.Lock()
			late := time.Since(w.last) > w.budget
			last := w.err
			w.mu.Unlock()
			if late {
				cancel(&errBudget{budget: w.budget, last: last})
				return
			}
		}
	}()
	return ctx, w, func() { cancel(nil) }
}

// embedStage embeds every row without a vector. A provider failure ends
// the stage but not the run: the rows embedded so far are stored, the
// error is reported and recorded in meta, and the next run goes on from
// there. Only a failure to read or write the index is returned as an
// error.
//
// The stage is bounded: each request by the provider's timeout, and the
// stage by Options.EmbedBudget of no progress. The index's vectors all
// have one dimension: a provider whose dimension differs from the stored
// vectors' (or an index that holds two) re-embeds everything.
func embedStage(ctx context.Context, db *tables.DB, opts Options) (*VectorResult, error) {
	start := time.Now()
	vr := &VectorResult{}
	defer func() { vr.ElapsedMS = time.Since(start).Milliseconds() }()
	if opts.LoadEmbedder != nil {
		// A run that changed nothing needs no model: when every row has a
		// vector made with the same settings, loading one (a quarter of a
		// second for the default model) is skipped.
		done, err := upToDate(ctx, db, opts.Embedding, vr)
		if err != nil || done {
			return vr, err
		}
		if opts.Embedder, opts.VectorsOff, err = opts.LoadEmbedder(); err != nil {
			return nil, err
		}
	}
	p := opts.Embedder
	if p == nil {
		vr.Off = opts.VectorsOff
		if vr.Off == "" {
			vr.Off = "no embedding provider configured"
		}
		m := map[string]string{tables.MetaEmbeddingError: vr.Off}
		if opts.Embedding.Provider == embed.ProviderOff {
			// Chosen, not failed: remembered like any provider, so the
			// next `viberag index` or `viberag mcp` keeps vectors off
			// instead of fetching the default model. (A model that could
			// not be loaded is not recorded: the next run tries again.)
			cfg, _ := json.Marshal(opts.Embedding.Redacted())
			m[tables.MetaEmbeddingConfig] = string(cfg)
		}
		return vr, db.Writer().SetMeta(ctx, m)
	}
	notice := func(msg string) {
		if opts.Notice != nil {
			opts.Notice(msg)
		}
	}
	vr.Model = p.ID()
	meta, err := db.Meta(ctx)
	if err != nil {
		return nil, err
	}
	if old := meta[tables.MetaEmbeddingModel]; old != "" && old != p.ID() {
		if err := db.Vectors().Drop(ctx, p.ID(), 0); err != nil {
			return nil, err
		}
		vr.Reset = fmt.Sprintf("embedding model changed from %s to %s: every vector is embedded again; facts are kept", embed.RedactID(old), p.ID())
		delete(meta, tables.MetaEmbeddingDim)
	}
	cfg, _ := json.Marshal(opts.Embedding.Redacted())
	if err := db.Writer().SetMeta(ctx, map[string]string{tables.MetaEmbeddingConfig: string(cfg)}); err != nil {
		return nil, err
	}

	budget := opts.EmbedBudget
	if budget <= 0 {
		budget = DefaultEmbedBudget
	}
	sctx, dog, stop := startWatchdog(ctx, budget, meta[metaEmbeddingRefused] != "", notice)
	defer stop()
	// failed turns a provider error into the stage's error, or returns the
	// caller's cancellation.
	failed := func(what string, err error) (error, error) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var b *errBudget
		if errors.As(context.Cause(sctx), &b) {
			return fmt.Errorf("%s with %s: %w", what, p.ID(), b), nil
		}
		var r *errRefused
		if errors.As(context.Cause(sctx), &r) {
			return fmt.Errorf("%s with %s: %w", what, p.ID(), r), nil
		}
		var de *embed.DimensionError
		if errors.As(err, &de) && opts.Embedding.Dimensions == 0 {
			embed.ForgetDimension(p)
			err = fmt.Errorf("%w: the server's model changed size mid-run; nothing of the new size is stored, and the next run re-embeds every vector at the new size", err)
		}
		return fmt.Errorf("%s with %s: %w", what, p.ID(), err), nil
	}

	counts, err := db.Vectors().Counts(ctx)
	if err != nil {
		return nil, err
	}
	total, stored := 0, int64(0)
	for _, c := range counts {
		total += int(c.Missing)
		stored += c.Present
	}
	var stageErr error
	if total > 0 || (stored > 0 && meta[tables.MetaEmbeddingDim] == "") {
		var reset string
		if reset, stageErr, err = checkDimension(sctx, db, p, meta, failed); err != nil {
			return nil, err
		}
		if reset != "" {
			vr.Reset = reset
			notice(reset)
		}
		// The check may have dropped vectors (all, or broken ones).
		if counts, err = db.Vectors().Counts(ctx); err != nil {
			return nil, err
		}
		total = 0
		for _, c := range counts {
			total += int(c.Missing)
		}
	}
	cp := embed.Cached(p, db.Vectors().Cache())
	// Pages are written by a goroutine while the next one is embedded:
	// SQLite's single writer and the provider then work at the same time.
	type page struct {
		vs []tables.Vector
		n  int
	}
	pages := make(chan page, 1)
	writeErr := make(chan error, 1)
	go func() {
		done := 0
		var err error
		for pg := range pages {
			if err != nil {
				continue // drain
			}
			var n int
			if n, err = db.Vectors().Write(ctx, p.ID(), pg.vs); err != nil {
				continue
			}
			vr.Written += n
			done += pg.n
			if opts.Progress != nil {
				opts.Progress(Progress{Stage: "vectors", Done: done, Total: total})
			}
		}
		writeErr <- err
	}()
	var readErr error
surfaces:
	for _, surface := range vectors.Surfaces() {
		if stageErr != nil || total == 0 {
			break
		}
		after := ""
		for {
			batch, err := db.Vectors().Pending(ctx, surface, after, embedPage)
			if err != nil {
				readErr = err
				break surfaces
			}
			if len(batch) == 0 {
				break
			}
			after = batch[len(batch)-1].Owner
			texts := make([]string, len(batch))
			for i, pv := range batch {
				texts[i] = VectorInput(surface, pv)
			}
			// The budget measures the provider's time, not the index's.
			dog.progress()
			vecs, err := cp.Embed(sctx, texts)
			if err != nil {
				stageErr, readErr = failed("embed "+surface+" vectors", err)
				break surfaces
			}
			vs := make([]tables.Vector, len(batch))
			for i, pv := range batch {
				vs[i] = tables.Vector{Owner: pv.Owner, Surface: surface, RowHash: pv.RowHash,
					InputHash: embed.TextKey(texts[i]), Vec: vecs[i]}
			}
			pages <- page{vs, len(batch)}
		}
	}
	close(pages)
	if err := <-writeErr; err != nil {
		return nil, err
	}
	if readErr != nil {
		return nil, readErr
	}
	vr.Embedded = int(cp.Stats().Misses)
	if stageErr != nil {
		vr.Error = stageErr.Error()
	}
	if counts, err = db.Vectors().Counts(ctx); err != nil {
		return nil, err
	}
	vr.Missing = map[string]int64{}
	present := int64(0)
	for s, c := range counts {
		present += c.Present
		if c.Missing > 0 {
			vr.Missing[s] = c.Missing
		}
	}
	if err := db.Vectors().PruneCache(ctx, max(embedCacheFloor, int(present))); err != nil {
		return nil, err
	}
	refused := ""
	if stageErr != nil && errors.Is(stageErr, syscall.ECONNREFUSED) {
		refused = "1"
	}
	err = db.Writer().SetMeta(ctx, map[string]string{tables.MetaEmbeddingError: vr.Error, metaEmbeddingRefused: refused})
	return vr, err
}

// checkDimension learns the provider's dimension (one request when it
// is not configured) and compares it with the index's: when they differ,
// or the index holds vectors of two sizes (possible only where the
// dimension is not recorded), every vector is dropped and reset says so.
// An index that does not record its dimension also loses the all-zero
// vectors a broken provider may have stored. A provider failure is returned as
// stageErr (through failed), an index failure as err.
func checkDimension(ctx context.Context, db *tables.DB, p embed.Provider, meta map[string]string,
	failed func(string, error) (error, error)) (reset string, stageErr, err error) {
	dim := p.Dim()
	if dim == 0 {
		if _, err := p.Embed(ctx, []string{"dimension"}); err != nil {
			stageErr, err = failed("learn the embedding dimension", err)
			return "", stageErr, err
		}
		if dim = p.Dim(); dim == 0 {
			return "", fmt.Errorf("learn the embedding dimension of %s: the provider did not say", p.ID()), nil
		}
	}
	var have []int
	recorded := meta[tables.MetaEmbeddingDim]
	if recorded != "" {
		d, err := strconv.Atoi(recorded)
		if err != nil || d <= 0 {
			return "", nil, fmt.Errorf("meta %s: %q: not a dimension", tables.MetaEmbeddingDim, recorded)
		}
		have = []int{d}
	} else if have, err = db.Vectors().Dims(ctx); err != nil {
		return "", nil, err
	}
	switch {
	case len(have) > 1:
		reset = fmt.Sprintf("the index held vectors of %d sizes %v, which cannot be compared: every vector is embedded again at %d with %s; facts are kept", len(have), have, dim, p.ID())
	case len(have) == 1 && have[0] != dim:
		reset = fmt.Sprintf("embedding dimension changed from %d to %d (%s): every vector is embedded again; facts are kept", have[0], dim, p.ID())
	}
	if reset != "" {
		return reset, nil, db.Vectors().Drop(ctx, p.ID(), dim)
	}
	if recorded == "" && len(have) == 1 {
		// Vectors whose dimension is not recorded: drop any a broken
		// provider made all zeros (providers refuse them), then record it.
		if _, err := db.Vectors().DropZero(ctx, dim, embed.TextKey("")); err != nil {
			return "", nil, err
		}
		return "", nil, db.Writer().SetMeta(ctx, map[string]string{tables.MetaEmbeddingDim: strconv.Itoa(dim)})
	}
	return "", nil, nil
}

// upToDate reports whether the index has every vector, made by a
// provider configured as cfg; it then fills vr from the index.
func upToDate(ctx context.Context, db *tables.DB, cfg embed.Config, vr *VectorResult) (bool, error) {
	meta, err := db.Meta(ctx)
	if err != nil {
		return false, err
	}
	want, _ := json.Marshal(cfg.Redacted())
	if meta[tables.MetaEmbeddingModel] == "" || meta[tables.MetaEmbeddingConfig] != string(want) ||
		meta[tables.MetaEmbeddingError] != "" || meta[tables.MetaEmbeddingDim] == "" {
		return false, nil
	}
	counts, err := db.Vectors().Counts(ctx)
	if err != nil {
		return false, err
	}
	for _, c := range counts {
		if c.Missing > 0 {
			return false, nil
		}
	}
	vr.Model = meta[tables.MetaEmbeddingModel]
	return true, nil
}

// maxInputIdents bounds the identifiers a summary input lists.
const maxInputIdents = 64

// VectorInput is the text embedded for a row of surface: for code the
// chunk's header ("path › Class › method") and source; for a symbol its
// kind and qualified name, signature, doc comment, path and the
// identifiers it uses; for a file its summary (path, doc, exports).
// Searches embed their query alone: the inputs are built so that a
// question about what the code does meets its names and its words.
func VectorInput(surface string, p tables.PendingVector) string {
	var sb strings.Builder
	line := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(s)
		}
	}
	switch surface {
	case vectors.SurfaceCode:
		line(p.Header)
		line(p.Content)
	case vectors.SurfaceSummary:
		line(p.Kind + " " + p.Qualname)
		line(p.Signature)
		line(p.Doc)
		line(p.Path)
		ids := strings.Fields(p.Identifiers)
		if len(ids) > maxInputIdents {
			ids = ids[:maxInputIdents]
		}
		line(strings.Join(ids, " "))
	default:
		if p.Summary != "" {
			line(p.Summary)
		} else {
			line(p.Path)
			line(p.Doc)
			line(strings.Join(strings.Fields(p.Identifiers), " "))
		}
	}
	return sb.String()
}
