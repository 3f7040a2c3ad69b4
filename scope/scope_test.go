package scope_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
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

func buildIndex(t *testing.T) *tables.DB {
	t.Helper()
	root, data := t.TempDir(), t.TempDir()
	for p, content := range tree {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	db, err := tables.Open(ctx, filepath.Join(data, indexer.IndexFile), tables.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := indexer.Run(ctx, db, root, indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	return db
}

// distinct returns the sorted distinct values of col over the rows of
// table t that s admits.
func distinct(t *testing.T, db *sql.DB, table scope.Table, col string, s scope.Scope) []string {
	t.Helper()
	where, args, _ := s.WhereOn(table, "x")
	q := "SELECT DISTINCT x." + col + " FROM " + string(table) + " x"
	if where != "" {
		q += " WHERE " + where
	}
	q += " ORDER BY 1"
	rows, err := db.Query(q, args...)
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

func TestWhereOnIndex(t *testing.T) {
	db := buildIndex(t)
	sqlDB := db.SQL()
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
		{"extension on refs", scope.Scope{Extension: []string{"md"}}, scope.Refs, "path", nil},
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
			got := distinct(t, sqlDB, tc.table, tc.col, tc.s)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// The injection attempts left the tables alone.
	var n int
	if err := sqlDB.QueryRow(`SELECT count(*) FROM files`).Scan(&n); err != nil || n != len(tree) {
		t.Fatalf("files after injection attempts: %d, %v", n, err)
	}
}

func TestWhereArgsAreBound(t *testing.T) {
	evil := `'; DROP TABLE files; --`
	s := scope.Scope{
		PathPrefix: []string{evil}, PathContains: []string{evil}, PathNotContains: []string{evil},
		Extension: []string{evil}, SymbolKind: []string{"class"}, IsExported: ptr(true), Decorator: []string{evil},
	}
	for _, table := range []scope.Table{scope.Symbols, scope.Chunks, scope.Files, scope.Refs} {
		where, args, applied := s.WhereOn(table, "t")
		if strings.Contains(where, "DROP") || strings.Contains(where, "'") {
			t.Errorf("%s: user text in SQL: %s", table, where)
		}
		if got := strings.Count(where, "?"); got != len(args) {
			t.Errorf("%s: %d placeholders, %d args", table, got, len(args))
		}
		if len(applied) != 7 {
			t.Errorf("%s: applied %q, want 7 lines", table, applied)
		}
	}
	if w, a, ap := (scope.Scope{}).Where("s"); w != "" || a != nil || ap != nil {
		t.Errorf("zero scope: %q %v %v", w, a, ap)
	}
}

func TestAppliedSaysHow(t *testing.T) {
	s := scope.Scope{SymbolKind: []string{"method"}}
	_, _, applied := s.WhereOn(scope.Chunks, "c")
	if len(applied) != 1 || !strings.Contains(applied[0], "blocks: by enclosing symbol") {
		t.Errorf("chunks: %q", applied)
	}
	_, _, applied = s.WhereOn(scope.Files, "f")
	if len(applied) != 1 || !strings.Contains(applied[0], "files: defining") {
		t.Errorf("files: %q", applied)
	}
	_, _, applied = s.WhereOn(scope.Refs, "r")
	if len(applied) != 1 || !strings.Contains(applied[0], "usages: by enclosing symbol") {
		t.Errorf("refs: %q", applied)
	}
	_, _, applied = s.Where("s")
	if len(applied) != 1 || applied[0] != `symbol_kind in ["method"]` {
		t.Errorf("symbols: %q", applied)
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name      string
		json      string
		wantErr   string // substring; "" means success
		wantField string
	}{
		{"empty object", `{}`, "", ""},
		{"null", `null`, "", ""},
		{"all fields", `{"path_prefix":["src/"],"path_contains":["x"],"path_not_contains":["y"],"extension":["go"],"symbol_kind":["function"],"is_exported":true,"decorator":["@x"]}`, "", ""},
		{"unknown field", `{"path_prefx":["src/"]}`, `unknown field`, "path_prefx"},
		{"string for list", `{"path_prefix":"src/"}`, "want a list of strings", "path_prefix"},
		{"number in list", `{"extension":[1]}`, "want a list of strings", "extension"},
		{"string for bool", `{"is_exported":"yes"}`, "want true or false", "is_exported"},
		{"not an object", `[1]`, "want an object", "scope"},
		{"empty string", `{"path_contains":["ok",""]}`, "empty value", "path_contains"},
		{"blank string", `{"decorator":["  "]}`, "empty value", "decorator"},
		{"unknown kind", `{"symbol_kind":["funktion"]}`, "unknown symbol kind", "symbol_kind"},
		{"bad extension", `{"extension":["."]}`, "not a file extension", "extension"},
		{"newline", `{"path_contains":["a\nb"]}`, "NUL or newline", "path_contains"},
		{"too many", `{"path_contains":[` + strings.TrimSuffix(strings.Repeat(`"x",`, scope.MaxValues+1), ",") + `]}`, "at most 64", "path_contains"},
		{"trailing data", `{} {}`, "trailing data", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scope.Decode([]byte(tc.json))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Decode error %v, want %q", err, tc.wantErr)
			}
			if tc.wantField != "" {
				var fe *scope.FieldError
				if !errors.As(err, &fe) || fe.Field != tc.wantField {
					t.Fatalf("error %v: want FieldError for %q", err, tc.wantField)
				}
				if !strings.Contains(err.Error(), tc.wantField) {
					t.Errorf("error %q does not name field %q", err, tc.wantField)
				}
			}
		})
	}
}

func TestValueNamedInError(t *testing.T) {
	err := scope.Scope{SymbolKind: []string{"function", "gizmo"}}.Validate()
	if err == nil || !strings.Contains(err.Error(), `symbol_kind[1] "gizmo"`) {
		t.Fatalf("got %v", err)
	}
}

func TestEmbeddedDecodeIsStrict(t *testing.T) {
	var req struct {
		Query string      `json:"query"`
		Scope scope.Scope `json:"scope"`
	}
	err := jsonUnmarshal(`{"query":"x","scope":{"bogus":1}}`, &req)
	if err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("got %v", err)
	}
	if err := jsonUnmarshal(`{"query":"x","scope":{"path_prefix":["a/"]}}`, &req); err != nil || req.Scope.PathPrefix[0] != "a/" {
		t.Fatalf("got %v %+v", err, req.Scope)
	}
}
