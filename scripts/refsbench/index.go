package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"

	_ "github.com/mattn/go-sqlite3"
)

// symbol is one definition as the viberag index holds it.
type symbol struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Qualname  string `json:"qualname"`
	Path      string `json:"path"`
	Language  string `json:"-"`
	StartLine int    `json:"start_line"`
	StartByte int    `json:"-"`
	EndByte   int    `json:"-"`
}

// indexFacts is what the harness reads from one viberag index: every
// symbol and the language of every indexed file.
type indexFacts struct {
	Symbols []symbol
	Files   map[string]string // path → language
}

// readIndex reads the symbols and files of the index at dbPath, read-only.
// It reads the tables directly because no viberag command lists every
// symbol; only columns that every schema so far has are used.
func readIndex(ctx context.Context, dbPath string) (*indexFacts, error) {
	db, err := sql.Open("sqlite3", "file:"+url.PathEscape(dbPath)+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	facts := &indexFacts{Files: map[string]string{}}
	rows, err := db.QueryContext(ctx, `SELECT path, language FROM files`)
	if err != nil {
		return nil, fmt.Errorf("reading files of %s: %w", dbPath, err)
	}
	for rows.Next() {
		var p, lang string
		if err := rows.Scan(&p, &lang); err != nil {
			rows.Close()
			return nil, err
		}
		facts.Files[p] = lang
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = db.QueryContext(ctx, `SELECT printf('s%016x', s.sid), s.kind, s.name, s.qualname, f.path, f.language,
		s.start_line, s.start_byte, s.end_byte FROM symbols s JOIN files f ON f.id = s.file_id`)
	if err != nil {
		return nil, fmt.Errorf("reading symbols of %s: %w", dbPath, err)
	}
	defer rows.Close()
	for rows.Next() {
		var s symbol
		if err := rows.Scan(&s.ID, &s.Kind, &s.Name, &s.Qualname, &s.Path, &s.Language, &s.StartLine, &s.StartByte, &s.EndByte); err != nil {
			return nil, err
		}
		facts.Symbols = append(facts.Symbols, s)
	}
	return facts, rows.Err()
}
