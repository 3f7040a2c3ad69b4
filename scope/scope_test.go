package scope_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/viberag/viberag/scope"
)

func TestAppliedSaysHow(t *testing.T) {
	s := scope.Scope{SymbolKind: []string{"method"}}
	if applied := s.Applied(scope.Chunks); len(applied) != 1 || !strings.Contains(applied[0], "blocks: by enclosing symbol") {
		t.Errorf("chunks: %q", applied)
	}
	if applied := s.Applied(scope.Files); len(applied) != 1 || !strings.Contains(applied[0], "files: defining") {
		t.Errorf("files: %q", applied)
	}
	if applied := s.Applied(scope.Refs); len(applied) != 1 || !strings.Contains(applied[0], "usages: by enclosing symbol") {
		t.Errorf("refs: %q", applied)
	}
	if applied := s.Applied(scope.Symbols); len(applied) != 1 || applied[0] != `symbol_kind in ["method"]` {
		t.Errorf("symbols: %q", applied)
	}
	evil := `'; DROP TABLE files; --`
	all := scope.Scope{
		PathPrefix: []string{evil}, PathContains: []string{evil}, PathNotContains: []string{evil},
		Extension: []string{evil}, SymbolKind: []string{"class"}, IsExported: ptr(true), Decorator: []string{evil},
	}
	for _, table := range []scope.Table{scope.Symbols, scope.Chunks, scope.Files, scope.Refs} {
		if applied := all.Applied(table); len(applied) != 7 {
			t.Errorf("%s: applied %q, want 7 lines", table, applied)
		}
	}
	if applied := (scope.Scope{}).Applied(scope.Symbols); applied != nil {
		t.Errorf("zero scope: %q", applied)
	}
}

func TestFilterNormalises(t *testing.T) {
	f := scope.Scope{PathPrefix: []string{"./lib", `\docs`, "lib"}, Extension: []string{"go", ".GO", "md"}, Decorator: []string{"@x", "x"}}.Filter()
	if !slices.Equal(f.PathPrefix, []string{"lib", "docs"}) || !slices.Equal(f.Extension, []string{".go", ".md"}) || !slices.Equal(f.Decorator, []string{"x"}) {
		t.Errorf("got %+v", f)
	}
}

func ptr[T any](v T) *T { return &v }

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
