package tables

import (
	"context"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"
)

// Reader is the read side of one repository's index: what package query
// reads, and all it reads. IndexReader (an SQLite index file, DB.Reader)
// implements it, and so does tables/postgres's view of one repository in
// a shared store, so the same planner runs over either engine. The
// methods' contracts are IndexReader's (read_*.go): full-text searches
// take a fulltext.Query over the columns TextColumns names, scores are
// bm25 negated (higher is better), every method applies its scope
// itself, and row ids (SymbolRow.ID, ChunkRow.ID, FileRow.ID) are stable
// only until their file is re-written.
type Reader interface {
	// PrepareReads fails when the index cannot be searched (a missing
	// table, another schema); it reads no rows.
	PrepareReads(ctx context.Context) error

	// Ranked full-text channels.
	SearchChunks(ctx context.Context, q fulltext.Query, ws []float64, s scope.Scope, limit int) ([]ChunkRow, error)
	SimilarChunks(ctx context.Context, q fulltext.Query, s scope.Scope, limit int) ([]ChunkRow, error)
	SearchSymbols(ctx context.Context, q fulltext.Query, ws []float64, s scope.Scope, limit int) ([]SymbolRow, error)
	SearchFiles(ctx context.Context, q fulltext.Query, ws []float64, s scope.Scope, limit int) ([]FileRow, error)
	// Term statistics for pruning, of chunks or files: the rows, and the
	// rows matching each query.
	RowCount(ctx context.Context, t scope.Table) (int, error)
	MatchCounts(ctx context.Context, t scope.Table, qs []fulltext.Query) ([]int, error)
	// ChunkFiles: for each query, the files holding the chunks in scope
	// that match it, unranked (nil when more than limit chunks do).
	ChunkFiles(ctx context.Context, qs []fulltext.Query, s scope.Scope, limit int) ([][]int64, error)

	// Symbols by name and id.
	SymbolsNamed(ctx context.Context, n NameLookup, s scope.Scope) ([]SymbolRow, error)
	SymbolsMatching(ctx context.Context, q fulltext.Query, s scope.Scope) ([]SymbolRow, error)
	SymbolBySID(ctx context.Context, sid string) (SymbolRow, bool, error)
	// SymbolDecls reads the signature and doc of symbols by row id, for
	// the hits a search shows (a SymbolRow has neither).
	SymbolDecls(ctx context.Context, ids []int64) (map[int64]SymbolDecl, error)
	SymbolNames(ctx context.Context) ([]string, error)
	SymbolInfo(ctx context.Context, sid string) (SymbolInfo, bool, error)
	SymbolChildren(ctx context.Context, sid string) ([]SymbolSpan, error)
	Neighbours(ctx context.Context, id, path string, line int) (*Neighbours, error)

	// References.
	RefsNamed(ctx context.Context, name string, s scope.Scope) ([]RefRow, error)

	// Files and chunk text.
	FileList(ctx context.Context) ([]FileRow, error)
	InScope(ctx context.Context, t scope.Table, s scope.Scope) (map[int64]bool, error)
	IndexedFile(ctx context.Context, path string) (hash, skipped string, err error)
	FileDoc(ctx context.Context, fileID int64) (doc, summary string, ok bool, err error)
	FileLines(ctx context.Context, fileID int64, from, to int) ([]string, error)
	ChunksContaining(ctx context.Context, text string, s scope.Scope, fn func(*ChunkText) bool) error
	ChunkContents(ctx context.Context, ids []int64) (map[int64]string, error)

	// Fingerprint returns a string that changes whenever the rows of t
	// (files, symbols or chunks) do, for the planner's caches.
	Fingerprint(ctx context.Context, t scope.Table) (string, error)

	// VectorReader reads the repository's vectors.
	VectorReader() VectorReader
}

// NameLookup is the question SymbolsNamed answers: up to 500 symbols
// named Name, ignoring ASCII case; with Prefix, up to 200 whose name
// starts with Name (ignoring ASCII case) and is not Name itself, shortest
// first; with Any set, up to 500 whose name, lower-cased (ASCII), is one
// of Any (none when it is empty).
type NameLookup struct {
	Name   string
	Prefix bool
	Any    []string
}

// IndexReader is the Reader of an index file (DB.Reader). It keeps, for
// the searches of every goroutine, the read statements prepared, the
// word indexes' decoded segments and blocks, the texts of recently read
// files and the decoders of stored blobs.
type IndexReader struct {
	db     *DB
	stmts  readStmts  // prepared read statements, see read_stmts.go
	words  wordCache  // decoded word segments, see words_read.go
	texts  *textCache // see textcache.go
	codecs codecs     // see sources.go
}

var _ Reader = (*IndexReader)(nil)
