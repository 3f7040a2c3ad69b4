package tables

import (
	"context"
	"database/sql"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"

	_ "modernc.org/sqlite" // the oracle: SQLite's FTS5, in a test-only module
)

// fixtureFiles extracts every source fixture of the repository (not the
// golden files), with edit appended to each text.
func fixtureFiles(t *testing.T, edit string) []*extract.File {
	t.Helper()
	root := filepath.Join("..", "fixtures")
	var files []*extract.File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "golden" {
				return filepath.SkipDir
			}
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		f, err := extract.Extract(context.Background(), filepath.ToSlash(rel), append(src, edit...), extract.Options{})
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("only %d fixture files found", len(files))
	}
	return files
}

// ftsReference keeps, beside an index, contentless FTS5 tables holding the
// same rows under the same ids: what the word indexes must rank as. FTS5
// comes from the test-only module modernc.org/sqlite (driver "sqlite").
type ftsReference struct {
	t  *testing.T
	db *DB
	sq *sql.DB
	fb *FactBuilder
}

func newFTSReference(t *testing.T, db *DB) *ftsReference {
	sq, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "fts5.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close() })
	for _, q := range []string{
		`CREATE VIRTUAL TABLE symbols_fts USING fts5(name, qualname, signature, doc, ident_parts,
			content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE chunks_fts USING fts5(header, content, ident_parts, strings,
			content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE files_fts USING fts5(path, summary,
			content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`,
	} {
		if _, err := sq.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return &ftsReference{t: t, db: db, sq: sq, fb: NewFactBuilder()}
}

// write writes files and deletes deleted in the index, and does the same
// to the FTS5 tables.
func (r *ftsReference) write(files []*extract.File, deleted []string) {
	t := r.t
	t.Helper()
	var gone []string
	for _, f := range files {
		gone = append(gone, f.Path)
	}
	gone = append(gone, deleted...)
	for _, p := range gone {
		for _, ix := range wordIndexes {
			ids := queryInts(t, r.db, `SELECT `+ix.row+` FROM `+ix.base+` WHERE `+ix.file+` = (SELECT id FROM files WHERE path = ?)`, p)
			for _, id := range ids {
				if _, err := r.sq.Exec(`DELETE FROM `+ix.base+`_fts WHERE rowid = ?`, id); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	mustWrite(t, r.db, files, deleted)
	for _, f := range files {
		// The file, as the view files_summary spells it.
		var row int64
		var path, summary string
		if err := r.db.r.QueryRow(`SELECT f.word_row, s.path, s.summary FROM files f JOIN files_summary s ON s.id = f.id WHERE f.path = ?`, f.Path).Scan(&row, &path, &summary); err != nil {
			t.Fatal(err)
		}
		if _, err := r.sq.Exec(`INSERT INTO files_fts(rowid, path, summary) VALUES (?, ?, ?)`, row, path, summary); err != nil {
			t.Fatal(err)
		}
		rows := r.fb.Build(f)
		ids := queryInts(t, r.db, `SELECT id FROM symbols WHERE file_id = (SELECT id FROM files WHERE path = ?) ORDER BY id`, f.Path)
		if len(ids) != len(rows.Symbols) {
			t.Fatalf("%s: %d symbols stored, %d built", f.Path, len(ids), len(rows.Symbols))
		}
		for i, s := range rows.Symbols {
			if _, err := r.sq.Exec(`INSERT INTO symbols_fts(rowid, name, qualname, signature, doc, ident_parts) VALUES (?, ?, ?, ?, ?, ?)`,
				ids[i], s.Name, s.Qualname, s.Signature, s.Doc, s.IdentParts); err != nil {
				t.Fatal(err)
			}
		}
		ids = queryInts(t, r.db, `SELECT id FROM chunks WHERE file_id = (SELECT id FROM files WHERE path = ?) ORDER BY id`, f.Path)
		if len(ids) != len(rows.Chunks) {
			t.Fatalf("%s: %d chunks stored, %d built", f.Path, len(ids), len(rows.Chunks))
		}
		for i, c := range rows.Chunks {
			if _, err := r.sq.Exec(`INSERT INTO chunks_fts(rowid, header, content, ident_parts, strings) VALUES (?, ?, ?, ?, ?)`,
				ids[i], c.Header, c.Content, c.IdentParts, c.Strings); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// scores returns -bm25 of every row of table (symbols_fts, chunks_fts or
// files_fts) matching q, by id (a file's word row).
func (r *ftsReference) scores(table string, q fulltext.Query, ws []float64) map[int64]float64 {
	r.t.Helper()
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(ws)), ", ")
	args := []any{}
	for _, w := range ws {
		args = append(args, w)
	}
	rows, err := r.sq.Query(`SELECT rowid, -bm25(`+table+`, `+marks+`) FROM `+table+` WHERE `+table+` MATCH ?`, append(args, q.String())...)
	if err != nil {
		r.t.Fatalf("%s MATCH %s: %v", table, q, err)
	}
	defer rows.Close()
	out := map[int64]float64{}
	for rows.Next() {
		var id int64
		var sc float64
		if err := rows.Scan(&id, &sc); err != nil {
			r.t.Fatal(err)
		}
		out[id] = sc
	}
	return out
}

// wordQueries returns queries of the kinds the planner builds, over the
// words of the rows: single words, prefixes, phrases of adjacent words
// (as `res.send` or `max_retries` make them), AND, OR and column limits.
func wordQueries(t *testing.T, texts []string, cols []string, n int) []fulltext.Query {
	r := rand.New(rand.NewPCG(7, 8))
	var words []string
	var pairs []string
	seen := map[string]bool{}
	for _, text := range texts {
		toks := fulltext.Tokenize(text)
		for i, w := range toks {
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
			if i > 0 && r.IntN(40) == 0 {
				pairs = append(pairs, toks[i-1]+"."+w)
			}
		}
	}
	slices.Sort(words)
	if len(words) < 100 || len(pairs) < 20 {
		t.Fatalf("%d words, %d pairs: the fixtures changed", len(words), len(pairs))
	}
	q := fulltext.Term
	term := func() fulltext.Query {
		switch r.IntN(6) {
		case 0:
			return q(pairs[r.IntN(len(pairs))])
		case 1:
			w := words[r.IntN(len(words))]
			if len(w) > 2 {
				w = w[:2+r.IntN(len(w)-2)]
			}
			return fulltext.Prefix(w)
		case 2:
			return in(cols[r.IntN(len(cols))], q(words[r.IntN(len(words))]))
		case 3:
			return fulltext.In([]string{cols[0], cols[len(cols)-1]}, q(words[r.IntN(len(words))]))
		default:
			return q(words[r.IntN(len(words))])
		}
	}
	var out []fulltext.Query
	for _, w := range []string{"func", "return", "self", "max_retries", "res.send", "no-such-word-anywhere"} {
		out = append(out, q(w))
	}
	for len(out) < n {
		switch r.IntN(4) {
		case 0:
			out = append(out, term())
		case 1:
			out = append(out, fulltext.Or(term(), term(), term()))
		case 2:
			out = append(out, fulltext.And(term(), term()))
		default:
			out = append(out, fulltext.And(fulltext.Or(term(), term()), fulltext.Or(term(), term())))
		}
	}
	return out
}

// TestWordsRankAsFTS5 writes the fixtures in several batches, re-writes a
// third of them, deletes some and writes more (merging segments, leaving
// dead rows), and requires every search of symbols, chunks and files to
// find the rows FTS5's contentless_delete tables find for the same rows,
// with the same bm25 scores (bit for bit) and ranked lists; then the same
// after CompactFTS.
func TestWordsRankAsFTS5(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	ref := newFTSReference(t, db)
	files := fixtureFiles(t, "")
	for i := 0; i < len(files); i += 7 {
		ref.write(files[i:min(i+7, len(files))], nil)
	}
	edited := fixtureFiles(t, "\n// edited: parse the request again\n")
	var third []*extract.File
	for i := 0; i < len(edited); i += 3 {
		third = append(third, edited[i])
	}
	ref.write(third[:len(third)/2], nil)
	var deleted []string
	for i := 1; i < len(files); i += 5 {
		deleted = append(deleted, files[i].Path)
	}
	ref.write(nil, deleted)
	ref.write(third[len(third)/2:], nil)
	// Some back, as new rows.
	ref.write([]*extract.File{files[1], files[6]}, nil)
	checkIntegrity(t, db)
	if n := queryInt(t, db, `SELECT count(*) FROM chunk_word_live WHERE dead <> x''`); n == 0 {
		t.Fatal("no segment has dead rows: the test needs them")
	}

	var chunkTexts, summaries []string
	for _, f := range files {
		for _, c := range f.Chunks {
			chunkTexts = append(chunkTexts, c.Text)
		}
		summaries = append(summaries, f.Summary, f.Summary, f.Summary) // pairs enough
	}
	chunkQs := wordQueries(t, chunkTexts, chunkWords.cols, 300)
	symbolQs := wordQueries(t, chunkTexts, symbolWords.cols, 300)
	fileQs := wordQueries(t, summaries, fileWords.cols, 300)
	// File ids and their word rows, which FTS5's rows are numbered by.
	wordRow := map[int64]int64{}
	ids, rows := queryInts(t, db, `SELECT id FROM files ORDER BY id`), queryInts(t, db, `SELECT word_row FROM files ORDER BY id`)
	for i, id := range ids {
		wordRow[id] = rows[i]
	}
	compare := func(stage string) {
		for _, tc := range []struct {
			ix      *wordIndex
			qs      []fulltext.Query
			weights [][]float64
		}{
			{chunkWords, chunkQs, [][]float64{{2, 1, 1, 0.5}, similarWeights, {1, 1, 1, 1}}},
			{symbolWords, symbolQs, [][]float64{{4, 2, 1, 0.5, 1}, {0, 0, 0, 1, 0}}},
			{fileWords, fileQs, [][]float64{{2, 1}, {1, 1}}},
		} {
			matched, total := 0, 0
			for _, expr := range tc.qs {
				for _, ws := range tc.weights {
					want := ref.scores(tc.ix.base+"_fts", expr, ws)
					type hit struct {
						id          int64
						path        string
						line        int
						score, want float64
					}
					var got []hit
					switch tc.ix {
					case chunkWords:
						rows, err := db.Reader().SearchChunks(ctx, expr, ws, scope.Scope{}, 1<<20)
						if err != nil {
							t.Fatalf("%s: SearchChunks(%q): %v", stage, expr, err)
						}
						for _, r := range rows {
							got = append(got, hit{r.ID, r.Path, r.StartLine, r.Score, want[r.ID]})
						}
					case fileWords:
						rows, err := db.Reader().SearchFiles(ctx, expr, ws, scope.Scope{}, 1<<20)
						if err != nil {
							t.Fatalf("%s: SearchFiles(%q): %v", stage, expr, err)
						}
						for _, r := range rows {
							got = append(got, hit{wordRow[r.ID], r.Path, 0, r.Score, want[wordRow[r.ID]]})
						}
					default:
						rows, err := db.Reader().SearchSymbols(ctx, expr, ws, scope.Scope{}, 1<<20)
						if err != nil {
							t.Fatalf("%s: SearchSymbols(%q): %v", stage, expr, err)
						}
						for _, r := range rows {
							got = append(got, hit{r.ID, r.Path, r.StartLine, r.Score, want[r.ID]})
						}
					}
					if len(got) != len(want) {
						t.Errorf("%s: %s %q weights %v: %d rows, FTS5 %d", stage, tc.ix.words(), expr, ws, len(got), len(want))
						continue
					}
					if len(got) > 0 {
						matched++
					}
					for _, h := range got {
						total++
						w, ok := want[h.id]
						// Bit for bit: FTS5's arithmetic in FTS5's order, its
						// logarithm (fts5.Log).
						if !ok || h.score != w {
							t.Errorf("%s: %s %q weights %v: row %d scores %v, FTS5 %v (%v)", stage, tc.ix.words(), expr, ws, h.id, h.score, w, ok)
							break
						}
					}
					// The ranked list FTS5's scores give, ties by path and
					// line as the readers break them.
					wantOrder := slices.Clone(got)
					slices.SortFunc(wantOrder, func(a, b hit) int { return byScore(a.want, b.want, a.path, b.path, a.line, b.line, a.id, b.id) })
					for i := range got {
						if got[i].id != wantOrder[i].id {
							t.Errorf("%s: %s %q weights %v: rank %d is row %d, FTS5's scores put %d there", stage, tc.ix.words(), expr, ws, i, got[i].id, wantOrder[i].id)
							break
						}
					}
				}
				// Counts and unranked matches.
				var n int
				if err := ref.sq.QueryRow(`SELECT count(*) FROM `+tc.ix.base+`_fts WHERE `+tc.ix.base+`_fts MATCH ?`, expr.String()).Scan(&n); err != nil {
					t.Fatal(err)
				}
				switch tc.ix {
				case chunkWords, fileWords:
					tbl := map[*wordIndex]scope.Table{chunkWords: scope.Chunks, fileWords: scope.Files}[tc.ix]
					if got, err := db.Reader().MatchCounts(ctx, tbl, []fulltext.Query{expr}); err != nil || got[0] != n {
						t.Errorf("%s: MatchCounts(%s, %q) = %v, %v; FTS5 %d", stage, tbl, expr, got, err, n)
					}
				default:
					rows, err := db.Reader().SymbolsMatching(ctx, expr, scope.Scope{})
					if err != nil {
						t.Fatal(err)
					}
					if len(rows) != min(n, 200) {
						t.Errorf("%s: SymbolsMatching(%q): %d rows, FTS5 %d", stage, expr, len(rows), n)
					}
				}
			}
			if matched < len(tc.qs)/2 {
				t.Errorf("%s: %s: only %d of %d queries match anything", stage, tc.ix.words(), matched, len(tc.qs))
			}
			t.Logf("%s: %s: %d queries with matches, %d scores, all equal to FTS5's", stage, tc.ix.words(), matched, total)
		}
	}
	compare("after re-writes and deletes")
	if err := db.Writer().CompactFTS(ctx); err != nil {
		t.Fatal(err)
	}
	checkIntegrity(t, db)
	compare("after CompactFTS")
}
