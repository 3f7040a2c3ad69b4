package tables

import (
	"context"
	"database/sql"
	"fmt"
)

// FileBM25 is a throwaway in-memory full-text index of whole files, ranked
// by FTS5's bm25 with its default tokenizer: the plain baseline the broad
// benchmark compares viberag with (viberag eval --ranker bm25-files). It
// is not an index of the repository; nothing reads it but that baseline.
type FileBM25 struct {
	db *sql.DB
}

// FileHit is a file FileBM25.Search found.
type FileHit struct {
	Path  string
	Lines int
}

// NewFileBM25 returns an empty in-memory index.
func NewFileBM25(ctx context.Context) (*FileBM25, error) {
	db := sql.OpenDB(&connector{drv: sqliteDriver(), dsn: ":memory:"})
	db.SetMaxOpenConns(1) // one connection: one in-memory database
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE files USING fts5(path UNINDEXED, lines UNINDEXED, body)`); err != nil {
		db.Close()
		return nil, fmt.Errorf("file bm25: %w", err)
	}
	return &FileBM25{db: db}, nil
}

// Add indexes one file's whole content.
func (f *FileBM25) Add(ctx context.Context, path string, lines int, body string) error {
	if _, err := f.db.ExecContext(ctx, `INSERT INTO files(path, lines, body) VALUES (?, ?, ?)`, path, lines, body); err != nil {
		return fmt.Errorf("file bm25 %s: %w", path, err)
	}
	return nil
}

// Search returns the k best files for an FTS5 MATCH expression.
func (f *FileBM25) Search(ctx context.Context, match string, k int) ([]FileHit, error) {
	rows, err := f.db.QueryContext(ctx, `SELECT path, lines FROM files WHERE files MATCH ? ORDER BY bm25(files) LIMIT ?`, match, k)
	if err != nil {
		return nil, fmt.Errorf("file bm25 query %q: %w", match, err)
	}
	defer rows.Close()
	var hits []FileHit
	for rows.Next() {
		var h FileHit
		if err := rows.Scan(&h.Path, &h.Lines); err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// Close frees the index.
func (f *FileBM25) Close() error { return f.db.Close() }
