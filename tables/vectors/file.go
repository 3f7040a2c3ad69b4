package vectors

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// The vector file: an index's vectors laid out for a search to scan in
// place. Loading 300,000 vectors out of an index's vectors table costs a
// search process seconds (one pass over 300 MB of blobs); the file, beside
// the index, holds what the scan reads — each vector quantised to int8
// with its scale and error bounds (Quantize) — and the ids that map a row
// back to its vector, its unit and its file, so a search maps it
// (memory-mapped, read-only) and reads only what it scans. The float32
// vectors stay in the index alone: a search reads back the few rows it
// rescores and the units it lists, so the file adds a quarter of the
// vectors' size to the index, not all of it.
//
// The file is derived data outside the index's transactions, so it
// carries what proves it current (State): the index's vectors version,
// model and dimension as they were when it was written, and a random
// token the index records after installing the file (a rebuilt or
// replaced index never matches an old file, whatever its version number).
// Every array has a checksum. OpenFile refuses a file that is missing, stale
// or damaged, saying which (ErrFileMissing, ErrFileStale, ErrFileDamaged,
// ErrFileUnreadable); searches then read the index's vectors instead, and
// the next index run rewrites the file.
//
// Layout (little-endian): a 4 KiB header — magic, format, dimension,
// padded dimension, surface count, file size, token, version, model, then
// per surface its name, row count, largest ‖x̂‖, and the offset and
// xxhash64 of each of its arrays; the header's own xxhash64 in its last 8
// bytes — then, per surface, seven arrays at 64-byte aligned offsets: q8
// (rows × pad int8, a row's dimensions zero-padded to a multiple of 32 for
// the scan kernel), scale, errNorm and norm (float32 per row; see
// Quantize), then vecID, unitID and fileID (int64 per row). Rows are in
// the order the writer was given them, which is the order a scan of the
// index's vectors reads them in, so ties rank the same either way.

// State is what a vector file must match to serve an index: the index's
// vectors version, model and dimension, and the token the index recorded
// for the file last written for them.
type State struct {
	Version string
	Model   string
	Dim     int
	Token   string
}

// Key is a string that changes whenever the vectors do, the model does or
// another file is written for them: what a reader holding vectors compares
// to know when to read them again.
func (s State) Key() string { return s.Version + "/" + s.Model + "/" + s.Token }

// Why OpenFile could not use a vector file; test with errors.Is.
var (
	ErrFileMissing    = errors.New("no vector file")
	ErrFileStale      = errors.New("vector file is stale")
	ErrFileDamaged    = errors.New("vector file is damaged")
	ErrFileUnreadable = errors.New("vector file cannot be read")
)

// IsFileProblem reports whether err says why a vector file cannot serve
// (so the index's vectors table must), rather than that the index failed.
func IsFileProblem(err error) bool {
	return errors.Is(err, ErrFileMissing) || errors.Is(err, ErrFileStale) ||
		errors.Is(err, ErrFileDamaged) || errors.Is(err, ErrFileUnreadable)
}

const (
	vfMagic      = "VBRGVEC\x00"
	vfFormat     = 1
	vfHeaderSize = 4096
	vfAlign      = 64
	vfArrays     = 7
	vfMaxString  = 1024
)

// fileSurfaces is the order of the surfaces in the file.
var fileSurfaces = []string{SurfaceCode, SurfaceSummary, SurfaceFile}

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

// File is an open vector file: one State's vectors, mapped read-only.
// Its slices point into the mapping: they must not be modified, nor used
// after Close.
type File struct {
	state    State
	pad      int
	size     int64
	surfaces map[string]*Rows
	data     []byte
	unmap    func() error
	closed   bool
}

// Rows are one surface's rows in a vector file, row i describing the unit
// UnitIDs[i] (in an SQLite index a chunks.id, symbols.id or files.id) of
// file FileIDs[i], whose float32 vector the index holds as VecIDs[i]. Row
// i's int8 copy is Q8[i*Pad:(i+1)*Pad]; x̂ = Q8 row · Scale[i], ‖x − x̂‖ ≤
// ErrNorm[i], ‖x‖ ≤ Norm[i], and every ‖x̂‖ ≤ MaxHatNorm (all rounded up).
type Rows struct {
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

// Set is the rows as a set to search: SearchWith rescores its candidates
// from the float32 vectors the index holds.
func (r *Rows) Set(dim int) (*Set, error) {
	return NewQuantizedSet(dim, r.Pad, r.Q8, r.Scale, r.ErrNorm, r.Norm, r.MaxHatNorm)
}

// State is the state the file was written for.
func (f *File) State() State { return f.state }

// Size is the file's size in bytes.
func (f *File) Size() int64 { return f.size }

// Rows returns a surface's rows (none for an unknown surface).
func (f *File) Rows(surface string) *Rows {
	if r, ok := f.surfaces[surface]; ok {
		return r
	}
	return &Rows{Pad: f.pad}
}

// Close unmaps the file. Slices taken from it must no longer be used.
func (f *File) Close() error {
	if f == nil || f.closed {
		return nil
	}
	f.closed = true
	f.surfaces = nil
	if f.unmap == nil {
		return nil
	}
	return f.unmap()
}

// header is a parsed header.
type header struct {
	dim, pad              int
	size                  int64
	token, version, model string
	surfaces              []surfaceHeader
}

type surfaceHeader struct {
	name   string
	rows   int
	maxHat float32
	off    [vfArrays]int64
	sum    [vfArrays]uint64
}

// arrayLen is the byte length of array a of s.
func (h *header) arrayLen(s *surfaceHeader, a int) int64 {
	if a == arrQ8 {
		return int64(s.rows) * int64(h.pad)
	}
	return int64(s.rows) * int64(vfElemSize[a])
}

func (h *header) encode() ([]byte, error) {
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
	return fmt.Errorf("%w: %s", ErrFileDamaged, fmt.Sprintf(format, a...))
}

// parseHeader checks the header's magic, checksum and the layout it
// describes against fileSize.
func parseHeader(b []byte, fileSize int64) (*header, error) {
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
		return nil, fmt.Errorf("%w: format %d, this viberag reads %d", ErrFileStale, v, vfFormat)
	}
	h := &header{dim: int(r.u32()), pad: int(r.u32())}
	ns := int(r.u32())
	h.size = int64(r.u64())
	h.token, h.version, h.model = r.str(), r.str(), r.str()
	if ns > len(fileSurfaces) {
		return nil, damaged("%d surfaces", ns)
	}
	for range ns {
		s := surfaceHeader{name: r.str(), rows: int(r.u64()), maxHat: r.f32()}
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
	if h.dim <= 0 || h.pad != PadDim(h.dim) {
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
func (h *header) matches(st State) string {
	switch {
	case st.Token == "" || h.token != st.Token:
		return "it was not written for this index's current vectors"
	case h.version != st.Version:
		return fmt.Sprintf("it holds vectors version %s, the index is at %s", h.version, st.Version)
	case h.model != st.Model:
		return fmt.Sprintf("it holds vectors of %s, the index's are of %s", h.model, st.Model)
	case h.dim != st.Dim:
		return fmt.Sprintf("its vectors have %d dimensions, the index's %d", h.dim, st.Dim)
	}
	return ""
}

// littleEndian reports whether this machine stores numbers as the file
// does, so that its arrays can be used in place.
func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// OpenFile maps the vector file at path, after checking that it holds the
// vectors of st (version, model, dimension and token) and that every
// checksum holds. Its error says why not: see IsFileProblem. The caller
// must Close it.
func OpenFile(path string, st State) (*File, error) {
	if st.Model == "" {
		return nil, fmt.Errorf("%w: the index has no vectors", ErrFileMissing)
	}
	if !littleEndian() {
		return nil, fmt.Errorf("%w: this machine is big-endian", ErrFileUnreadable)
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist", ErrFileMissing, filepath.Base(path))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFileUnreadable, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFileUnreadable, err)
	}
	if fi.Size() < vfHeaderSize {
		return nil, damaged("%d bytes, shorter than its header", fi.Size())
	}
	// The header first: a stale file is refused without mapping it.
	hb := make([]byte, vfHeaderSize)
	if _, err := f.ReadAt(hb, 0); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFileUnreadable, err)
	}
	h, err := parseHeader(hb, fi.Size())
	if err != nil {
		return nil, err
	}
	if why := h.matches(st); why != "" {
		return nil, fmt.Errorf("%w: %s", ErrFileStale, why)
	}
	data, unmap, err := mapFile(f, int(fi.Size()))
	if err != nil {
		return nil, fmt.Errorf("%w: map: %w", ErrFileUnreadable, err)
	}
	vf := &File{state: State{Version: h.version, Model: h.model, Dim: h.dim, Token: h.token}, pad: h.pad,
		size: fi.Size(), data: data, unmap: unmap, surfaces: map[string]*Rows{}}
	if err := vf.load(h); err != nil {
		vf.Close()
		return nil, err
	}
	return vf, nil
}

// load checks the arrays' checksums (re-reading the header from the
// mapping, which is what the arrays are read from) and makes the views.
func (vf *File) load(want *header) error {
	h, err := parseHeader(vf.data, vf.size)
	if err != nil {
		return err
	}
	if h.token != want.token {
		return fmt.Errorf("%w: replaced while being opened", ErrFileStale)
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
		vf.surfaces[s.name] = &Rows{
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
