package tables

import (
	"context"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/vectors"
)

// VectorReader is the read side of one repository's vectors, what a
// search reads of them (Reader.VectorReader): *VectorStore (an SQLite
// index) implements it, and so does tables/postgres's view of one
// repository in a shared store. Either may offer more, which package
// query looks for: a vector file to map (VectorFileReader) or a ranking
// of its own (VectorRanker).
type VectorReader interface {
	// Version returns a key that changes whenever the vectors may have,
	// so that a reader holding them knows when to read them again.
	Version(ctx context.Context) (string, error)
	// Model returns the model that embedded the vectors ("" when none).
	Model(ctx context.Context) (string, error)
	// Dim returns the dimension of model's vectors, 0 when there are none.
	Dim(ctx context.Context, model string) (int, error)
	// ChunkRows and SymbolRows call fn with every chunk and symbol (their
	// Score and a chunk's Identifiers unset): the units vectors describe.
	ChunkRows(ctx context.Context, fn func(ChunkRow)) error
	SymbolRows(ctx context.Context, fn func(SymbolRow)) error
	// Scan calls fn with the owner, surface and blob (vectors.Decode) of
	// every vector of model and dimension dim, in an order that does not
	// change while the vectors do not (ties in a search break by it). The
	// blob is only valid during the call.
	Scan(ctx context.Context, model string, dim int, fn func(owner, surface string, blob []byte)) error
}

// VectorFileReader is a VectorReader whose vectors a search can read from
// a vector file (*VectorStore). Package query maps the file when it can
// and loads the vectors (VectorReader.Scan) otherwise.
type VectorFileReader interface {
	VectorReader
	// OpenFile maps the index's vector file after checking that it holds
	// the index's current vectors; its error says why not (see
	// vectors.IsFileProblem). The caller must Close it.
	OpenFile(ctx context.Context) (*vectors.File, error)
	// FileVectors reads the float32 vectors of rows of a surface of vf
	// and calls fn with each (i indexes rows; vec is valid only during
	// the call).
	FileVectors(ctx context.Context, vf *vectors.File, surface string, rows []int, fn func(i int, vec []float32)) error
	// FileUnits reads the units of rows of a surface of vf, in the order
	// asked.
	FileUnits(ctx context.Context, vf *vectors.File, surface string, rows []int) ([]VectorFileUnit, error)
	// UnitCounts returns, per surface, how many rows can have a vector.
	UnitCounts(ctx context.Context) (map[string]int, error)
}

// VectorFileUnit is the unit a row of a vector file describes: Chunk for
// the code surface, Symbol for summary, File for file (Score unset).
type VectorFileUnit struct {
	Row    int // the row in the file
	Chunk  ChunkRow
	Symbol SymbolRow
	File   FileRow
}

// VectorRanker is a VectorReader whose engine finds a query's nearest
// vectors itself (a shared store with pgvector), so that a search need not
// load every vector of the repository. Package query uses it when Ranks
// says it can and loads the vectors (VectorReader.Scan) otherwise; either
// way it ranks exactly as a scan of every vector would.
type VectorRanker interface {
	VectorReader
	// Ranks reports whether Nearest sees every vector of model (false:
	// some vector could be missed, and the caller must scan).
	Ranks(ctx context.Context, model string) (bool, error)
	// Coverage returns how many rows (chunks, symbols, files) may have a
	// vector and how many have one of model and dim: a scan of every
	// vector counts the same.
	Coverage(ctx context.Context, model string, dim int) (rows, with int, err error)
	// Nearest returns the rows of surface with a vector of model and dim
	// whose row of table t is in scope s (s zero: every row), and whose
	// dot product with q may be among the k best: a superset of the true k
	// best (every row whose engine score is within float32 rounding of the
	// k-th), each with its vector, in Scan order. The caller scores them
	// itself, so ties and rounding rank as a scan of every vector ranks
	// them.
	Nearest(ctx context.Context, model string, dim int, surface string, q []float32, k int, t scope.Table, s scope.Scope) ([]NearVector, error)
}

// NearVector is a row Nearest found: its unit (Chunk for the code
// surface, Symbol for summary, File for file; Row unset) and its vector.
type NearVector struct {
	Unit VectorFileUnit
	Vec  []float32
}
