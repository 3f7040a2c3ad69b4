package query

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
	"github.com/viberag/viberag/tables/vectors"
)

// Vector channels. A search embeds its query with the planner's
// Embedder, which must be the model the index was embedded with, and
// scans every in-scope vector of a surface exactly (vectors.Set). The
// scope is applied before the scan: rows out of scope are never
// candidates, so a scoped search cannot lose an in-scope hit to
// out-of-scope ones. What a search reads of the vectors it reads through
// the Reader's tables.VectorReader.
//
// A reader that finds the nearest vectors itself (tables.VectorRanker: a
// shared store with pgvector) is asked, per channel, for the rows that may
// rank with their vectors, the scope applied by the reader; they are
// scored here as the scan scores them, so the answer is the scan's, and
// nothing is loaded (rankVectors).
//
// The vectors are read from the index's vector file (vectors.File),
// mapped in place: the scan reads its int8 rows, and only the rows that
// may rank (a few per hit) are read back from the vectors table and
// scored in float32, so the result is the float32 scan's. When the file
// is missing, stale or damaged the vectors are loaded from the vectors
// table into memory instead (seconds for 300,000 vectors), and the
// response says so. Either is kept until the vectors change
// (VectorReader.Version), and shared by the searches of a process: each
// holds it (acquireVectors) while it scans, and a replaced file is
// unmapped when its last search is done.

// vectorChannels runs the vector channels of a planner: it embeds the
// query and holds the index's vectors (see above).
type vectorChannels struct {
	db   tables.Reader
	tune *Tuning

	embMu      sync.RWMutex
	embedder   embed.Provider // embeds queries (guarded); nil: vectors off
	guard      embed.GuardOptions
	vectorsOff string      // why embedder is nil, for responses
	vecs       vectorCache // the index's vectors, per surface
	resident   bool        // Options.ResidentVectors
	// uncalibrated searches with Tuning's weights, not the index's
	// calibrated ones (Options.FixedWeights).
	uncalibrated bool
}

func newVectorChannels(db tables.Reader, tune *Tuning, opts Options) *vectorChannels {
	v := &vectorChannels{db: db, tune: tune, guard: opts.QueryEmbed, vectorsOff: opts.VectorsOff, resident: opts.ResidentVectors,
		uncalibrated: opts.FixedWeights}
	v.embedder = v.guarded(opts.Embedder)
	return v
}

// setEmbedder is Planner.SetEmbedder.
func (v *vectorChannels) setEmbedder(e embed.Provider, off string) {
	g := v.guarded(e)
	v.embMu.Lock()
	defer v.embMu.Unlock()
	v.embedder, v.vectorsOff = g, off
}

// guarded puts e under the query deadline and breaker (nil stays nil),
// even when e has a breaker of its own: that one may have no deadline.
func (v *vectorChannels) guarded(e embed.Provider) embed.Provider {
	if e == nil {
		return nil
	}
	return embed.Guard(e, v.guard)
}

// currentEmbedder returns the embedder and why it is nil.
func (v *vectorChannels) currentEmbedder() (embed.Provider, string) {
	v.embMu.RLock()
	defer v.embMu.RUnlock()
	return v.embedder, v.vectorsOff
}

// close stops a background load and releases the vectors.
func (v *vectorChannels) close() { v.vecs.close() }

// vecSurface is one surface's vectors: loaded (units[i] describes row i)
// or mapped (rows holds each row's ids).
type vecSurface struct {
	set   *vectors.Set
	units []unit
	rows  *vectors.Rows
}

// vecIndex is the vectors of one VectorReader.Version.
type vecIndex struct {
	version  string
	file     *vectors.File // nil when loaded from the vectors table
	reader   tables.VectorFileReader
	fallback string // why the file was not used; "" when it was
	surfaces map[string]*vecSurface
	stats    vecStats

	refs     int  // searches holding it (guarded by vectorCache.mu)
	retired  bool // replaced: closed when refs drops to 0
	residing bool // a resident load of its version was started
}

// surface returns a surface's vectors, empty when it has none.
func (vi *vecIndex) surface(name string) *vecSurface {
	if s, ok := vi.surfaces[name]; ok {
		return s
	}
	set, _ := vectors.NewSet(1, nil)
	return &vecSurface{set: set}
}

// vectorCache holds the vectors of the current VectorReader.Version.
type vectorCache struct {
	mu     sync.Mutex
	cur    *vecIndex
	closed bool

	// ranked: the counts of a tables.VectorRanker's vectors, for the
	// version read with them.
	ranked struct {
		version string
		stats   vecStats
	}

	// Background loads (Options.ResidentVectors), stopped by close.
	bg   sync.WaitGroup
	stop context.CancelFunc
	ctx  context.Context
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

// fallbackNote is the note of a search whose vectors were loaded from the
// vectors table, "" when they came from the vector file.
func (vi *vecIndex) fallbackNote() string {
	if vi.file != nil || vi.fallback == "" {
		return ""
	}
	return "vectors loaded from the index's vectors table, not its vector file (" + vi.fallback + "); the next `viberag index` rewrites the file"
}

// vectorState says whether a search can use vectors, and why not.
type vectorState struct {
	on       bool
	status   string // for Response.Vectors
	model    string
	embedder embed.Provider
}

// state reports whether vector channels can run for this index.
func (v *vectorChannels) state(ctx context.Context) (vectorState, error) {
	model, err := v.db.VectorReader().Model(ctx)
	if err != nil {
		return vectorState{}, err
	}
	emb, off := v.currentEmbedder()
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

// acquireVectors returns the vectors of the index's current version,
// mapping the vector file or loading the vectors table when they changed
// since the last search (noFile: load the table even when the file
// opens). The caller must call release when its scans are done.
func (v *vectorChannels) acquireVectors(ctx context.Context, noFile bool) (vi *vecIndex, release func(), err error) {
	version, err := v.db.VectorReader().Version(ctx)
	if err != nil {
		return nil, nil, err
	}
	c := &v.vecs
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur := c.cur; cur == nil || cur.version != version || (noFile && cur.file != nil) {
		// Loads are serialised: concurrent searches wait for one load
		// rather than each making its own.
		next, err := v.openVectors(ctx, version, noFile)
		if err != nil {
			return nil, nil, fmt.Errorf("load vectors: %w", err)
		}
		if cur != nil {
			cur.retired = true
			c.closeIfDone(cur)
		}
		c.cur = next
	}
	vi = c.cur
	vi.refs++
	if v.resident && vi.file != nil && !vi.residing && !c.closed {
		vi.residing = true
		v.loadResident(vi)
	}
	return vi, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		vi.refs--
		c.closeIfDone(vi)
	}, nil
}

// closeIfDone unmaps a replaced file once no search holds it (c.mu held).
func (c *vectorCache) closeIfDone(vi *vecIndex) {
	if vi.retired && vi.refs == 0 && vi.file != nil {
		vi.file.Close()
		vi.file = nil
		vi.surfaces = nil
	}
}

// loadResident loads the vectors table in the background and, when vi is
// still the current vectors then, puts the loaded vectors in its place
// (c.mu held). Searches meanwhile read the file; a load that fails leaves
// them on it.
func (v *vectorChannels) loadResident(vi *vecIndex) {
	c := &v.vecs
	if c.ctx == nil {
		c.ctx, c.stop = context.WithCancel(context.Background())
	}
	model := vi.file.State().Model
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		surfaces, stats, err := v.loadVectors(c.ctx, model)
		c.mu.Lock()
		defer c.mu.Unlock()
		if err != nil || c.cur != vi || c.closed {
			return
		}
		vi.retired = true
		c.closeIfDone(vi)
		c.cur = &vecIndex{version: vi.version, surfaces: surfaces, stats: stats, residing: true}
	}()
}

// close stops background loads and releases the current vectors
// (Planner.Close).
func (c *vectorCache) close() {
	c.mu.Lock()
	c.closed = true
	if c.stop != nil {
		c.stop()
	}
	c.mu.Unlock()
	c.bg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil {
		c.cur.retired = true
		c.closeIfDone(c.cur)
		c.cur = nil
	}
}

// openVectors maps the vector file of version, or loads the vectors table
// when the file cannot serve (or noFile), saying why in fallback.
func (v *vectorChannels) openVectors(ctx context.Context, version string, noFile bool) (*vecIndex, error) {
	vi := &vecIndex{version: version}
	vr := v.db.VectorReader()
	vfr, hasFiles := vr.(tables.VectorFileReader) // a shared store has none
	if noFile {
		vi.fallback = "the vector file no longer matched the index during this search"
	} else if hasFiles {
		f, err := vfr.OpenFile(ctx)
		switch {
		case err == nil:
			if err := v.mapVectors(ctx, vfr, vi, f); err != nil {
				f.Close()
				return nil, err
			}
			return vi, nil
		case vectors.IsFileProblem(err):
			vi.fallback = err.Error()
		default:
			return nil, err
		}
	}
	model, err := vr.Model(ctx)
	if err != nil {
		return nil, err
	}
	if vi.surfaces, vi.stats, err = v.loadVectors(ctx, model); err != nil {
		return nil, err
	}
	return vi, nil
}

// mapVectors makes vi the vectors of the mapped file f.
func (v *vectorChannels) mapVectors(ctx context.Context, vfr tables.VectorFileReader, vi *vecIndex, f *vectors.File) error {
	units, err := vfr.UnitCounts(ctx)
	if err != nil {
		return err
	}
	st := f.State()
	vi.version, vi.file, vi.reader = st.Key(), f, vfr
	vi.surfaces = map[string]*vecSurface{}
	vi.stats.dim = st.Dim
	for _, name := range []string{vectors.SurfaceCode, vectors.SurfaceSummary, vectors.SurfaceFile} {
		r := f.Rows(name)
		set, err := r.Set(st.Dim)
		if err != nil {
			return fmt.Errorf("vector file: %s: %w", name, err)
		}
		vi.surfaces[name] = &vecSurface{set: set, rows: r}
		vi.stats.rows += units[name]
		vi.stats.missing += max(0, units[name]-r.Len)
	}
	return nil
}

// loadVectors reads every vector of model and the unit each describes.
// A vector whose row is gone (a run rewrote the file between the two
// reads) is left out; the next load, at the next version, has it. So is
// one of another size than the index's: it counts as missing.
func (v *vectorChannels) loadVectors(ctx context.Context, model string) (_ map[string]*vecSurface, st vecStats, err error) {
	vr := v.db.VectorReader()
	if st.dim, err = vr.Dim(ctx, model); err != nil {
		return nil, st, err
	}
	surfaces, err := v.readVectors(ctx, vr, model, &st)
	return surfaces, st, err
}

func (v *vectorChannels) readVectors(ctx context.Context, vr tables.VectorReader, model string, st *vecStats) (map[string]*vecSurface, error) {
	units := map[string]map[string]unit{"code": {}, "summary": {}, "file": {}}
	err := vr.ChunkRows(ctx, func(r tables.ChunkRow) {
		units["code"][r.CID] = *chunkUnit(r)
	})
	if err != nil {
		return nil, err
	}
	err = vr.SymbolRows(ctx, func(r tables.SymbolRow) {
		units["summary"][r.SID] = *symbolUnit(r)
	})
	if err != nil {
		return nil, err
	}
	files, err := v.db.FileList(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		units["file"]["f"+strconv.FormatInt(f.ID, 10)] = *fileRowUnit(f)
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
	err = vr.Scan(ctx, model, st.dim, func(owner, surface string, blob []byte) {
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
		vectors.DecodeInto(sb.data[len(sb.data):len(sb.data)+sb.dim], blob)
		sb.data = sb.data[:len(sb.data)+sb.dim]
		sb.units = append(sb.units, u)
		st.missing--
	})
	if err != nil {
		return nil, err
	}
	out := map[string]*vecSurface{}
	for name, sb := range b {
		set, err := vectors.NewSet(max(sb.dim, 1), sb.data)
		if err != nil {
			return nil, err
		}
		out[name] = &vecSurface{set: set, units: sb.units}
	}
	return out, nil
}

// checkQueryDim compares the dimension of vi's vectors with the query
// vector's: it returns why vectors cannot serve this search, "" when they
// can.
func checkQueryDim(vi *vecIndex, q []float32) string {
	if d := vi.stats.dim; d != 0 && d != len(q) {
		return fmt.Sprintf("the query's vector has %d dimensions and the index's have %d (the provider's model changed size; `viberag index` re-embeds)", len(q), d)
	}
	return ""
}

// embedQuery embeds the search text.
func (v *vectorChannels) embedQuery(ctx context.Context, text string) ([]float32, error) {
	emb, _ := v.currentEmbedder()
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

// vecChannel ranks a surface's rows of vi by cosine to q, among the rows
// in scope. Its units are fresh copies, not yet interned in a request's
// pool (see intern), so that it can run beside the text channels. With a
// mapped file it fails with a vectors.IsFileProblem error when the
// index's vectors changed under it.
func (v *vectorChannels) vecChannel(ctx context.Context, vi *vecIndex, name, surface string, weight float64, q []float32, req Request, sc *scoped) (*channel, error) {
	ch := &channel{name: name, weight: weight, cosine: true}
	s := vi.surface(surface)
	if s.set.Len() == 0 || len(q) != s.set.Dim() {
		return ch, nil
	}
	allow, err := v.vecScope(ctx, surface, s, req, sc)
	if err != nil {
		return nil, err
	}
	if vi.file == nil {
		for _, h := range s.set.Search(q, v.tune.VecCands, allow) {
			if h.Score <= 0 {
				break // unrelated or opposite: never a reason to list a row
			}
			u := s.units[h.Row] // a copy: the cached unit stays untouched
			ch.add(&u, float64(h.Score))
		}
		return ch, nil
	}
	hits, err := s.set.SearchWith(q, v.tune.VecCands, allow, func(rows []int) ([]float32, error) {
		scores := make([]float32, len(rows))
		err := vi.reader.FileVectors(ctx, vi.file, surface, rows, func(i int, vec []float32) {
			scores[i] = vectors.Dot(vec, q)
		})
		return scores, err
	})
	if err != nil {
		return nil, err
	}
	var rows []int
	for _, h := range hits {
		if h.Score <= 0 {
			break // unrelated or opposite: never a reason to list a row
		}
		rows = append(rows, h.Row)
	}
	units, err := vi.reader.FileUnits(ctx, vi.file, surface, rows)
	if err != nil {
		return nil, err
	}
	for i, r := range units {
		ch.add(vectorUnit(surface, r), float64(hits[i].Score))
	}
	return ch, nil
}

// fileRowUnit is the file-level unit of a file row.
func fileRowUnit(f tables.FileRow) *unit {
	return &unit{kind: KindFile, rowid: f.ID, fileID: f.ID, path: f.Path, start: 1, end: max(f.Lines, 1), id: "f:" + f.Path, title: f.Path}
}

// intern makes ch's units the pool's.
func (ch *channel) intern(pool unitPool) *channel {
	for i, u := range ch.units {
		ch.units[i] = pool.intern(u)
	}
	return ch
}

// vecScopeTable is the table whose rows a scoped search of surface's
// vectors admits: the surface's own, or its files' (byFile) when the
// scope has no symbol filters or the surface is files.
func vecScopeTable(surface string, req Request) (t scope.Table, byFile bool) {
	if surface == vectors.SurfaceFile || !req.Scope.HasSymbolFilters() {
		return scope.Files, true
	}
	return vecTable[surface], false
}

// vecScope is the bitset of a surface's rows in scope, nil when the
// scope is empty. Filters on files alone (paths, extensions) are answered
// from the files table and mapped to rows by file; symbol filters go
// through the surface's own table, as the text channels do.
func (v *vectorChannels) vecScope(ctx context.Context, surface string, s *vecSurface, req Request, sc *scoped) (vectors.Bitset, error) {
	if req.Scope.IsZero() {
		return nil, nil
	}
	t, byFile := vecScopeTable(surface, req)
	ids, err := v.db.InScope(ctx, t, sc.scope)
	if err != nil {
		return nil, err
	}
	allow := vectors.NewBitset(s.set.Len())
	if s.rows != nil {
		rowIDs := s.rows.UnitIDs
		if byFile {
			rowIDs = s.rows.FileIDs
		}
		for i, id := range rowIDs {
			if ids[id] {
				allow.Set(i)
			}
		}
		return allow, nil
	}
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

// calibrated returns specs with the weights the index's calibration
// chose for its model (Calibration), and, when explain, adds them and
// their evidence to st's status. An index without one, or calibrated for
// another model, keeps Tuning's.
//
// A question about how something works (question) takes the weights
// measured on the module pseudo-queries (Calibration.QuestionWeight).
func (v *vectorChannels) calibrated(ctx context.Context, st *vectorState, specs []vecSpec, explain, question bool) ([]vecSpec, error) {
	if v.uncalibrated {
		return specs, nil
	}
	var c *Calibration
	if cr, ok := v.db.VectorReader().(interface {
		FusionCalibration(ctx context.Context) (string, error)
	}); ok {
		s, err := cr.FusionCalibration(ctx)
		if err != nil {
			return nil, err
		}
		c, _ = ParseCalibration(s) // unreadable: the defaults
	}
	if c == nil || c.Model != st.model {
		return specs, nil // none, or another model's: the defaults
	}
	out := make([]vecSpec, len(specs))
	for i, sp := range specs {
		out[i] = sp
		weight := c.Weight
		if question {
			weight = c.QuestionWeight
		}
		if w, ok := weight(sp.name); ok {
			out[i].weight = w
		}
	}
	switch {
	case explain:
		st.status += "; " + c.Summary()
	case !anyWeight(out):
		st.status += "; calibrated weights 0, so this search is lexical (--explain says why)"
	}
	return out, nil
}

// anyWeight reports whether a spec has a positive weight.
func anyWeight(specs []vecSpec) bool {
	for _, s := range specs {
		if s.weight > 0 {
			return true
		}
	}
	return false
}

// vecSpec is a vector channel to run: its name, surface and weight.
type vecSpec struct {
	name, surface string
	weight        float64
}

// vecRun is what runVectors did.
type vecRun struct {
	chans  []*channel
	tables []scope.Table // the scope table of each channel
	status string        // for Response.Vectors
	notes  []string      // for Response.Notes
}

// runVectors embeds text and runs the vector channels of specs (those of
// positive weight). Only a failure to read the index is an error: when
// vectors are off, or the embedder fails, it returns no channels and a
// status (and a note) saying why.
func (v *vectorChannels) runVectors(ctx context.Context, text string, specs []vecSpec, req Request, sc *scoped, question bool) (vecRun, error) {
	st, err := v.state(ctx)
	if err != nil {
		return vecRun{}, err
	}
	if !st.on {
		return vecRun{status: st.status}, nil
	}
	if specs, err = v.calibrated(ctx, &st, specs, req.Explain, question); err != nil {
		return vecRun{}, err
	}
	if !anyWeight(specs) {
		return vecRun{status: st.status}, nil
	}
	q, err := v.embedQuery(ctx, text)
	if err != nil {
		return vecRun{status: "off for this search: " + err.Error(),
			notes: []string{"vectors unavailable, so this search is lexical: " + err.Error()}}, nil
	}
	if vr, ok := v.db.VectorReader().(tables.VectorRanker); ok && finite(q) {
		on, err := vr.Ranks(ctx, st.model)
		if err != nil {
			return vecRun{}, err
		}
		if on {
			return v.rankVectors(ctx, vr, st, q, specs, req, sc)
		}
	}
	// A vector file that stops matching the index mid-search (a run
	// changed the vectors) is dropped and the search runs again on what
	// the index holds now; a file that still does not match, on the
	// vectors table.
	for attempt := 0; ; attempt++ {
		r := vecRun{status: st.status}
		vi, err := v.scanVectors(ctx, &r, attempt == 2, q, specs, req, sc)
		if err == nil || attempt == 2 || !vectors.IsFileProblem(err) {
			return r, err
		}
		v.vecs.drop(vi)
	}
}

// scanVectors runs the channels of specs over the current vectors into r
// and returns the vectors it used.
func (v *vectorChannels) scanVectors(ctx context.Context, r *vecRun, noFile bool, q []float32, specs []vecSpec, req Request, sc *scoped) (*vecIndex, error) {
	vi, release, err := v.acquireVectors(ctx, noFile)
	if err != nil {
		return nil, err
	}
	defer release()
	if off := checkQueryDim(vi, q); off != "" {
		r.status = "off for this search: " + off
		r.notes = append(r.notes, "vectors unavailable, so this search is lexical: "+off)
		return vi, nil
	}
	if n := vi.stats.note(); n != "" {
		r.status += "; " + n
	}
	if n := vi.fallbackNote(); n != "" {
		r.notes = append(r.notes, n)
	}
	for _, s := range specs {
		if s.weight <= 0 {
			continue
		}
		ch, err := v.vecChannel(ctx, vi, s.name, s.surface, s.weight, q, req, sc)
		if err != nil {
			return vi, err
		}
		r.chans = append(r.chans, ch)
		r.tables = append(r.tables, vecTable[s.surface])
	}
	return vi, nil
}

// drop retires vi if it is still the current vectors, so that the next
// search opens them again.
func (c *vectorCache) drop(vi *vecIndex) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if vi != nil && c.cur == vi {
		vi.retired = true
		c.closeIfDone(vi)
		c.cur = nil
	}
}

// startVectors starts the vector channels of an intent in a goroutine —
// for concept code, summary and file vectors; for definition the
// summaries — so that the scan runs while the text channels query SQLite.
// The function it returns waits for them, interns their units in pool,
// records the scope filters they applied and sets resp.Vectors. Only a
// failure to read the index fails the search: an embedder error (a remote
// provider down) leaves it lexical, and says so. A question about how
// something works (question) fuses by its own calibrated weights.
func (v *vectorChannels) startVectors(ctx context.Context, text string, req Request, sc *scoped, defs, concept, question bool) func(unitPool, *Response) ([]*channel, error) {
	var specs []vecSpec
	if concept {
		specs = append(specs, vecSpec{"vec_code", vectors.SurfaceCode, v.tune.WVecCode}, vecSpec{"vec_file", vectors.SurfaceFile, v.tune.WVecFile})
	}
	if defs || concept {
		specs = append(specs, vecSpec{"vec_summary", vectors.SurfaceSummary, v.tune.WVecSummary})
	}
	type result struct {
		run vecRun
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := v.runVectors(ctx, text, specs, req, sc, question)
		done <- result{r, err}
	}()
	return func(pool unitPool, resp *Response) ([]*channel, error) {
		r := <-done
		if r.err != nil {
			return nil, r.err
		}
		resp.Vectors = r.run.status
		resp.Notes = append(resp.Notes, r.run.notes...)
		for _, ch := range r.run.chans {
			ch.intern(pool)
		}
		for _, t := range r.run.tables {
			sc.note(req.Scope, t)
		}
		return r.run.chans, nil
	}
}

// rankVectors runs the channels of specs through a reader that finds the
// nearest vectors itself (tables.VectorRanker): no vector is loaded. The
// reader returns every row that may be among a channel's best, with its
// vector; they are scored here as a scan scores them (vectors.Dot, ties by
// the lower row in VectorReader.Scan order), so the answer is the scan's.
func (v *vectorChannels) rankVectors(ctx context.Context, vr tables.VectorRanker, st vectorState, q []float32, specs []vecSpec, req Request, sc *scoped) (vecRun, error) {
	r := vecRun{status: st.status}
	stats, err := v.rankedStats(ctx, vr, st.model)
	if err != nil {
		return vecRun{}, err
	}
	if off := checkQueryDim(&vecIndex{stats: stats}, q); off != "" {
		r.status = "off for this search: " + off
		r.notes = append(r.notes, "vectors unavailable, so this search is lexical: "+off)
		return r, nil
	}
	if n := stats.note(); n != "" {
		r.status += "; " + n
	}
	for _, s := range specs {
		if s.weight <= 0 {
			continue
		}
		ch, err := v.nearChannel(ctx, vr, st.model, stats.dim, s, q, req, sc)
		if err != nil {
			return vecRun{}, err
		}
		r.chans = append(r.chans, ch)
		r.tables = append(r.tables, vecTable[s.surface])
	}
	return r, nil
}

// rankedStats returns the counts of vr's vectors of model, read again
// only when the vectors changed.
func (v *vectorChannels) rankedStats(ctx context.Context, vr tables.VectorRanker, model string) (vecStats, error) {
	version, err := vr.Version(ctx)
	if err != nil {
		return vecStats{}, err
	}
	c := &v.vecs
	c.mu.Lock()
	if c.ranked.version == version && version != "" {
		st := c.ranked.stats
		c.mu.Unlock()
		return st, nil
	}
	c.mu.Unlock()
	var st vecStats
	if st.dim, err = vr.Dim(ctx, model); err != nil {
		return st, err
	}
	rows, with, err := vr.Coverage(ctx, model, st.dim)
	if err != nil {
		return st, err
	}
	st.rows, st.missing = rows, rows-with
	c.mu.Lock()
	c.ranked.version, c.ranked.stats = version, st
	c.mu.Unlock()
	return st, nil
}

// nearChannel is vecChannel for a reader that finds the nearest vectors
// itself: the scope (as vecScope reads it) goes to the reader, which
// returns the candidates in scope with their vectors.
func (v *vectorChannels) nearChannel(ctx context.Context, vr tables.VectorRanker, model string, dim int, s vecSpec, q []float32, req Request, sc *scoped) (*channel, error) {
	ch := &channel{name: s.name, weight: s.weight, cosine: true}
	if dim <= 0 || len(q) != dim {
		return ch, nil
	}
	t, in := vecTable[s.surface], scope.Scope{}
	if !req.Scope.IsZero() {
		t, _ = vecScopeTable(s.surface, req)
		in = sc.scope
	}
	near, err := vr.Nearest(ctx, model, dim, s.surface, q, v.tune.VecCands, t, in)
	if err != nil {
		return nil, err
	}
	var hits []vectors.Hit
	for i, n := range near {
		if len(n.Vec) == dim {
			hits = append(hits, vectors.Hit{Row: i, Score: vectors.Dot(n.Vec, q)})
		}
	}
	for _, h := range vectors.Best(v.tune.VecCands, hits) {
		if h.Score <= 0 {
			break // unrelated or opposite: never a reason to list a row
		}
		ch.add(vectorUnit(s.surface, near[h.Row].Unit), float64(h.Score))
	}
	return ch, nil
}

// finite reports whether every value of q is a number: a reader that
// ranks vectors itself may reject others, which a scan accepts.
func finite(q []float32) bool {
	for _, x := range q {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// vectorUnit is the unit a vector of surface belongs to.
func vectorUnit(surface string, r tables.VectorFileUnit) *unit {
	switch surface {
	case vectors.SurfaceCode:
		return chunkUnit(r.Chunk)
	case vectors.SurfaceSummary:
		return symbolUnit(r.Symbol)
	}
	return fileRowUnit(r.File)
}
