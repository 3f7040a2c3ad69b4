package query

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// Vector channels. The index's vectors (tables/schema.sql: vectors) are
// loaded into memory once per surface and kept until the vectors table
// changes (meta vectors_version); a search embeds its query with the
// planner's Embedder, which must be the model the index was embedded
// with, and scans every in-scope vector exactly (VectorSet). The scope is
// applied before the scan: rows out of scope are never candidates, so a
// scoped search cannot lose an in-scope hit to out-of-scope ones.

// vecSurface is one surface's vectors in memory, row i describing units[i].
type vecSurface struct {
	set   *VectorSet
	units []unit
}

// vectorCache holds the loaded surfaces of one vectors_version.
type vectorCache struct {
	mu       sync.Mutex
	version  string
	surfaces map[string]*vecSurface
	stats    vecStats
}

// vecStats describes the loaded vectors: their dimension, and how many
// rows (chunks, symbols, files) there are and how many of them have no
// usable vector (not embedded yet, or of another size).
type vecStats struct {
	dim, rows, missing int
}

// note says how many rows lack a vector, "" when none does.
func (st vecStats) note() string {
	if st.missing == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d rows have no vector (ranked by text alone; `viberag index` embeds them, `viberag status` shows why)", st.missing, st.rows)
}

// vectorState says whether a search can use vectors, and why not.
type vectorState struct {
	on       bool
	status   string // for Response.Vectors
	model    string
	embedder embed.Provider
}

// vectors reports whether vector channels can run for this index.
func (p *Planner) vectors(ctx context.Context) (vectorState, error) {
	model, err := p.db.EmbeddingModel(ctx)
	if err != nil {
		return vectorState{}, err
	}
	emb, off := p.currentEmbedder()
	switch {
	case model == "" && emb == nil:
		if off == "" {
			off = "the index has no vectors"
		}
		return vectorState{status: "off: " + off}, nil
	case model == "":
		return vectorState{status: "off: the index has no vectors yet; run `viberag index` to embed it with " + emb.ID()}, nil
	case emb == nil:
		if off == "" {
			off = "no embedder to embed the query"
		}
		return vectorState{status: "off: " + off + " (the index's vectors are of " + model + ")"}, nil
	case emb.ID() != model:
		return vectorState{status: "off: the index's vectors are of " + model + " but queries would be embedded with " + emb.ID() + "; run `viberag index` to re-embed"}, nil
	}
	return vectorState{on: true, status: "on (" + model + ")", model: model, embedder: emb}, nil
}

// surface returns the loaded vectors of one surface ("code", "summary",
// "file"). All surfaces load together, in one pass over the vectors
// table, when the vectors table changed since the last load.
func (p *Planner) surface(ctx context.Context, name string) (*vecSurface, error) {
	version, err := p.db.VectorsVersion(ctx)
	if err != nil {
		return nil, err
	}
	c := &p.vecs
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version || c.surfaces == nil {
		model, err := p.db.EmbeddingModel(ctx)
		if err != nil {
			return nil, err
		}
		surfaces, stats, err := p.loadVectors(ctx, model)
		if err != nil {
			return nil, fmt.Errorf("load vectors: %w", err)
		}
		c.version, c.surfaces, c.stats = version, surfaces, stats
	}
	if s, ok := c.surfaces[name]; ok {
		return s, nil
	}
	set, _ := NewVectorSet(1, nil)
	return &vecSurface{set: set}, nil
}

// loadedStats returns the stats of the loaded vectors (call surface
// first).
func (p *Planner) loadedStats() vecStats {
	p.vecs.mu.Lock()
	defer p.vecs.mu.Unlock()
	return p.vecs.stats
}

// loadVectors reads every vector of model and the unit each describes.
// A vector whose row is gone (a run rewrote the file between the two
// reads) is left out; the next load, at the next version, has it. So is
// one of another size than the index's: it counts as missing.
func (p *Planner) loadVectors(ctx context.Context, model string) (_ map[string]*vecSurface, st vecStats, err error) {
	if st.dim, err = p.db.EmbeddingDim(ctx, model); err != nil {
		return nil, st, err
	}
	surfaces, err := p.readVectors(ctx, model, &st)
	return surfaces, st, err
}

func (p *Planner) readVectors(ctx context.Context, model string, st *vecStats) (map[string]*vecSurface, error) {
	units := map[string]map[string]unit{"code": {}, "summary": {}, "file": {}}
	err := p.db.ChunkRows(ctx, func(r tables.ChunkRow) {
		units["code"][r.CID] = *chunkUnit(r)
	})
	if err != nil {
		return nil, err
	}
	err = p.db.SymbolRows(ctx, func(r tables.SymbolRow) {
		units["summary"][r.SID] = *symbolUnit(r)
	})
	if err != nil {
		return nil, err
	}
	files, err := p.db.FileList(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		u := unit{kind: KindFile, rowid: f.ID, fileID: f.ID, path: f.Path, start: 1, end: max(f.Lines, 1), id: "f:" + f.Path, title: f.Path}
		units["file"]["f"+strconv.FormatInt(f.ID, 10)] = u
	}

	for _, us := range units {
		st.rows += len(us)
	}
	st.missing = st.rows

	type building struct {
		units []unit
		data  []float32
		dim   int
	}
	b := map[string]*building{"code": {}, "summary": {}, "file": {}}
	err = p.db.ScanVectors(ctx, model, st.dim, func(owner, surface string, blob []byte) {
		sb, ok := b[surface]
		if !ok {
			return
		}
		u, ok := units[surface][owner]
		if !ok {
			return
		}
		if len(blob) != 4*st.dim {
			return // its dim column lies: a damaged row, left out
		}
		if sb.dim == 0 {
			// The surface's rows bound its vectors: allocate once, since
			// growing a slice of 300 MB (the Go tree's) copies it again
			// and again.
			sb.dim = len(blob) / 4
			sb.data = make([]float32, 0, len(units[surface])*sb.dim)
		}
		if len(sb.data)+sb.dim > cap(sb.data) {
			return // a duplicate owner; cannot happen with UNIQUE(owner, surface)
		}
		row := sb.data[len(sb.data) : len(sb.data)+sb.dim]
		for k := range row {
			row[k] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*k:]))
		}
		sb.data = sb.data[:len(sb.data)+sb.dim]
		sb.units = append(sb.units, u)
		st.missing--
	})
	if err != nil {
		return nil, err
	}
	out := map[string]*vecSurface{}
	for name, sb := range b {
		set, err := NewVectorSet(max(sb.dim, 1), sb.data)
		if err != nil {
			return nil, err
		}
		out[name] = &vecSurface{set: set, units: sb.units}
	}
	return out, nil
}

// checkQueryDim loads the vectors and compares their dimension with the
// query vector's: it returns why vectors cannot serve this search, ""
// when they can.
func (p *Planner) checkQueryDim(ctx context.Context, q []float32) (string, error) {
	if _, err := p.surface(ctx, "code"); err != nil {
		return "", err
	}
	if d := p.loadedStats().dim; d != 0 && d != len(q) {
		return fmt.Sprintf("the query's vector has %d dimensions and the index's have %d (the provider's model changed size; `viberag index` re-embeds)", len(q), d), nil
	}
	return "", nil
}

// embedQuery embeds the search text.
func (p *Planner) embedQuery(ctx context.Context, text string) ([]float32, error) {
	emb, _ := p.currentEmbedder()
	if emb == nil {
		return nil, errors.New("embed the query: no embedder")
	}
	vs, err := emb.Embed(ctx, []string{text})
	if err != nil {
		return nil, fmt.Errorf("embed the query with %s: %w", emb.ID(), err)
	}
	if len(vs) != 1 {
		return nil, errors.New("embed the query: no vector")
	}
	return vs[0], nil
}

// vecTable is the scope table of each surface.
var vecTable = map[string]scope.Table{"code": scope.Chunks, "summary": scope.Symbols, "file": scope.Files}

// vecChannel ranks a surface's rows by cosine to q, among the rows in
// scope. Its units are fresh copies, not yet interned in a request's
// pool (see intern), so that it can run beside the text channels.
func (p *Planner) vecChannel(ctx context.Context, name, surface string, weight float64, q []float32, req Request, sc *scoped) (*channel, error) {
	ch := &channel{name: name, weight: weight, cosine: true}
	s, err := p.surface(ctx, surface)
	if err != nil {
		return nil, err
	}
	if s.set.Len() == 0 || len(q) != s.set.Dim() {
		return ch, nil
	}
	allow, err := p.vecScope(ctx, surface, s, req, sc)
	if err != nil {
		return nil, err
	}
	for _, h := range s.set.Search(q, p.tune.VecCands, allow) {
		if h.Score <= 0 {
			break // unrelated or opposite: never a reason to list a row
		}
		u := s.units[h.Row] // a copy: the cached unit stays untouched
		ch.add(&u, float64(h.Score))
	}
	return ch, nil
}

// intern makes ch's units the pool's.
func (ch *channel) intern(pool unitPool) *channel {
	for i, u := range ch.units {
		ch.units[i] = pool.intern(u)
	}
	return ch
}

// vecScope is the bitset of a surface's rows in scope, nil when the
// scope is empty. Filters on files alone (paths, extensions) are answered
// from the files table and mapped to rows by file; symbol filters go
// through the surface's own table, as the text channels do.
func (p *Planner) vecScope(ctx context.Context, surface string, s *vecSurface, req Request, sc *scoped) (Bitset, error) {
	if req.Scope.IsZero() {
		return nil, nil
	}
	byFile := surface == "file" || !req.Scope.HasSymbolFilters()
	t := vecTable[surface]
	if byFile {
		t = scope.Files
	}
	ids, err := p.db.InScope(ctx, t, sc.scope)
	if err != nil {
		return nil, err
	}
	allow := NewBitset(len(s.units))
	for i := range s.units {
		id := s.units[i].rowid
		if byFile {
			id = s.units[i].fileID
		}
		if ids[id] {
			allow.Set(i)
		}
	}
	return allow, nil
}

// startVectors starts the vector channels of an intent in a goroutine —
// for concept code, summary and file vectors; for definition the
// summaries — so that the scan runs while the text channels query SQLite.
// The function it returns waits for them, interns their units in pool,
// records the scope filters they applied and sets resp.Vectors. Only a
// failure to read the index fails the search: an embedder error (a remote
// provider down) leaves it lexical, and says so.
func (p *Planner) startVectors(ctx context.Context, text string, req Request, sc *scoped, defs, concept bool) func(unitPool, *Response) ([]*channel, error) {
	type spec struct {
		name, surface string
		weight        float64
	}
	var specs []spec
	if concept {
		specs = append(specs, spec{"vec_code", "code", p.tune.WVecCode}, spec{"vec_file", "file", p.tune.WVecFile})
	}
	if defs || concept {
		specs = append(specs, spec{"vec_summary", "summary", p.tune.WVecSummary})
	}
	type result struct {
		chans  []*channel
		tables []scope.Table
		status string
		note   string // when vectors were meant to run and could not
		err    error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() { done <- r }()
		st, err := p.vectors(ctx)
		if err != nil {
			r.err = err
			return
		}
		r.status = st.status
		if !st.on {
			return
		}
		q, err := p.embedQuery(ctx, text)
		if err != nil {
			r.status = "off for this search: " + err.Error()
			r.note = "vectors unavailable, so this search is lexical: " + err.Error()
			return
		}
		if off, err := p.checkQueryDim(ctx, q); err != nil || off != "" {
			r.err, r.status, r.note = err, "off for this search: "+off, "vectors unavailable, so this search is lexical: "+off
			return
		}
		if n := p.loadedStats().note(); n != "" {
			r.status += "; " + n
		}
		for _, s := range specs {
			if s.weight <= 0 {
				continue
			}
			ch, err := p.vecChannel(ctx, s.name, s.surface, s.weight, q, req, sc)
			if err != nil {
				r.err = err
				return
			}
			r.chans = append(r.chans, ch)
			r.tables = append(r.tables, vecTable[s.surface])
		}
	}()
	return func(pool unitPool, resp *Response) ([]*channel, error) {
		r := <-done
		if r.err != nil {
			return nil, r.err
		}
		resp.Vectors = r.status
		if r.note != "" {
			resp.Notes = append(resp.Notes, r.note)
		}
		for _, ch := range r.chans {
			ch.intern(pool)
		}
		for _, t := range r.tables {
			sc.note(req.Scope, t)
		}
		return r.chans, nil
	}
}
