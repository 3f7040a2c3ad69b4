package tables

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/viberag/viberag/tables/vectors"
)

// Writing the vector file (see vectorfile.go for its layout and reader).

// checkVectorFile reads the file at path with plain reads (an index run
// must not map it: mapped pages count as its memory) and says why it
// does not hold the vectors of st, nil when it does.
func checkVectorFile(path string, st vectorState) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return ErrVectorFileMissing
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrVectorFileUnreadable, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrVectorFileUnreadable, err)
	}
	hb := make([]byte, vfHeaderSize)
	if _, err := io.ReadFull(f, hb); err != nil {
		return damaged("header: %v", err)
	}
	h, err := parseHeader(hb, fi.Size())
	if err != nil {
		return err
	}
	if why := h.matches(st); why != "" {
		return fmt.Errorf("%w: %s", ErrVectorFileStale, why)
	}
	for i := range h.surfaces {
		s := &h.surfaces[i]
		for a := range vfArrays {
			d := xxhash.New()
			if _, err := io.Copy(d, io.NewSectionReader(f, s.off[a], h.arrayLen(s, a))); err != nil {
				return fmt.Errorf("%w: %w", ErrVectorFileUnreadable, err)
			}
			if d.Sum64() != s.sum[a] {
				return damaged("surface %q: array %d checksum", s.name, a)
			}
		}
	}
	return nil
}

// vectorFileScanSQL reads every vector of a model and dimension with its
// owner, in vectors rowid order (the order of ScanVectors), and the id of
// its file unit. A chunk's or symbol's owner is its cid or sid string,
// and those columns are INTEGERs (schema 7): unitsSQL maps them to their
// units and files in Go, from one pass over each table (looking each
// vector's unit up in SQL through the index would need the string parsed
// in SQL). A vector whose unit is gone is left out, as the search's
// loader leaves it out.
const vectorFileScanSQL = `SELECT v.id, v.surface, v.vec, v.owner, f.id
FROM vectors v NOT INDEXED
LEFT JOIN files f ON v.surface = 'file' AND f.id = CAST(substr(v.owner, 2) AS INTEGER) AND v.owner = 'f' || f.id
WHERE v.model = ?1 AND v.dim = ?2`

// unitsSQL maps the cids and sids of the code and summary surfaces to
// their units' row ids and files (a file's unit is the file).
var unitsSQL = map[string]struct {
	q      string
	prefix byte
}{
	SurfaceCode:    {`SELECT cid, id, file_id FROM chunks`, 'c'},
	SurfaceSummary: {`SELECT sid, id, file_id FROM symbols`, 's'},
}

// unitRef is the row id of a unit and of its file.
type unitRef struct{ id, file int64 }

// SyncVectorFile makes the vector file beside the index hold the index's
// current vectors: when the file is missing, stale or damaged it writes a
// new one (to a temporary file, renamed into place) and records its token
// in meta vectors_file; when the index has no vectors it removes the
// file. It reports whether it wrote one. The caller holds the index's
// write lock (an index run, after its embedding stage).
func (db *DB) SyncVectorFile(ctx context.Context) (wrote bool, err error) {
	if db.w == nil {
		return false, db.errReadOnly("write the vector file")
	}
	path := VectorFilePath(db.path)
	defer func() {
		if err != nil {
			err = fmt.Errorf("write vector file %s: %w", path, err)
		}
	}()
	// One snapshot: the state and the rows agree.
	tx, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	st, err := readVectorState(ctx, tx)
	if err != nil {
		return false, err
	}
	if st.model == "" || st.dim <= 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, err
		}
		return false, nil
	}
	if checkVectorFile(path, st) == nil {
		return false, nil
	}
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return false, err
	}
	st.token = hex.EncodeToString(token)
	if err := writeVectorFile(ctx, tx, path, st); err != nil {
		return false, err
	}
	tx.Rollback()
	// Recorded only if no vector changed meanwhile; otherwise the file is
	// stale at once and the next run writes another.
	_, err = db.w.ExecContext(ctx, `INSERT INTO meta(key, value) SELECT ?1, ?2
		WHERE coalesce((SELECT value FROM meta WHERE key = 'vectors_version'), '') = ?3
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, MetaVectorFile, st.token, st.version)
	return err == nil, err
}

// writeVectorFile writes the file for st from the rows tx reads.
func writeVectorFile(ctx context.Context, tx *sql.Tx, path string, st vectorState) (err error) {
	// Upper bounds of the rows per surface place the arrays; the header
	// records how many each holds. (Counted from the (owner, surface)
	// index: a count of this model and dimension would read every row.)
	bound := map[string]int{}
	rows, err := tx.QueryContext(ctx, `SELECT surface, count(*) FROM vectors GROUP BY surface`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			rows.Close()
			return err
		}
		bound[s] = n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	h := &vfHeader{dim: st.dim, pad: vectors.PadDim(st.dim), token: st.token, version: st.version, model: st.model}
	off := int64(vfHeaderSize)
	for _, name := range vfSurfaces {
		s := vfSurface{name: name}
		for a := range vfArrays {
			s.off[a] = off
			n := int64(bound[name]) * int64(vfElemSize[a])
			if a == arrQ8 {
				n = int64(bound[name]) * int64(h.pad)
			}
			off = (off + n + vfAlign - 1) / vfAlign * vfAlign
		}
		h.surfaces = append(h.surfaces, s)
	}
	h.size = off

	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// Readable as the index is (CreateTemp makes it owner-only).
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Truncate(h.size); err != nil {
		return err
	}
	out := map[string]*surfaceWriter{}
	for i := range h.surfaces {
		out[h.surfaces[i].name] = newSurfaceWriter(tmp, &h.surfaces[i], h.pad)
	}
	unitOf := map[string]map[int64]unitRef{}
	for surface, u := range unitsSQL {
		m, err := readUnitMap(ctx, tx, u.q)
		if err != nil {
			return err
		}
		unitOf[surface] = m
	}
	rows, err = tx.QueryContext(ctx, vectorFileScanSQL, st.model, st.dim)
	if err != nil {
		return err
	}
	defer rows.Close()
	x := make([]float32, st.dim)
	for rows.Next() {
		var vecID, unitID sql.NullInt64
		var surface, owner string
		var blob []byte
		if err := rows.Scan(&vecID, &surface, &blob, &owner, &unitID); err != nil {
			return err
		}
		fileID := unitID
		if m := unitOf[surface]; m != nil {
			unitID.Valid = false
			if k, ok := idValue(unitsSQL[surface].prefix, owner).(int64); ok {
				if u, ok := m[k]; ok {
					unitID = sql.NullInt64{Int64: u.id, Valid: true}
					fileID = sql.NullInt64{Int64: u.file, Valid: true}
				}
			}
		}
		w := out[surface]
		if w == nil || !unitID.Valid || len(blob) != 4*st.dim {
			continue // an unknown surface, a unit gone, a damaged row: as the loader does
		}
		if w.s.rows >= bound[surface] {
			return fmt.Errorf("surface %s: more rows than counted (%d)", surface, bound[surface])
		}
		for k := range x {
			x[k] = math.Float32frombits(binary.LittleEndian.Uint32(blob[4*k:]))
		}
		if err := w.add(x, vecID.Int64, unitID.Int64, fileID.Int64); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, w := range out {
		if err := w.flush(); err != nil {
			return err
		}
	}
	hb, err := h.encode()
	if err != nil {
		return err
	}
	if _, err := tmp.WriteAt(hb, 0); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readUnitMap reads q's rows (key, id, file) into a map.
func readUnitMap(ctx context.Context, tx *sql.Tx, q string) (map[int64]unitRef, error) {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := map[int64]unitRef{}
	for rows.Next() {
		var k int64
		var u unitRef
		if err := rows.Scan(&k, &u.id, &u.file); err != nil {
			return nil, err
		}
		m[k] = u
	}
	return m, rows.Err()
}

// surfaceWriter streams one surface's arrays to their places in the file,
// hashing each as it goes.
type surfaceWriter struct {
	f    *os.File
	s    *vfSurface
	pad  int
	q8   []int8
	bufs [vfArrays][]byte
	at   [vfArrays]int64
	sums [vfArrays]*xxhash.Digest
}

func newSurfaceWriter(f *os.File, s *vfSurface, pad int) *surfaceWriter {
	w := &surfaceWriter{f: f, s: s, pad: pad, q8: make([]int8, pad)}
	for a := range vfArrays {
		w.at[a] = s.off[a]
		w.sums[a] = xxhash.New()
		w.bufs[a] = make([]byte, 0, 64<<10)
	}
	return w
}

// add appends one row.
func (w *surfaceWriter) add(x []float32, vecID, unitID, fileID int64) error {
	scale, errNorm, norm, hatNorm := vectors.Quantize(w.q8, x)
	w.bufs[arrQ8] = append(w.bufs[arrQ8], unsafe.Slice((*byte)(unsafe.Pointer(&w.q8[0])), w.pad)...)
	le := binary.LittleEndian
	w.bufs[arrScale] = le.AppendUint32(w.bufs[arrScale], math.Float32bits(scale))
	w.bufs[arrErrNorm] = le.AppendUint32(w.bufs[arrErrNorm], math.Float32bits(roundUp32(errNorm)))
	w.bufs[arrNorm] = le.AppendUint32(w.bufs[arrNorm], math.Float32bits(roundUp32(norm)))
	w.bufs[arrVecID] = le.AppendUint64(w.bufs[arrVecID], uint64(vecID))
	w.bufs[arrUnitID] = le.AppendUint64(w.bufs[arrUnitID], uint64(unitID))
	w.bufs[arrFileID] = le.AppendUint64(w.bufs[arrFileID], uint64(fileID))
	w.s.maxHat = max(w.s.maxHat, roundUp32(hatNorm))
	w.s.rows++
	for a := range vfArrays {
		if len(w.bufs[a]) >= 60<<10 {
			if err := w.flushArray(a); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *surfaceWriter) flushArray(a int) error {
	b := w.bufs[a]
	if len(b) == 0 {
		return nil
	}
	if _, err := w.f.WriteAt(b, w.at[a]); err != nil {
		return err
	}
	w.sums[a].Write(b)
	w.at[a] += int64(len(b))
	w.bufs[a] = b[:0]
	return nil
}

// flush writes what is buffered and records the checksums.
func (w *surfaceWriter) flush() error {
	for a := range vfArrays {
		if err := w.flushArray(a); err != nil {
			return err
		}
		w.s.sum[a] = w.sums[a].Sum64()
	}
	return nil
}
