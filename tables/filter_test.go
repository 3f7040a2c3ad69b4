package tables

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/scope"
)

// tree is a small repository whose paths hold the characters that break
// naive SQL: LIKE wildcards, a quote, a backslash.
var tree = map[string]string{
	"src/a_b.py": `import functools

@functools.cache
def cached_thing():
    return 1

@app.route("/x")
def route_handler():
    return 2

def _private_helper():
    return 3

class Widget:
    @property
    def size(self):
        return 4
` + bigClass,
	"src/axb.py":        "def axb_func():\n    return 5\n",
	"src/a%b.py":        "def percent_func():\n    return 6\n",
	"src/it's.py":       "def quote_func():\n    return 7\n",
	`src/back\slash.py`: "def backslash_func():\n    return 8\n",
	"src2/other.py":     "def other_func():\n    return 9\n",
	"lib/util.go":       "package lib\n\nfunc Exported() int { return 1 }\n\nfunc unexported() int { return 2 }\n",
	"docs/guide.md":     "# Guide\n\nSome text.\n",
}

// bigClass is long enough to get chunks of its own, owned by its methods.
var bigClass = func() string {
	var b strings.Builder
	b.WriteString("\n\nclass Big:\n")
	for i := range 40 {
		b.WriteString("    def m" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + "(self):\n        x = 1\n        return x\n\n")
	}
	return b.String()
}()

func filterIndex(t *testing.T) *DB {
	t.Helper()
	ctx := context.Background()
	db := openTest(t)
	paths := make([]string, 0, len(tree))
	for p := range tree {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var files []*extract.File
	for _, p := range paths {
		f, err := extract.Extract(ctx, p, []byte(tree[p]), extract.Options{})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	mustWrite(t, db, files, nil)
	return db
}

// distinct returns the sorted distinct values of col over the rows of
// table t that s admits.
func distinct(t *testing.T, db *DB, table scope.Table, col string, s scope.Scope) []string {
	t.Helper()
	w := filterOn(s.Filter(), table, "x")
	expr := "x." + col
	if col == "path" && table != scope.Files {
		expr = "(SELECT path FROM files WHERE id = x.file_id)" // only files hold paths
	}
	q := "SELECT DISTINCT " + expr + " FROM " + string(table) + " x WHERE 1" + w.sql + " ORDER BY 1"
	rows, err := db.SQL().Query(q, w.args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// TestFilterOn renders scopes over every table of a real index whose
// paths hold LIKE wildcards, a quote and a backslash.
func TestFilterOn(t *testing.T) {
	db := filterIndex(t)
	tests := []struct {
		name  string
		s     scope.Scope
		table scope.Table
		col   string
		want  []string
	}{
		{"zero", scope.Scope{}, scope.Files, "path",
			[]string{"docs/guide.md", "lib/util.go", "src/a%b.py", "src/a_b.py", "src/axb.py", `src/back\slash.py`, "src/it's.py", "src2/other.py"}},
		{"prefix", scope.Scope{PathPrefix: []string{"src/"}}, scope.Files, "path",
			[]string{"src/a%b.py", "src/a_b.py", "src/axb.py", `src/back\slash.py`, "src/it's.py"}},
		{"prefix without slash matches literally", scope.Scope{PathPrefix: []string{"src"}}, scope.Files, "path",
			[]string{"src/a%b.py", "src/a_b.py", "src/axb.py", `src/back\slash.py`, "src/it's.py", "src2/other.py"}},
		{"prefix normalised", scope.Scope{PathPrefix: []string{"./lib", `\docs`}}, scope.Files, "path",
			[]string{"docs/guide.md", "lib/util.go"}},
		{"prefix any of", scope.Scope{PathPrefix: []string{"lib/", "docs/"}}, scope.Files, "path",
			[]string{"docs/guide.md", "lib/util.go"}},
		{"prefix percent is literal", scope.Scope{PathPrefix: []string{"src/a%"}}, scope.Files, "path",
			[]string{"src/a%b.py"}},
		{"prefix no match", scope.Scope{PathPrefix: []string{"%"}}, scope.Files, "path", nil},
		{"contains underscore is literal", scope.Scope{PathContains: []string{"a_b"}}, scope.Files, "path",
			[]string{"src/a_b.py"}},
		{"contains percent is literal", scope.Scope{PathContains: []string{"%"}}, scope.Files, "path",
			[]string{"src/a%b.py"}},
		{"contains quote", scope.Scope{PathContains: []string{"'"}}, scope.Files, "path",
			[]string{"src/it's.py"}},
		{"contains backslash", scope.Scope{PathContains: []string{`\`}}, scope.Files, "path",
			[]string{`src/back\slash.py`}},
		{"contains injection", scope.Scope{PathContains: []string{"'; DROP TABLE files; --"}}, scope.Files, "path", nil},
		{"contains any of", scope.Scope{PathContains: []string{"util", "guide"}}, scope.Files, "path",
			[]string{"docs/guide.md", "lib/util.go"}},
		{"not contains none of", scope.Scope{PathNotContains: []string{"src", "docs"}}, scope.Files, "path",
			[]string{"lib/util.go"}},
		{"not contains wildcard is literal", scope.Scope{PathPrefix: []string{"src/"}, PathNotContains: []string{"_", "%"}}, scope.Files, "path",
			[]string{"src/axb.py", `src/back\slash.py`, "src/it's.py"}},
		{"not contains injection keeps all", scope.Scope{PathPrefix: []string{"lib/"}, PathNotContains: []string{"' OR 1=1 --"}}, scope.Files, "path",
			[]string{"lib/util.go"}},
		{"extension with and without dot", scope.Scope{Extension: []string{"go", ".MD"}}, scope.Files, "path",
			[]string{"docs/guide.md", "lib/util.go"}},
		{"extension on chunks", scope.Scope{Extension: []string{"go"}}, scope.Chunks, "path",
			[]string{"lib/util.go"}},
		{"extension on refs", scope.Scope{Extension: []string{"md"}}, scope.Refs, "n", nil},
		{"extension on refs, by file", scope.Scope{Extension: []string{"py"}}, scope.Refs, "id IN (SELECT id FROM files WHERE ext = '.py')", []string{"1"}},
		{"kind on symbols", scope.Scope{SymbolKind: []string{"class"}}, scope.Symbols, "name",
			[]string{"Big", "Widget"}},
		{"kind any of", scope.Scope{SymbolKind: []string{"class", "function"}, PathPrefix: []string{"src/a_b"}}, scope.Symbols, "name",
			[]string{"Big", "Widget", "_private_helper", "cached_thing", "route_handler"}},
		{"kind on files", scope.Scope{SymbolKind: []string{"class"}}, scope.Files, "path",
			[]string{"src/a_b.py"}},
		// Only Big is long enough to be split into chunks of its own; the
		// smallest symbol holding each of them is Big or one of its methods.
		{"kind on chunks by owner", scope.Scope{SymbolKind: []string{"class", "method"}}, scope.Chunks, "symbol_sid <> ''",
			[]string{"1"}},
		// a_b.py's first chunk holds several functions: no symbol owns it.
		{"kind on chunks excludes unowned", scope.Scope{SymbolKind: []string{"function"}, PathPrefix: []string{"src/a_b"}}, scope.Chunks, "path", nil},
		// A one-function file is one chunk owned by that function.
		{"kind on chunks of one-function files", scope.Scope{SymbolKind: []string{"function"}, PathPrefix: []string{"src2/"}}, scope.Chunks, "path",
			[]string{"src2/other.py"}},
		{"exported true", scope.Scope{IsExported: ptr(true), PathPrefix: []string{"src/a_b"}, SymbolKind: []string{"function"}}, scope.Symbols, "name",
			[]string{"cached_thing", "route_handler"}},
		{"exported false", scope.Scope{IsExported: ptr(false), PathPrefix: []string{"src/a_b"}, SymbolKind: []string{"function"}}, scope.Symbols, "name",
			[]string{"_private_helper"}},
		{"decorator", scope.Scope{Decorator: []string{"app.route"}}, scope.Symbols, "name",
			[]string{"route_handler"}},
		{"decorator with at", scope.Scope{Decorator: []string{"@property", "functools.cache"}}, scope.Symbols, "name",
			[]string{"cached_thing", "size"}},
		{"decorator is exact", scope.Scope{Decorator: []string{"app"}}, scope.Symbols, "name", nil},
		{"decorator injection", scope.Scope{Decorator: []string{"x') OR 1=1 --"}}, scope.Symbols, "name", nil},
		{"decorator on files", scope.Scope{Decorator: []string{"property"}}, scope.Files, "path",
			[]string{"src/a_b.py"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.s.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			got := distinct(t, db, tc.table, tc.col, tc.s)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// The injection attempts left the tables alone.
	if n := queryInt(t, db, `SELECT count(*) FROM files`); n != int64(len(tree)) {
		t.Fatalf("files after injection attempts: %d", n)
	}
}

func TestFilterArgsAreBound(t *testing.T) {
	evil := `'; DROP TABLE files; --`
	s := scope.Scope{
		PathPrefix: []string{evil}, PathContains: []string{evil}, PathNotContains: []string{evil},
		Extension: []string{evil}, SymbolKind: []string{"class"}, IsExported: ptr(true), Decorator: []string{evil},
	}
	for _, table := range []scope.Table{scope.Symbols, scope.Chunks, scope.Files, scope.Refs} {
		w := filterOn(s.Filter(), table, "t")
		if strings.Contains(w.sql, "DROP") || strings.Contains(w.sql, "'") {
			t.Errorf("%s: user text in SQL: %s", table, w.sql)
		}
		if got := strings.Count(w.sql, "?"); got != len(w.args) {
			t.Errorf("%s: %d placeholders, %d args", table, got, len(w.args))
		}
	}
	if w := filterOn(scope.Scope{}.Filter(), scope.Symbols, "s"); w.sql != "" || w.args != nil {
		t.Errorf("zero scope: %q %v", w.sql, w.args)
	}
}
