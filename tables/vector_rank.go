package tables

import (
	"context"

	"github.com/viberag/viberag/scope"
)

// VectorRanker is a Reader whose engine finds a query's nearest vectors
// itself (a shared store with pgvector), so that a search need not load
// every vector of the repository. Package query uses it when
// RanksVectors says it can and loads the vectors (ScanVectors) otherwise;
// either way it ranks exactly as a scan of every vector would.
type VectorRanker interface {
	// RanksVectors reports whether NearestVectors sees every vector of
	// model (false: some vector could be missed, and the caller must
	// scan).
	RanksVectors(ctx context.Context, model string) (bool, error)
	// VectorCounts returns how many rows (chunks, symbols, files) may
	// have a vector and how many have one of model and dim: a scan of
	// every vector counts the same.
	VectorCounts(ctx context.Context, model string, dim int) (rows, with int, err error)
	// NearestVectors returns the rows of surface with a vector of model
	// and dim whose row of table t is in scope s (s zero: every row), and
	// whose dot product with q may be among the k best: a superset of
	// the true k best (every row whose engine score is within float32
	// rounding of the k-th), each with its vector, in ScanVectors order.
	// The caller scores them itself, so ties and rounding rank as a scan
	// of every vector ranks them.
	NearestVectors(ctx context.Context, model string, dim int, surface string, q []float32, k int, t scope.Table, s scope.Scope) ([]NearVector, error)
}

// NearVector is a row NearestVectors found: its unit (Chunk for the code
// surface, Symbol for summary, File for file; Row unset) and its vector.
type NearVector struct {
	Unit VectorFileUnit
	Vec  []float32
}
