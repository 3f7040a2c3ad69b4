package vectors

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// CheckFile reads the vector file at path with plain reads (an index run must
// not map it: mapped pages count as its memory) and says why it does not
// hold the vectors of st, nil when it does.
func CheckFile(path string, st State) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return ErrFileMissing
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFileUnreadable, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFileUnreadable, err)
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
		return fmt.Errorf("%w: %s", ErrFileStale, why)
	}
	for i := range h.surfaces {
		s := &h.surfaces[i]
		for a := range vfArrays {
			d := xxhash.New()
			if _, err := io.Copy(d, io.NewSectionReader(f, s.off[a], h.arrayLen(s, a))); err != nil {
				return fmt.Errorf("%w: %w", ErrFileUnreadable, err)
			}
			if d.Sum64() != s.sum[a] {
				return damaged("surface %q: array %d checksum", s.name, a)
			}
		}
	}
	return nil
}

// RowIDs are what a row of a vector file maps back to: the index's id of
// its float32 vector, of its unit (chunk, symbol or file) and of the
// unit's file.
type RowIDs struct {
	Vec, Unit, File int64
}

// AddFunc adds one row of surface to a vector file being written: x, of
// the file's dimension, and the ids it maps back to.
type AddFunc func(surface string, x []float32, ids RowIDs) error

// WriteFile writes the vector file of st to path: to a temporary file beside
// it, renamed into place only when complete, so a reader sees the old
// file or the new one. bound is at least the number of rows of each
// surface (it places the arrays; the header records how many each
// holds); rows calls add once per vector, in the order a search should
// break ties by. Rows of a surface beyond its bound, or of another
// dimension, fail the write.
func WriteFile(path string, st State, bound map[string]int, rows func(add AddFunc) error) (err error) {
	h := &header{dim: st.Dim, pad: PadDim(st.Dim), token: st.Token, version: st.Version, model: st.Model}
	off := int64(vfHeaderSize)
	for _, name := range fileSurfaces {
		s := surfaceHeader{name: name}
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
	err = rows(func(surface string, x []float32, ids RowIDs) error {
		w := out[surface]
		switch {
		case w == nil:
			return fmt.Errorf("surface %q: unknown (known: code, summary, file)", surface)
		case len(x) != st.Dim:
			return fmt.Errorf("surface %s: a vector of %d floats in a file of %d", surface, len(x), st.Dim)
		case w.s.rows >= bound[surface]:
			return fmt.Errorf("surface %s: more rows than counted (%d)", surface, bound[surface])
		}
		return w.add(x, ids)
	})
	if err != nil {
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

// surfaceWriter streams one surface's arrays to their places in the file,
// hashing each as it goes.
type surfaceWriter struct {
	f    *os.File
	s    *surfaceHeader
	pad  int
	q8   []int8
	bufs [vfArrays][]byte
	at   [vfArrays]int64
	sums [vfArrays]*xxhash.Digest
}

func newSurfaceWriter(f *os.File, s *surfaceHeader, pad int) *surfaceWriter {
	w := &surfaceWriter{f: f, s: s, pad: pad, q8: make([]int8, pad)}
	for a := range vfArrays {
		w.at[a] = s.off[a]
		w.sums[a] = xxhash.New()
		w.bufs[a] = make([]byte, 0, 64<<10)
	}
	return w
}

// add appends one row.
func (w *surfaceWriter) add(x []float32, ids RowIDs) error {
	scale, errNorm, norm, hatNorm := Quantize(w.q8, x)
	w.bufs[arrQ8] = append(w.bufs[arrQ8], unsafe.Slice((*byte)(unsafe.Pointer(&w.q8[0])), w.pad)...)
	le := binary.LittleEndian
	w.bufs[arrScale] = le.AppendUint32(w.bufs[arrScale], math.Float32bits(scale))
	w.bufs[arrErrNorm] = le.AppendUint32(w.bufs[arrErrNorm], math.Float32bits(roundUp32(errNorm)))
	w.bufs[arrNorm] = le.AppendUint32(w.bufs[arrNorm], math.Float32bits(roundUp32(norm)))
	w.bufs[arrVecID] = le.AppendUint64(w.bufs[arrVecID], uint64(ids.Vec))
	w.bufs[arrUnitID] = le.AppendUint64(w.bufs[arrUnitID], uint64(ids.Unit))
	w.bufs[arrFileID] = le.AppendUint64(w.bufs[arrFileID], uint64(ids.File))
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
