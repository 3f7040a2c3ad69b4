package tables

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"unsafe"

	"github.com/cespare/xxhash/v2"

	"github.com/viberag/viberag/tables/vectors"
)

// The vector file: the index's vectors laid out for a search to scan in
// place. Loading 300,000 vectors out of the vectors table costs a search
// process seconds (one pass over 300 MB of blobs); the file, beside the
// index (VectorFilePath), holds what the scan reads — each vector
// quantised to int8 with its scale and error bounds — and the ids that map
// a row back to its vector, its unit and its file, so a search maps it
// (memory-mapped, read-only) and reads only what it scans. The float32
// vectors stay in the vectors table alone: a search reads back the few
// rows it rescores (VectorFileVectors) and the units it lists
// (VectorFileUnits), so the file adds a quarter of the vectors' size to
// the index, not all of it.
//
// The file is derived data, like an FTS index, but outside SQLite's
// transactions, so it carries what proves it current: meta
// vectors_version and embedding_model as they were when it was written,
// and a random token that SyncVectorFile records in meta vectors_file
// after installing the file (a rebuilt or replaced index never matches an
// old file, whatever its version number). Every array has a checksum.
// OpenVectorFile refuses a file that is missing, stale or damaged, saying
// which (ErrVectorFileMissing, ErrVectorFileStale, ErrVectorFileDamaged,
// ErrVectorFileUnreadable); searches then read the vectors table as before,
// and the next index run rewrites the file.
//
// Layout (little-endian): a 4 KiB header — magic, format, dimension,
// padded dimension, surface count, file size, token, vectors_version,
// model, then per surface its name, row count, largest ‖x̂‖, and the
// offset and xxhash64 of each of its arrays; the header's own xxhash64 in
// its last 8 bytes — then, per surface, seven arrays at 64-byte aligned
// offsets: q8 (rows × pad int8, a row's dimensions zero-padded to a
// multiple of 32 for the scan kernel), scale, errNorm and norm (float32
// per row; see vectors.Quantize), then vecID (vectors.id), unitID
// (chunks.id, symbols.id or files.id) and fileID (int64 per row). Rows
// are in vectors rowid order, the order ScanVectors reads them in, so
// ties rank the same either way.

// VectorFileSuffix is appended to an index's path to name its vector file.
const VectorFileSuffix = ".vectors"

// MetaVectorFile is the token of the vector file written for the current
// vectors (see SyncVectorFile).
const MetaVectorFile = "vectors_file"

// VectorFilePath returns the path of the vector file of the index at
// index.
func VectorFilePath(index string) string { return index + VectorFileSuffix }

// VectorFileReader is a Reader whose vectors a search can read from a
// vector file: *DB. Package query maps the file when its Reader has one,
// and loads the vectors (Reader.ScanVectors) otherwise.
type VectorFileReader interface {
	OpenVectorFile(ctx context.Context) (*VectorFile, error)
	VectorFileVectors(ctx context.Context, vf *VectorFile, surface string, rows []int, fn func(i int, vec []float32)) error
	VectorFileUnits(ctx context.Context, vf *VectorFile, surface string, rows []int) ([]VectorFileUnit, error)
	UnitCounts(ctx context.Context) (map[string]int, error)
}

var _ VectorFileReader = (*DB)(nil)

// Why OpenVectorFile could not use a vector file; test with errors.Is.
var (
	ErrVectorFileMissing    = errors.New("no vector file")
	ErrVectorFileStale      = errors.New("vector file is stale")
	ErrVectorFileDamaged    = errors.New("vector file is damaged")
	ErrVectorFileUnreadable = errors.New("vector file cannot be read")
)

// IsVectorFileProblem reports whether err says why a vector file cannot
// serve (so the vectors table must), rather than that the index failed.
func IsVectorFileProblem(err error) bool {
	return errors.Is(err, ErrVectorFileMissing) || errors.Is(err, ErrVectorFileStale) ||
		errors.Is(err, ErrVectorFileDamaged) || errors.Is(err, ErrVectorFileUnreadable)
}

const (
	vfMagic      = "VBRGVEC\x00"
	vfFormat     = 1
	vfHeaderSize = 4096
	vfAlign      = 64
	vfArrays     = 7
	vfMaxString  = 1024
)

// vfSurfaces is the order of the surfaces in the file.
var vfSurfaces = []string{SurfaceCode, SurfaceSummary, SurfaceFile}

// Array indexes within a surface, and each array's bytes per row (q8's
// is the padded dimension).
const (
	arrQ8 = iota
	arrScale
	arrErrNorm
	arrNorm
	arrVecID
	arrUnitID
	arrFileID
)

var vfElemSize = [vfArrays]int{1, 4, 4, 4, 8, 8, 8}

// roundUp32 is the smallest float32 not below v.
func roundUp32(v float64) float32 {
	f := float32(v)
	if float64(f) < v {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// VectorFile is an open vector file: one vectors_version's vectors,
// mapped read-only. Its slices point into the mapping: they must not be
// modified, nor used after Close.
type VectorFile struct {
	path      string
	version   string // meta vectors_version when written
	model     string
	token     string
	dim, pad  int
	size      int64
	surfaces  map[string]*VectorRows
	data      []byte
	unmap     func() error
	closeOnce bool
}

// VectorRows are one surface's rows in a vector file, row i describing
// the unit UnitIDs[i] (a chunks.id, symbols.id or files.id) of file
// FileIDs[i], whose vector is vectors.id VecIDs[i]. Row i's int8 copy is
// Q8[i*Pad:(i+1)*Pad]; x̂ = Q8 row · Scale[i], ‖x − x̂‖ ≤ ErrNorm[i], ‖x‖ ≤
// Norm[i], and every ‖x̂‖ ≤ MaxHatNorm (all rounded up).
type VectorRows struct {
	Len        int
	Pad        int
	MaxHatNorm float32
	Q8         []int8
	Scale      []float32
	ErrNorm    []float32
	Norm       []float32
	VecIDs     []int64
	UnitIDs    []int64
	FileIDs    []int64
}

// Dim is the vectors' dimension.
func (f *VectorFile) Dim() int { return f.dim }

// Model is the provider ID of the vectors.
func (f *VectorFile) Model() string { return f.model }

// Version is the key VectorsVersion returned when the file was current.
func (f *VectorFile) Version() string { return f.version + "/" + f.model + "/" + f.token }

// Size is the file's size in bytes.
func (f *VectorFile) Size() int64 { return f.size }

// Rows returns a surface's rows (none for an unknown surface).
func (f *VectorFile) Rows(surface string) *VectorRows {
	if r, ok := f.surfaces[surface]; ok {
		return r
	}
	return &VectorRows{Pad: f.pad}
}

// Close unmaps the file. Slices taken from it must no longer be used.
func (f *VectorFile) Close() error {
	if f == nil || f.closeOnce {
		return nil
	}
	f.closeOnce = true
	f.surfaces = nil
	if f.unmap == nil {
		return nil
	}
	return f.unmap()
}

// vectorState is what a vector file must match: the index's vectors
// version, model, dimension and the token of the file last written.
type vectorState struct {
	version, model, token string
	dim                   int
}

const vectorStateSQL = `SELECT
	coalesce((SELECT value FROM meta WHERE key = 'vectors_version'), ''),
	coalesce((SELECT value FROM meta WHERE key = 'embedding_model'), ''),
	coalesce((SELECT value FROM meta WHERE key = 'embedding_dim'), ''),
	coalesce((SELECT value FROM meta WHERE key = 'vectors_file'), '')`

type rowQuerier interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

func readVectorState(ctx context.Context, q rowQuerier) (vectorState, error) {
	var st vectorState
	var dim string
	if err := q.QueryRowContext(ctx, vectorStateSQL).Scan(&st.version, &st.model, &dim, &st.token); err != nil {
		return st, fmt.Errorf("read vectors state: %w", err)
	}
	st.dim, _ = strconv.Atoi(dim) // '' (no vectors yet) or not a number: no file
	return st, nil
}

// vfHeader is a parsed header.
type vfHeader struct {
	dim, pad              int
	size                  int64
	token, version, model string
	surfaces              []vfSurface
}

type vfSurface struct {
	name   string
	rows   int
	maxHat float32
	off    [vfArrays]int64
	sum    [vfArrays]uint64
}

// arrayLen is the byte length of array a of s.
func (h *vfHeader) arrayLen(s *vfSurface, a int) int64 {
	if a == arrQ8 {
		return int64(s.rows) * int64(h.pad)
	}
	return int64(s.rows) * int64(vfElemSize[a])
}

func (h *vfHeader) encode() ([]byte, error) {
	if len(h.version) > vfMaxString || len(h.model) > vfMaxString {
		return nil, fmt.Errorf("vector file header: model %.40q… is over %d bytes", h.model, vfMaxString)
	}
	b := make([]byte, 0, vfHeaderSize)
	b = append(b, vfMagic...)
	b = binary.LittleEndian.AppendUint32(b, vfFormat)
	b = binary.LittleEndian.AppendUint32(b, uint32(h.dim))
	b = binary.LittleEndian.AppendUint32(b, uint32(h.pad))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(h.surfaces)))
	b = binary.LittleEndian.AppendUint64(b, uint64(h.size))
	b = appendString(b, h.token)
	b = appendString(b, h.version)
	b = appendString(b, h.model)
	for _, s := range h.surfaces {
		b = appendString(b, s.name)
		b = binary.LittleEndian.AppendUint64(b, uint64(s.rows))
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s.maxHat))
		for a := range vfArrays {
			b = binary.LittleEndian.AppendUint64(b, uint64(s.off[a]))
			b = binary.LittleEndian.AppendUint64(b, s.sum[a])
		}
	}
	if len(b) > vfHeaderSize-8 {
		return nil, fmt.Errorf("vector file header: %d bytes: over %d", len(b), vfHeaderSize-8)
	}
	b = b[:vfHeaderSize-8]
	return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b)), nil
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

// headerReader reads header fields, remembering the first overrun.
type headerReader struct {
	b   []byte
	bad bool
}

func (r *headerReader) take(n int) []byte {
	if r.bad || n > len(r.b) {
		r.bad = true
		return make([]byte, n)
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}
func (r *headerReader) u16() uint16  { return binary.LittleEndian.Uint16(r.take(2)) }
func (r *headerReader) u32() uint32  { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *headerReader) u64() uint64  { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *headerReader) str() string  { return string(r.take(int(r.u16()))) }
func (r *headerReader) f32() float32 { return math.Float32frombits(r.u32()) }
func damaged(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrVectorFileDamaged, fmt.Sprintf(format, a...))
}

// parseHeader checks the header's magic, checksum and the layout it
// describes against fileSize.
func parseHeader(b []byte, fileSize int64) (*vfHeader, error) {
	if len(b) < vfHeaderSize {
		return nil, damaged("%d bytes, shorter than its header", len(b))
	}
	b = b[:vfHeaderSize]
	if string(b[:len(vfMagic)]) != vfMagic {
		return nil, damaged("bad magic %q", b[:len(vfMagic)])
	}
	if got, want := xxhash.Sum64(b[:vfHeaderSize-8]), binary.LittleEndian.Uint64(b[vfHeaderSize-8:]); got != want {
		return nil, damaged("header checksum %016x, want %016x", got, want)
	}
	r := &headerReader{b: b[len(vfMagic) : vfHeaderSize-8]}
	if v := r.u32(); v != vfFormat {
		return nil, fmt.Errorf("%w: format %d, this viberag reads %d", ErrVectorFileStale, v, vfFormat)
	}
	h := &vfHeader{dim: int(r.u32()), pad: int(r.u32())}
	ns := int(r.u32())
	h.size = int64(r.u64())
	h.token, h.version, h.model = r.str(), r.str(), r.str()
	if ns > len(vfSurfaces) {
		return nil, damaged("%d surfaces", ns)
	}
	for range ns {
		s := vfSurface{name: r.str(), rows: int(r.u64()), maxHat: r.f32()}
		for a := range vfArrays {
			s.off[a], s.sum[a] = int64(r.u64()), r.u64()
		}
		h.surfaces = append(h.surfaces, s)
	}
	if r.bad {
		return nil, damaged("header overruns itself")
	}
	if h.size != fileSize {
		return nil, damaged("%d bytes, its header says %d (truncated or overwritten)", fileSize, h.size)
	}
	if h.dim <= 0 || h.pad != vectors.PadDim(h.dim) {
		return nil, damaged("dimension %d padded to %d", h.dim, h.pad)
	}
	for i := range h.surfaces {
		s := &h.surfaces[i]
		if s.rows < 0 || int64(s.rows) > h.size || math.IsNaN(float64(s.maxHat)) || s.maxHat < 0 {
			return nil, damaged("surface %q: %d rows, largest norm %v", s.name, s.rows, s.maxHat)
		}
		for a := range vfArrays {
			n := h.arrayLen(s, a)
			if s.off[a] < vfHeaderSize || s.off[a]%vfAlign != 0 || s.off[a] > h.size || n > h.size-s.off[a] {
				return nil, damaged("surface %q: array %d at %d+%d outside the file's %d bytes", s.name, a, s.off[a], n, h.size)
			}
		}
	}
	return h, nil
}

// matches says why h does not hold the vectors of st, "" when it does.
func (h *vfHeader) matches(st vectorState) string {
	switch {
	case st.token == "" || h.token != st.token:
		return "it was not written for this index's current vectors"
	case h.version != st.version:
		return fmt.Sprintf("it holds vectors version %s, the index is at %s", h.version, st.version)
	case h.model != st.model:
		return fmt.Sprintf("it holds vectors of %s, the index's are of %s", h.model, st.model)
	case h.dim != st.dim:
		return fmt.Sprintf("its vectors have %d dimensions, the index's %d", h.dim, st.dim)
	}
	return ""
}

// littleEndian reports whether this machine stores numbers as the file
// does, so that its arrays can be used in place.
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// OpenVectorFile maps the vector file of the index, after checking that
// it holds the index's current vectors (version, model, dimension and
// token) and that every checksum holds. Its error says why not: see
// IsVectorFileProblem. The caller must Close it.
func (db *DB) OpenVectorFile(ctx context.Context) (*VectorFile, error) {
	st, err := readVectorState(ctx, db.r)
	if err != nil {
		return nil, err
	}
	path := VectorFilePath(db.path)
	if st.model == "" {
		return nil, fmt.Errorf("%w: the index has no vectors", ErrVectorFileMissing)
	}
	if !littleEndian() {
		return nil, fmt.Errorf("%w: this machine is big-endian", ErrVectorFileUnreadable)
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist", ErrVectorFileMissing, filepath.Base(path))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrVectorFileUnreadable, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrVectorFileUnreadable, err)
	}
	if fi.Size() < vfHeaderSize {
		return nil, damaged("%d bytes, shorter than its header", fi.Size())
	}
	// The header first: a stale file is refused without mapping it.
	hb := make([]byte, vfHeaderSize)
	if _, err := f.ReadAt(hb, 0); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrVectorFileUnreadable, err)
	}
	h, err := parseHeader(hb, fi.Size())
	if err != nil {
		return nil, err
	}
	if why := h.matches(st); why != "" {
		return nil, fmt.Errorf("%w: %s", ErrVectorFileStale, why)
	}
	data, unmap, err := mapFile(f, int(fi.Size()))
	if err != nil {
		return nil, fmt.Errorf("%w: map: %w", ErrVectorFileUnreadable, err)
	}
	vf := &VectorFile{path: path, version: h.version, model: h.model, token: h.token, dim: h.dim, pad: h.pad,
		size: fi.Size(), data: data, unmap: unmap, surfaces: map[string]*VectorRows{}}
	if err := vf.load(h); err != nil {
		vf.Close()
		return nil, err
	}
	return vf, nil
}

// load checks the arrays' checksums (re-reading the header from the
// mapping, which is what the arrays are read from) and makes the views.
func (vf *VectorFile) load(want *vfHeader) error {
	h, err := parseHeader(vf.data, vf.size)
	if err != nil {
		return err
	}
	if h.token != want.token {
		return fmt.Errorf("%w: replaced while being opened", ErrVectorFileStale)
	}
	for i := range h.surfaces {
		s := &h.surfaces[i]
		arr := func(a int) []byte {
			return vf.data[s.off[a] : s.off[a]+h.arrayLen(s, a)]
		}
		for a := range vfArrays {
			if got := xxhash.Sum64(arr(a)); got != s.sum[a] {
				return damaged("surface %q: array %d checksum %016x, want %016x", s.name, a, got, s.sum[a])
			}
		}
		vf.surfaces[s.name] = &VectorRows{
			Len: s.rows, Pad: h.pad, MaxHatNorm: s.maxHat,
			Q8:      view[int8](arr(arrQ8)),
			Scale:   view[float32](arr(arrScale)),
			ErrNorm: view[float32](arr(arrErrNorm)),
			Norm:    view[float32](arr(arrNorm)),
			VecIDs:  view[int64](arr(arrVecID)),
			UnitIDs: view[int64](arr(arrUnitID)),
			FileIDs: view[int64](arr(arrFileID)),
		}
	}
	return nil
}

// view is b as a slice of T, in place (b is aligned for T: the mapping
// starts on a page and every array on a multiple of 64 bytes).
func view[T int8 | float32 | int64](b []byte) []T {
	var zero T
	n := len(b) / int(unsafe.Sizeof(zero))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
