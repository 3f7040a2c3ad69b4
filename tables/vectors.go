package tables

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/viberag/viberag/tables/vectors"
)

// VectorStore is the index's vectors and their embedding cache: the
// SQL of the vectors and embed_cache tables, and the vector file beside
// the index (package vectors holds the encodings, the file's format and
// the scan). The indexer writes through it; a search reads through it as
// a VectorFileReader.
type VectorStore struct{ db *DB }

var _ VectorFileReader = (*VectorStore)(nil)

// Vectors returns the index's vectors.
func (db *DB) Vectors() *VectorStore { return &VectorStore{db: db} }

// VectorReader returns the index's vectors as a search reads them.
func (rd *IndexReader) VectorReader() VectorReader { return rd.db.Vectors() }

// More meta keys, for vectors.
const (
	// MetaVectorsVersion changes whenever the vectors table does, so that
	// readers caching vectors in memory know when to reload them.
	MetaVectorsVersion = "vectors_version"
	// MetaEmbeddingConfig is the JSON of the provider settings the vectors
	// were made with (never a secret), so searches can embed their query
	// with the same provider.
	MetaEmbeddingConfig = "embedding_config"
	// MetaEmbeddingError is the last embedding stage's error, '' after a
	// stage that completed.
	MetaEmbeddingError = "embedding_error"
	// MetaEmbeddingDim is the length of every stored vector, set by the
	// first VectorStore.Write and cleared by Drop: an index never holds
	// vectors of two sizes.
	MetaEmbeddingDim = "embedding_dim"
)

// ErrDimension is wrapped by VectorStore.Write's error for a vector whose
// length is not the index's.
var ErrDimension = errors.New("vector dimension differs from the index's")

const bumpVectorsVersion = `INSERT INTO meta(key, value) VALUES ('vectors_version', '1')
	ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`

// PendingVector is a row without a vector on one surface, with the facts
// its embedding input is made of. Which fields are filled depends on the
// surface: code fills Header and Content; summary fills Header (the
// enclosing chunk header is not used), Kind, Qualname, Signature, Doc and
// Identifiers; file fills Doc, Summary and Identifiers (the file's
// exports). Path is always set.
type PendingVector struct {
	Owner       string
	RowHash     string // the row's content hash when it was read; see VectorStore.Write
	Path        string
	Header      string
	Content     string
	Kind        string
	Qualname    string
	Signature   string
	Doc         string
	Summary     string
	Identifiers string
}

// pendingSQL selects, per surface, the rows without a vector and, last,
// where their text is in sources: the file, and a chunk's bytes or a
// symbol's ordinal among its file's symbols. <op> is the comparison with
// the owner's column that starts the page (pendingAfter).
var pendingSQL = map[string]string{
	vectors.SurfaceCode: `SELECT c.cid, c.hash, (SELECT path FROM files WHERE id = c.file_id), c.header, '', '', '', '', '', '', '',
  c.file_id, c.start_byte, c.end_byte
FROM chunks c WHERE c.cid <op> ? AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.owner = ` + cidSQL("c.cid") + ` AND v.surface = 'code')
ORDER BY c.cid LIMIT ?`,
	vectors.SurfaceSummary: `SELECT s.sid, s.hash, (SELECT path FROM files WHERE id = s.file_id), '', '', s.kind, s.qualname, '', '', '', '',
  s.file_id, (SELECT count(*) FROM symbols o WHERE o.file_id = s.file_id AND o.id < s.id), 0
FROM symbols s WHERE s.sid <op> ? AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.owner = ` + sidSQL("s.sid") + ` AND v.surface = 'summary')
ORDER BY s.sid LIMIT ?`,
	vectors.SurfaceFile: `SELECT 'f' || f.id, f.hash, f.path, '', '', '', '', '', f.doc, fs.summary, f.exports, 0, 0, 0
FROM files f JOIN files_summary fs ON fs.id = f.id WHERE 'f' || f.id <op> ? AND NOT EXISTS (SELECT 1 FROM vectors v WHERE v.owner = 'f' || f.id AND v.surface = 'file')
ORDER BY 'f' || f.id LIMIT ?`,
}

// pendingAfter returns the comparison and the value that start a page of
// surface after owner after: chunks and symbols page by their INTEGER
// cid and sid (so in that order, not their strings'), files by the owner
// string.
func pendingAfter(surface, after string) (op string, v any) {
	prefix := byte('c')
	switch surface {
	case vectors.SurfaceFile:
		return ">", after
	case vectors.SurfaceSummary:
		prefix = 's'
	}
	if after == "" {
		return ">=", int64(math.MinInt64)
	}
	if v := idValue(prefix, after); v != nil {
		return ">", v
	}
	return ">", int64(math.MaxInt64) // not an owner of this surface: nothing after it
}

// Pending returns up to limit rows of surface without a vector, in owner
// order, starting after owner after ("" for the first page).
func (store *VectorStore) Pending(ctx context.Context, surface, after string, limit int) (out []PendingVector, err error) {
	q, ok := pendingSQL[surface]
	if !ok {
		return nil, fmt.Errorf("pending vectors: surface %q: unknown (known: code, summary, file)", surface)
	}
	op, start := pendingAfter(surface, after)
	q = strings.Replace(q, "<op>", op, 1)
	err = store.db.reader.snapshot(ctx, nil, func(src *sourceCache) error {
		rows, err := src.tx.QueryContext(ctx, q, start, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		type where struct {
			file int64
			a, b int
		}
		var at []where
		for rows.Next() {
			var p PendingVector
			var w where
			owner, hash := any(&p.Owner), any(&p.RowHash)
			switch surface {
			case vectors.SurfaceCode:
				owner, hash = cidOf(&p.Owner), hashOf(&p.RowHash)
			case vectors.SurfaceSummary:
				owner, hash = sidOf(&p.Owner), hashOf(&p.RowHash)
			}
			if err := rows.Scan(owner, hash, &p.Path, &p.Header, &p.Content, &p.Kind, &p.Qualname, &p.Signature, &p.Doc, &p.Summary, &p.Identifiers,
				&w.file, &w.a, &w.b); err != nil {
				return err
			}
			out, at = append(out, p), append(at, w)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		for i := range out {
			p, w := &out[i], at[i]
			switch surface {
			case vectors.SurfaceCode:
				if p.Content, _, err = src.span(w.file, w.a, w.b); err != nil {
					return fmt.Errorf("%s: %w", p.Path, err)
				}
			case vectors.SurfaceSummary:
				lists, err := src.symbolLists(w.file, w.a)
				if err != nil {
					return fmt.Errorf("%s: %w", p.Path, err)
				}
				p.Identifiers = strings.Join(lists[0], "\n")
				if p.Signature, p.Doc, _, err = src.symbolDecl(w.file, w.a); err != nil {
					return fmt.Errorf("%s: %w", p.Path, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pending %s vectors: %w", surface, err)
	}
	return out, nil
}

// Vector is one embedding to store.
type Vector struct {
	Owner     string
	Surface   string
	RowHash   string // PendingVector.RowHash
	InputHash uint64 // the embedded text's xxhash64 (embed.TextKey)
	Vec       []float32
}

// rowCheck is, per surface, the condition that the owner row still holds
// the content it had when its input was read.
// ?1 and ?2 are the owner and the row hash as strings, ?8 and ?9 as the
// INTEGERs chunks and symbols store.
var rowCheck = map[string]string{
	vectors.SurfaceCode:    `EXISTS (SELECT 1 FROM chunks WHERE cid = ?8 AND hash = ?9)`,
	vectors.SurfaceSummary: `EXISTS (SELECT 1 FROM symbols WHERE sid = ?8 AND hash = ?9)`,
	vectors.SurfaceFile:    `EXISTS (SELECT 1 FROM files WHERE 'f' || id = ?1 AND hash = ?2)`,
}

// Write stores vectors of model in one transaction and records model as
// the index's embedding model. Every vector must have the index's
// dimension (MetaEmbeddingDim; the first write sets it): a vector of
// another length fails the whole write with ErrDimension, so sizes are
// never mixed; a NaN or infinite component fails it too. A vector whose
// owner row is gone or changed since Pending read it (another run
// rewrote the file meanwhile) is not stored: its new row is pending
// again. It returns how many were stored.
func (store *VectorStore) Write(ctx context.Context, model string, vs []Vector) (n int, err error) {
	if store.db.w == nil {
		return 0, store.db.errReadOnly("write vectors")
	}
	tx, err := store.db.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("write vectors: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
			err = fmt.Errorf("write vectors: %w", err)
		}
	}()
	stmts := map[string]*sql.Stmt{}
	for surface, check := range rowCheck {
		s, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO vectors(owner, surface, model, dim, input_hash, vec)
			SELECT ?1, ?3, ?4, ?5, ?6, ?7 WHERE `+check)
		if err != nil {
			return 0, err
		}
		defer s.Close()
		stmts[surface] = s
	}
	dim, err := txDim(ctx, tx)
	if err != nil {
		return 0, err
	}
	if dim == 0 && len(vs) > 0 {
		dim = len(vs[0].Vec)
		// No dimension recorded (the first write, or an index that never
		// recorded one): any stored vectors must have this one.
		var other int
		switch err := tx.QueryRowContext(ctx, `SELECT dim FROM vectors WHERE dim <> ? LIMIT 1`, dim).Scan(&other); {
		case err == nil:
			return 0, fmt.Errorf("%w: writing vectors of %d floats beside stored ones of %d", ErrDimension, dim, other)
		case !errors.Is(err, sql.ErrNoRows):
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, MetaEmbeddingDim, strconv.Itoa(dim)); err != nil {
			return 0, err
		}
	}
	buf := make([]byte, 0, 1024)
	for _, v := range vs {
		s, ok := stmts[v.Surface]
		if !ok {
			return 0, fmt.Errorf("surface %q: unknown (known: code, summary, file)", v.Surface)
		}
		if len(v.Vec) == 0 {
			return 0, fmt.Errorf("%s vector of %s: empty", v.Surface, v.Owner)
		}
		if len(v.Vec) != dim {
			return 0, fmt.Errorf("%w: %s vector of %s has %d floats, the index's have %d", ErrDimension, v.Surface, v.Owner, len(v.Vec), dim)
		}
		for i, x := range v.Vec {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return 0, fmt.Errorf("%s vector of %s: component %d is %v", v.Surface, v.Owner, i, x)
			}
		}
		buf = vectors.Encode(buf[:0], v.Vec)
		args := []any{v.Owner, v.RowHash, v.Surface, model, len(v.Vec), Hex(v.InputHash), buf}
		switch v.Surface {
		case vectors.SurfaceCode:
			args = append(args, idValue('c', v.Owner), idValue(0, v.RowHash))
		case vectors.SurfaceSummary:
			args = append(args, idValue('s', v.Owner), idValue(0, v.RowHash))
		}
		res, err := s.ExecContext(ctx, args...)
		if err != nil {
			return 0, err
		}
		k, _ := res.RowsAffected()
		n += int(k)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, MetaEmbeddingModel, model); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, bumpVectorsVersion); err != nil {
		return 0, err
	}
	return n, tx.Commit()
}

// txDim reads the index's vector dimension, 0 when none is recorded.
func txDim(ctx context.Context, tx *sql.Tx) (int, error) {
	var s string
	err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, MetaEmbeddingDim).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) || s == "" {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	d, err := strconv.Atoi(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("meta %s: %q: not a dimension", MetaEmbeddingDim, s)
	}
	return d, nil
}

// Dims returns the distinct lengths of the stored vectors (one scan of
// the vectors table; for an index that does not record MetaEmbeddingDim).
func (store *VectorStore) Dims(ctx context.Context) ([]int, error) {
	rows, err := store.db.r.QueryContext(ctx, `SELECT DISTINCT dim FROM vectors ORDER BY dim`)
	if err != nil {
		return nil, fmt.Errorf("vector dims: %w", err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var d int
		if err := rows.Scan(&d); err != nil {
			return nil, fmt.Errorf("vector dims: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// DropZero deletes stored vectors of dim floats that are all zero, except
// those of the input whose hash is keepInput (the empty text, whose zero
// vector is right), and reports how many it deleted; their rows are
// pending again. A provider that returned zeros for real text
// was broken, and its vectors match nothing.
func (store *VectorStore) DropZero(ctx context.Context, dim int, keepInput uint64) (int64, error) {
	if store.db.w == nil {
		return 0, store.db.errReadOnly("drop zero vectors")
	}
	tx, err := store.db.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("drop zero vectors: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE dim = ?1 AND vec = zeroblob(?1 * 4) AND input_hash <> ?2`, dim, Hex(keepInput))
	if err != nil {
		return 0, fmt.Errorf("drop zero vectors: %w", err)
	}
	n, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, `DELETE FROM embed_cache WHERE vec = zeroblob(length(vec))`); err != nil {
		return 0, fmt.Errorf("drop zero vectors: %w", err)
	}
	if n > 0 {
		if _, err := tx.ExecContext(ctx, bumpVectorsVersion); err != nil {
			return 0, fmt.Errorf("drop zero vectors: %w", err)
		}
	}
	return n, tx.Commit()
}

// Drop deletes every vector (and the embedding cache of other models than
// keepModel, and of other dimensions than keepDim when it is positive),
// keeping all facts; the next embedding stage re-embeds. Used
// when the model or its dimension changes.
func (store *VectorStore) Drop(ctx context.Context, keepModel string, keepDim int) (err error) {
	if store.db.w == nil {
		return store.db.errReadOnly("drop vectors")
	}
	tx, err := store.db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("drop vectors: %w", err)
	}
	defer tx.Rollback()
	for _, q := range []string{
		`DELETE FROM vectors`,
		`DELETE FROM embed_cache WHERE model <> ?1 OR (?2 > 0 AND length(vec) <> ?2 * 4)`,
		`DELETE FROM meta WHERE key IN ('embedding_model', 'embedding_dim')`,
		bumpVectorsVersion,
	} {
		var args []any
		if strings.Contains(q, "?") {
			args = []any{keepModel, keepDim}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("drop vectors: %w", err)
		}
	}
	return tx.Commit()
}

// PruneCache deletes the oldest embedding cache entries beyond keep.
func (store *VectorStore) PruneCache(ctx context.Context, keep int) error {
	if store.db.w == nil {
		return store.db.errReadOnly("prune embedding cache")
	}
	_, err := store.db.w.ExecContext(ctx, `DELETE FROM embed_cache WHERE id IN
		(SELECT id FROM embed_cache ORDER BY id LIMIT max(0, (SELECT count(*) FROM embed_cache) - ?))`, keep)
	if err != nil {
		return fmt.Errorf("prune embedding cache: %w", err)
	}
	return nil
}

// EmbedCache is the index's embedding cache: it finds a vector for an
// input among the stored vectors and the cache of removed ones. It
// satisfies embed.Cache.
type EmbedCache struct{ db *DB }

// Cache returns the index's embedding cache.
func (store *VectorStore) Cache() *EmbedCache { return &EmbedCache{db: store.db} }

// Get returns one vector per key, nil where none is stored.
func (c *EmbedCache) Get(ctx context.Context, model string, keys []uint64) ([][]float32, error) {
	out := make([][]float32, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	at := make(map[string][]int, len(keys))
	var sb strings.Builder
	sb.WriteByte('[')
	for i, k := range keys {
		h := Hex(k)
		if _, ok := at[h]; !ok {
			if len(at) > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`"` + h + `"`)
		}
		at[h] = append(at[h], i)
	}
	sb.WriteByte(']')
	rows, err := c.db.r.QueryContext(ctx, `SELECT input_hash, vec FROM vectors
		WHERE model = ?1 AND input_hash IN (SELECT value FROM json_each(?2))
		UNION ALL SELECT key, vec FROM embed_cache
		WHERE model = ?1 AND key IN (SELECT value FROM json_each(?2))`, model, sb.String())
	if err != nil {
		return nil, fmt.Errorf("embedding cache: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		var blob []byte
		if err := rows.Scan(&h, &blob); err != nil {
			return nil, fmt.Errorf("embedding cache: %w", err)
		}
		v, err := vectors.Decode(blob)
		if err != nil {
			return nil, fmt.Errorf("embedding cache: input %s: %w", h, err)
		}
		for _, i := range at[h] {
			if out[i] == nil {
				out[i] = v
			}
		}
	}
	return out, rows.Err()
}

// Put does nothing: vectors enter the cache by being written to the
// index (VectorStore.Write), and stay in it when their rows are replaced.
func (c *EmbedCache) Put(ctx context.Context, model string, keys []uint64, vecs [][]float32) error {
	return nil
}

// VectorCount is how many rows of a surface have a vector, and how many
// lack one.
type VectorCount struct {
	Present int64 `json:"present"`
	Missing int64 `json:"missing"`
}

// Counts reports, per surface, the rows with and without a vector.
func (store *VectorStore) Counts(ctx context.Context) (map[string]VectorCount, error) {
	out := map[string]VectorCount{}
	q := `SELECT 'code', (SELECT count(*) FROM chunks), (SELECT count(*) FROM vectors WHERE surface = 'code')
	UNION ALL SELECT 'summary', (SELECT count(*) FROM symbols), (SELECT count(*) FROM vectors WHERE surface = 'summary')
	UNION ALL SELECT 'file', (SELECT count(*) FROM files), (SELECT count(*) FROM vectors WHERE surface = 'file')`
	rows, err := store.db.r.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("vector counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var total, present int64
		if err := rows.Scan(&s, &total, &present); err != nil {
			return nil, fmt.Errorf("vector counts: %w", err)
		}
		out[s] = VectorCount{Present: present, Missing: max(0, total-present)}
	}
	return out, rows.Err()
}
