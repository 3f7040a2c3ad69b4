package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/tables"
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
}

// embedPage is the rows embedded and written per step: big enough to keep
// a provider's batches full, small enough that an interrupted stage loses
// little.
const embedPage = 1024

// embedCacheFloor is the least number of replaced vectors the embedding
// cache keeps, whatever the index's size.
const embedCacheFloor = 20000

// embedStage embeds every row without a vector. A provider failure ends
// the stage but not the run: the rows embedded so far are stored, the
// error is reported and recorded in meta, and the next run goes on from
// there. Only a failure to read or write the index is returned as an
// error.
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
		err := db.SetMeta(ctx, map[string]string{tables.MetaEmbeddingError: vr.Off})
		return vr, err
	}
	vr.Model = p.ID()
	meta, err := db.Meta(ctx)
	if err != nil {
		return nil, err
	}
	if old := meta[tables.MetaEmbeddingModel]; old != "" && old != p.ID() {
		if err := db.DropVectors(ctx, p.ID()); err != nil {
			return nil, err
		}
		vr.Reset = fmt.Sprintf("embedding model changed from %s to %s: every vector is embedded again; facts are kept", old, p.ID())
	}
	cfg, _ := json.Marshal(opts.Embedding)
	if err := db.SetMeta(ctx, map[string]string{tables.MetaEmbeddingConfig: string(cfg)}); err != nil {
		return nil, err
	}

	counts, err := db.VectorCounts(ctx)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, c := range counts {
		total += int(c.Missing)
	}
	cp := embed.Cached(p, db.EmbedCache())
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
			if n, err = db.WriteVectors(ctx, p.ID(), pg.vs); err != nil {
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
	var stageErr, readErr error
surfaces:
	for _, surface := range tables.Surfaces() {
		after := ""
		for {
			batch, err := db.PendingVectors(ctx, surface, after, embedPage)
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
			vecs, err := cp.Embed(ctx, texts)
			if err != nil {
				if ctx.Err() != nil {
					readErr = ctx.Err()
				} else {
					stageErr = fmt.Errorf("embed %s vectors with %s: %w", surface, p.ID(), err)
				}
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
	if counts, err = db.VectorCounts(ctx); err != nil {
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
	if err := db.PruneEmbedCache(ctx, max(embedCacheFloor, int(present))); err != nil {
		return nil, err
	}
	err = db.SetMeta(ctx, map[string]string{tables.MetaEmbeddingError: vr.Error})
	return vr, err
}

// upToDate reports whether the index has every vector, made by a
// provider configured as cfg; it then fills vr from the index.
func upToDate(ctx context.Context, db *tables.DB, cfg embed.Config, vr *VectorResult) (bool, error) {
	meta, err := db.Meta(ctx)
	if err != nil {
		return false, err
	}
	want, _ := json.Marshal(cfg)
	if meta[tables.MetaEmbeddingModel] == "" || meta[tables.MetaEmbeddingConfig] != string(want) || meta[tables.MetaEmbeddingError] != "" {
		return false, nil
	}
	counts, err := db.VectorCounts(ctx)
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
	case tables.SurfaceCode:
		line(p.Header)
		line(p.Content)
	case tables.SurfaceSummary:
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
