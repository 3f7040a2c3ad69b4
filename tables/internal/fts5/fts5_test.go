package fts5_test

import (
	"database/sql"
	"testing"

	"github.com/viberag/viberag/tables/internal/fts5"
)

// TestVersionsAgree: the linked SQLite is the release the vendored FTS5
// comes from. After an update of github.com/mattn/go-sqlite3 this fails
// until vendor.sh has been run.
func TestVersionsAgree(t *testing.T) {
	db := open(t)
	var v string
	if err := db.QueryRow(`SELECT sqlite_version()`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != fts5.SQLiteVersion {
		t.Fatalf("linked SQLite is %s, the vendored FTS5 is from %s: run tables/internal/fts5/vendor.sh", v, fts5.SQLiteVersion)
	}
}

// TestFTS5 uses what the index uses: unicode61 with bm25, and the trigram
// tokenizer with detail=none, on every new connection.
func TestFTS5(t *testing.T) {
	db := open(t)
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE words USING fts5(body, tokenize='unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE tri USING fts5(body, tokenize='trigram', detail=none)`,
		`INSERT INTO words(rowid, body) VALUES (1, 'connection reset by peer'), (2, 'reset the parser'), (3, 'nothing here')`,
		`INSERT INTO tri(rowid, body) SELECT rowid, body FROM words`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, tc := range []struct {
		query string
		want  []int64
	}{
		{`SELECT rowid FROM words WHERE words MATCH 'reset' ORDER BY bm25(words), rowid`, []int64{2, 1}},
		{`SELECT rowid FROM tri WHERE tri MATCH '"res" AND "ese" AND "set"' ORDER BY rowid`, []int64{1, 2}},
		{`SELECT rowid FROM tri WHERE tri MATCH '"PEE" AND "eer"' ORDER BY rowid`, []int64{1}},
	} {
		rows, err := db.Query(tc.query)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		var got []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			got = append(got, id)
		}
		rows.Close()
		if len(got) != len(tc.want) || (len(got) > 0 && (got[0] != tc.want[0] || got[len(got)-1] != tc.want[len(tc.want)-1])) {
			t.Errorf("%s = %v; want %v", tc.query, got, tc.want)
		}
	}
	var ok int
	if err := db.QueryRow(`SELECT count(*) FROM pragma_module_list WHERE name IN ('fts5', 'fts5vocab')`).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	if ok != 2 {
		t.Errorf("modules fts5 and fts5vocab: %d registered; want 2", ok)
	}
}

func open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
