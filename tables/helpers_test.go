package tables

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/tables/fulltext"
	"github.com/viberag/viberag/tables/postings"
)

// openTest opens a fresh index in a temporary directory.
func openTest(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "idx", "index.db"), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustWrite(t testing.TB, db *DB, files []*extract.File, deleted []string) {
	t.Helper()
	if err := db.Writer().Write(context.Background(), files, deleted); err != nil {
		t.Fatal(err)
	}
}

// queryInt runs a one-value query on the reader pool.
// docsEnding counts the symbols matching the condition where whose doc
// (sources.decls, SymbolDecls) ends in suffix.
func docsEnding(t testing.TB, db *DB, where, suffix string) int {
	t.Helper()
	decls, err := db.Reader().SymbolDecls(context.Background(), queryInts(t, db, `SELECT id FROM symbols WHERE `+where))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range decls {
		if strings.HasSuffix(d.Doc, suffix) {
			n++
		}
	}
	return n
}

func queryInt(t testing.TB, db *DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.SQL().QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// trigramPaths returns the paths of the files the trigram index finds
// for text, sorted.
func trigramPaths(t testing.TB, db *DB, text string) []string {
	t.Helper()
	ids, ok, err := trigramCandidates(context.Background(), db, text)
	if err != nil || !ok {
		t.Fatalf("trigram candidates of %q: ok %v, %v", text, ok, err)
	}
	var out []string
	for _, id := range ids {
		out = append(out, queryStrings(t, db, `SELECT path FROM files WHERE id = ?`, id)...)
	}
	slices.Sort(out)
	return out
}

// checkTrigrams fails t unless the trigram index holds exactly the
// trigrams of every file's stored text, each in the file's segment; it
// returns the number of stale (trigram, file) pairs, those in another
// segment.
func checkTrigrams(t testing.TB, db *DB) (stale int) {
	t.Helper()
	type key struct {
		tri uint32
		id  int64
	}
	if !db.trigram.Load() {
		if n := queryInt(t, db, `SELECT count(*) FROM sqlite_schema WHERE name LIKE 'trigram%'`); n != 0 {
			t.Errorf("an index without the trigram index has %d of its tables", n)
		}
		return 0
	}
	want := map[key]bool{}
	set := postings.NewTrigramSet()
	for _, id := range queryInts(t, db, `SELECT id FROM files`) {
		var blob []byte
		if err := db.SQL().QueryRow(`SELECT text FROM sources WHERE id = ?`, id).Scan(&blob); err != nil {
			t.Fatal(err)
		}
		text, err := decompress(blob)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range set.Of(text) {
			want[key{k, id}] = true
		}
	}
	cur := map[int64]int64{}
	rows, err := db.SQL().Query(`SELECT id, seg FROM trigram_files`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, seg int64
		if err := rows.Scan(&id, &seg); err != nil {
			t.Fatal(err)
		}
		cur[id] = seg
	}
	rows.Close()
	got := map[key]bool{}
	rows, err = db.SQL().Query(`SELECT id, ids FROM trigrams ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var entries []postings.TrigramEntry
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			t.Fatal(err)
		}
		seg := id >> triSegShift
		if entries, err = postings.ParseTrigramBlock(b, uint32(id&(1<<triSegShift-1)), entries); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			ids, err := postings.DecodeTrigramPosting(nil, b[e.Start:e.End])
			if err != nil {
				t.Fatal(err)
			}
			if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
				t.Fatalf("segment %d trigram %06x: ids %v not ascending", seg, e.Tri, ids)
			}
			for _, f := range ids {
				if cur[int64(f)] == seg {
					got[key{e.Tri, int64(f)}] = true
				} else {
					stale++
				}
			}
		}
	}
	if !maps.Equal(got, want) {
		missing, extra := 0, 0
		for k := range want {
			if !got[k] {
				missing++
			}
		}
		for k := range got {
			if !want[k] {
				extra++
			}
		}
		t.Fatalf("trigram index: %d (trigram, file) pairs missing, %d extra, of %d", missing, extra, len(want))
	}
	return stale
}

func queryStrings(t testing.TB, db *DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.SQL().QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkIntegrity fails t unless Check passes and the trigram index and
// the reference keys list what the files hold.
func checkIntegrity(t testing.TB, db *DB) {
	t.Helper()
	if err := db.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	checkTrigrams(t, db)
	checkRefKeys(t, db)
}

// sampleFile is a small hand-made file exercising every column.
//
//	1  package srv
//	2
//	3  // Server answers requests.
//	4  type Server struct{}
//	5
//	6  // Handle serves one request.
//	7  @route @login_required
//	8  func (s *Server) Handle() {
//	9      u := getUserById(conn, MAX_RETRIES)
//	10     log("connection reset by peer")
//	11 }
//	12 func init() {}
//	13 func init() {}
func sampleFile(path string) *extract.File {
	const text1 = "package srv\n\n// Server answers requests.\ntype Server struct{}\n\n"
	const text2 = "// Handle serves one request.\n@route @login_required\nfunc (s *Server) Handle() {\n" +
		"\tu := getUserById(conn, MAX_RETRIES)\n\tlog(\"connection reset by peer\")\n}\n" +
		"func init() {}\nfunc init() {}\n"
	return &extract.File{
		Path: path, Ext: ".go", Language: "go", Size: int64(len(text1) + len(text2)), Lines: 13, Hash: 0xabc,
		Imports: []string{"fmt", "net/http"}, Exports: []string{"Server"},
		Doc: "Package srv serves.", Summary: path + "\nPackage srv serves.\nexports: Server\nimports: fmt net/http",
		ParseStatus: extract.ParseClean,
		Symbols: []extract.Symbol{
			{Kind: extract.KindStruct, Name: "Server", Qualname: "Server", Parent: -1,
				StartLine: 4, EndLine: 4, StartByte: 40, EndByte: 62,
				Signature: "type Server struct{}", Doc: "Server answers requests.", Exported: true, Hash: 1},
			{Kind: extract.KindMethod, Name: "Handle", Qualname: "Server.Handle", Parent: 0,
				StartLine: 7, EndLine: 11, StartByte: 100, EndByte: 190,
				Signature: "func (s *Server) Handle()", Doc: "Handle serves one request.", Exported: true,
				Decorators:  []string{"route", "login_required"},
				Identifiers: []string{"u", "getUserById", "conn", "MAX_RETRIES"},
				Calls:       []string{"getUserById", "log"},
				Strings:     []string{"connection reset by peer", "two\nlines"},
				Hash:        2},
			{Kind: extract.KindFunction, Name: "init", Qualname: "init", Parent: -1,
				StartLine: 12, EndLine: 12, StartByte: 192, EndByte: 206, Signature: "func init() {}", Hash: 3},
			{Kind: extract.KindFunction, Name: "init", Qualname: "init", Parent: -1,
				StartLine: 13, EndLine: 13, StartByte: 207, EndByte: 221, Signature: "func init() {}", Hash: 3},
		},
		Chunks: []extract.Chunk{
			{StartLine: 1, EndLine: 5, StartByte: 0, EndByte: len(text1), Symbol: -1,
				Header: path, Text: text1, Hash: 10},
			{StartLine: 6, EndLine: 13, StartByte: len(text1), EndByte: len(text1) + len(text2), Symbol: 1,
				Header:      path + " › Server › Handle",
				Text:        text2,
				Identifiers: []string{"getUserById", "conn"}, Calls: []string{"getUserById", "log"},
				Strings: []string{"connection reset by peer"}, Hash: 11},
		},
		Refs: []extract.Ref{
			{Kind: extract.RefImport, Name: "net/http", Target: "http", StartLine: 1, EndLine: 1, StartByte: 5, EndByte: 10},
			{Kind: extract.RefType, Name: "Server", StartLine: 8, EndLine: 8, StartByte: 110, EndByte: 116},
			{Kind: extract.RefCall, Name: "getUserById", StartLine: 9, EndLine: 9, StartByte: 130, EndByte: 141},
			{Kind: extract.RefIdent, Name: "conn", StartLine: 9, EndLine: 9, StartByte: 142, EndByte: 146},
			{Kind: extract.RefIdent, Name: "conn", StartLine: 9, EndLine: 9, StartByte: 150, EndByte: 154}, // duplicate on the line
			{Kind: extract.RefIdent, Name: "MAX_RETRIES", StartLine: 9, EndLine: 9, StartByte: 156, EndByte: 167},
			{Kind: extract.RefString, Name: "connection reset by peer", StartLine: 10, EndLine: 10, StartByte: 170, EndByte: 196},
			{Kind: extract.RefCall, Name: "Println", Target: "fmt.Println", StartLine: 12, EndLine: 12, StartByte: 200, EndByte: 205},
		},
	}
}

// vocabulary for synthetic files: code-like words.
var synthWords = strings.Fields(`user account request response handler server client conn
	buffer reader writer config option index query result error context cache store
	token parser symbol chunk file path name value count size limit retry timeout
	session manager service router route middleware logger metric event queue worker`)

// synthFile generates a realistic Go-like file: nFuncs functions of
// about 20 lines, each with its doc, a chunk, ~25 identifiers, calls,
// strings and refs for every use. gen is written into every text so that
// tests can tell generations apart.
func synthFile(path string, gen, nFuncs int) *extract.File {
	f := &extract.File{
		Path: path, Ext: ".go", Language: "go", ParseStatus: extract.ParseClean,
		Imports: []string{"context", "fmt", "strings", "example.com/pkg/store"},
		Doc:     fmt.Sprintf("Package synth is generation %d.", gen),
	}
	var src strings.Builder
	line := 1
	emit := func(s string) {
		src.WriteString(s)
		src.WriteByte('\n')
		line++
	}
	emit("package synth")
	emit("")
	for i, imp := range f.Imports {
		f.Refs = append(f.Refs, extract.Ref{Kind: extract.RefImport, Name: imp, StartLine: line, EndLine: line,
			StartByte: src.Len(), EndByte: src.Len() + len(imp) + 2})
		emit(fmt.Sprintf("import %q // %d", imp, i))
	}
	f.Chunks = append(f.Chunks, extract.Chunk{StartLine: 1, EndLine: line - 1, EndByte: src.Len(), Symbol: -1,
		Header: path, Text: src.String(), Hash: uint64(gen)})

	word := func(k int) string { return synthWords[k%len(synthWords)] }
	for fn := range nFuncs {
		name := fmt.Sprintf("%s%s%d", strings.ToUpper(word(fn)[:1]), word(fn)[1:], fn)
		startLine, startByte := line, src.Len()
		chunkStart := src.Len()
		doc := fmt.Sprintf("%s handles the %s of a %s, generation %d.", name, word(fn+1), word(fn+2), gen)
		emit("// " + doc)
		sig := fmt.Sprintf("func %s(ctx context.Context, %s *%s) (%s, error) {", name, word(fn+3), word(fn+4), word(fn+5))
		emit(sig)
		sym := extract.Symbol{Kind: extract.KindFunction, Name: name, Qualname: "synth." + name, Parent: -1,
			StartLine: startLine, StartByte: startByte, Signature: sig, Doc: doc, Exported: true, Hash: uint64(gen*1000 + fn)}
		seen := map[string]bool{}
		for l := range 18 {
			a, b, c := word(fn*7+l), word(fn*3+l*5), word(fn+l*11)
			ida := a + strings.ToUpper(b[:1]) + b[1:]
			idb := "max_" + c
			call := "get" + strings.ToUpper(c[:1]) + c[1:]
			str := fmt.Sprintf("%s %s failed", a, c)
			text := fmt.Sprintf("\t%s := %s(%s, %s, %q)", ida, call, idb, ida, str)
			pos := src.Len()
			for _, id := range []string{ida, idb} {
				if !seen[id] {
					seen[id] = true
					sym.Identifiers = append(sym.Identifiers, id)
				}
				f.Refs = append(f.Refs, extract.Ref{Kind: extract.RefIdent, Name: id, StartLine: line, EndLine: line,
					StartByte: pos + 1, EndByte: pos + 1 + len(id)})
			}
			f.Refs = append(f.Refs, extract.Ref{Kind: extract.RefIdent, Name: ida, StartLine: line, EndLine: line,
				StartByte: pos + 20, EndByte: pos + 20 + len(ida)}) // second use on the line
			f.Refs = append(f.Refs,
				extract.Ref{Kind: extract.RefCall, Name: call, StartLine: line, EndLine: line, StartByte: pos + 10, EndByte: pos + 10 + len(call)},
				extract.Ref{Kind: extract.RefString, Name: str, StartLine: line, EndLine: line, StartByte: pos + 30, EndByte: pos + 32 + len(str)})
			if !seen["call:"+call] {
				seen["call:"+call] = true
				sym.Calls = append(sym.Calls, call)
			}
			if !seen["str:"+str] {
				seen["str:"+str] = true
				sym.Strings = append(sym.Strings, str)
			}
			emit(text)
		}
		emit("}")
		sym.EndLine, sym.EndByte = line-1, src.Len()
		f.Symbols = append(f.Symbols, sym)
		f.Exports = append(f.Exports, name)
		f.Chunks = append(f.Chunks, extract.Chunk{StartLine: startLine, EndLine: line - 1,
			StartByte: chunkStart, EndByte: src.Len(), Symbol: fn,
			Header: path + " › " + name, Text: src.String()[chunkStart:],
			Identifiers: sym.Identifiers, Calls: sym.Calls, Strings: sym.Strings, Hash: uint64(gen*1000 + fn)})
	}
	f.Lines = line - 1
	f.Size = int64(src.Len())
	f.Hash = xxhash.Sum64String(src.String())
	f.Summary = path + " " + f.Doc + " " + strings.Join(f.Exports, " ")
	return f
}

// identKey is an identifier use's name and line: the writer keeps one
// use per pair.
type identKey struct {
	name string
	line int
}

// rowCount is the number of rows a Write of f adds (file, symbols,
// chunks, refs after the identifier deduplication, string literals left
// out).
func rowCount(f *extract.File) int {
	n := 1 + len(f.Symbols) + len(f.Chunks)
	seen := map[identKey]bool{}
	for _, r := range f.Refs {
		if r.Kind == extract.RefString {
			continue
		}
		if r.Kind == extract.RefIdent {
			k := identKey{r.Name, r.StartLine}
			if seen[k] {
				continue
			}
			seen[k] = true
		}
		n++
	}
	return n
}

// refUses lists the uses stored in refs (of the file at path, or of all
// files when path is ""), unpacked, one "kind name lower-cased-name target
// line symbol_sid" per use, by row then line.
func refUses(t testing.TB, db *DB, path string) []string {
	t.Helper()
	sids := map[int64][]string{}
	rows, err := db.SQL().Query(`SELECT file_id, sid FROM symbols ORDER BY file_id, id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var sid string
		if err := rows.Scan(&id, sidOf(&sid)); err != nil {
			t.Fatal(err)
		}
		sids[id] = append(sids[id], sid)
	}
	rows.Close()
	// Every group's file must be listed under its keys: ref_keys on the
	// lower-cased name, ref_imports on an import's target (and, below,
	// nothing else may be listed).
	hasKey := func(q, key string, id int64) bool {
		var blob []byte
		err := db.SQL().QueryRow(q, key).Scan(&blob)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			t.Fatal(err)
		}
		ids, err := postings.DecodeIDs(nil, blob)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(ids, id)
	}
	if path == "" {
		checkRefKeys(t, db)
	}
	rows, err = db.SQL().Query(`SELECT r.id, r.n, r.groups FROM refs r JOIN files f ON f.id = r.id
		WHERE ?1 = '' OR f.path = ?1 ORDER BY r.id`, path)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		var total int
		var blob []byte
		if err := rows.Scan(&id, &total, &blob); err != nil {
			t.Fatal(err)
		}
		b, err := decompress(blob)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0
		var groups []storedGroup
		if err := eachRefGroup(b, func(g storedGroup) bool { groups = append(groups, g); return true }); err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			kind, err := refKindName(g.kind)
			if err != nil {
				t.Fatal(err)
			}
			lower := refNameKey(g.name)
			if !hasKey(`SELECT files FROM ref_keys WHERE key = ?`, lower, id) {
				t.Errorf("file %d: ref_keys has no %q", id, lower)
			}
			if kind == "import" && g.target != "" && !hasKey(`SELECT files FROM ref_imports WHERE target = ?`, g.target, id) {
				t.Errorf("file %d: ref_imports has no %q", id, g.target)
			}
			uses, err := unpackUses(nil, g.uses(), g.n)
			if err != nil {
				t.Fatal(err)
			}
			sum += len(uses)
			for _, u := range uses {
				sid := ""
				if u.encl > 0 {
					sid = sids[id][u.encl-1]
				}
				out = append(out, fmt.Sprintf("%s %s %s %s %d %s", kind, g.name, lower, g.target, u.line, sid))
			}
		}
		if sum != total {
			t.Errorf("file %d: refs.n = %d, its groups hold %d uses", id, total, sum)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkRefKeys checks that ref_keys and ref_imports list exactly the files
// whose refs groups hold each key, in ascending order.
func checkRefKeys(t testing.TB, db *DB) {
	t.Helper()
	want := map[string][]int64{} // "k:" key or "i:" target
	rows, err := db.SQL().Query(`SELECT id, groups FROM refs ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			t.Fatal(err)
		}
		b, err := decompress(blob)
		if err != nil {
			t.Fatal(err)
		}
		add := func(k string) {
			if l := want[k]; len(l) == 0 || l[len(l)-1] != id {
				want[k] = append(l, id)
			}
		}
		if err := eachRefGroup(b, func(g storedGroup) bool {
			add("k:" + refNameKey(g.name))
			if g.kind == refKindImport && g.target != "" {
				add("i:" + g.target)
			}
			return true
		}); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	got := map[string][]int64{}
	for _, q := range []string{`SELECT 'k:' || key, files FROM ref_keys`, `SELECT 'i:' || target, files FROM ref_imports`} {
		rows, err := db.SQL().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k string
			var blob []byte
			if err := rows.Scan(&k, &blob); err != nil {
				t.Fatal(err)
			}
			ids, err := postings.DecodeIDs(nil, blob)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.IsSorted(ids) || len(ids) == 0 {
				t.Errorf("%s: posting list %v not ascending or empty", k, ids)
			}
			got[k] = ids
		}
		rows.Close()
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		for k, ids := range got {
			if !slices.Equal(ids, want[k]) {
				t.Errorf("%s lists files %v, the refs hold it in %v", k, ids, want[k])
			}
		}
		for k, ids := range want {
			if _, ok := got[k]; !ok {
				t.Errorf("%s is not listed; the refs hold it in %v", k, ids)
			}
		}
	}
}

// in limits q to one column.
func in(col string, q fulltext.Query) fulltext.Query { return fulltext.In([]string{col}, q) }

// wordMatchIDs returns the ids of the live rows of ix matching q,
// ascending, as the readers find them.
func wordMatchIDs(t *testing.T, db *DB, ix *wordIndex, q fulltext.Query) []int64 {
	t.Helper()
	var ids []int64
	err := db.reader.snapshot(context.Background(), nil, func(src *sourceCache) error {
		var err error
		ids, err = src.matchIDs(ix, q)
		return err
	})
	if err != nil {
		t.Fatalf("%s %s: %v", ix.words(), q, err)
	}
	return ids
}

// wordMatches returns col (an SQL expression over the alias x of ix's
// table) of the rows matching q, in the order of their rows in ix.
func wordMatches(t *testing.T, db *DB, ix *wordIndex, q fulltext.Query, col string) []string {
	t.Helper()
	ids := wordMatchIDs(t, db, ix, q)
	return queryStrings(t, db, `SELECT `+col+` FROM `+ix.base+` x WHERE x.`+ix.row+` IN (SELECT value FROM json_each(?)) ORDER BY x.`+ix.row, jsonIDs(ids))
}

// decompress decompresses a blob into a new slice.
func decompress(b []byte) ([]byte, error) {
	var z decompressor
	return z.decode(b, nil)
}

// trigramCandidates returns the ids of the files db's trigram index says
// may hold text (ascending), and false when it cannot narrow the search
// (no index, or a text of one byte).
func trigramCandidates(ctx context.Context, db *DB, text string) (ids []int64, ok bool, err error) {
	rd := db.Reader()
	var stmts []string
	if rd.db.trigram.Load() {
		stmts = []string{triSegsSQL, triBlockSQL, triRangeSQL, triFileSegsSQL}
	}
	err = rd.snapshot(ctx, stmts, func(src *sourceCache) error {
		if on, err := rd.db.trigramOn(ctx, src.tx); err != nil || !on {
			return err
		}
		ids, ok, err = src.trigramCandidates(text)
		return err
	})
	return ids, ok, err
}
