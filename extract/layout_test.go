package extract

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// languageFile names the file that reads each language (doc.go, "Layout"),
// in this package or in package scan. A language whose file grows past a
// few thousand lines splits into <file>_<part>.go; every file whose name
// starts with "<file>." or "<file>_" belongs to it.
var languageFile = map[string]string{
	"bash": "bash", "c": "scan/c", "cpp": "scan/c", "csharp": "scan/csharp", "elixir": "elixir",
	"go": "go", "haskell": "scan/haskell", "java": "java", "javascript": "javascript",
	"typescript": "javascript", "tsx": "javascript", "kotlin": "kotlin", "lua": "lua",
	"markdown": "scan/markdown", "php": "php", "python": "python", "ruby": "ruby",
	"rust": "rust", "scala": "scala", "swift": "scan/swift", "zig": "zig",
}

// registryFiles may name every language's reader: they are the dispatch
// tables of the two packages.
var registryFiles = map[string]bool{"languages.go": true, "scan/scan.go": true}

// TestLanguageLayout keeps each language in its own file: every language
// with a reader has its file, and nothing a language file declares is
// used by another language's file or by the shared machinery of its
// package (the registry aside). What two languages share lives in a file named for
// what it is (nodes.go, declarations.go, preprocessor.go …) under a
// neutral name.
func TestLanguageLayout(t *testing.T) {
	langs := map[string]bool{}
	for _, name := range languageByExt {
		langs[name] = true
	}
	for _, name := range languageByBase {
		langs[name] = true
	}
	for name := range langs {
		if readerFor(name) == nil {
			continue // text
		}
		f, ok := languageFile[name]
		if !ok {
			t.Errorf("language %q has a reader but no entry in languageFile", name)
			continue
		}
		if _, err := os.Stat(f + ".go"); err != nil {
			t.Errorf("language %q: %v", name, err)
		}
	}

	// owner: the language file a source file belongs to, "" for shared.
	prefixes := map[string]bool{}
	for _, f := range languageFile {
		prefixes[f] = true
	}
	owner := func(file string) string {
		base := strings.TrimSuffix(file, ".go")
		for p := range prefixes {
			if base == p || strings.HasPrefix(base, p+"_") {
				return p
			}
		}
		return ""
	}

	var bad []string
	for _, dir := range []string{".", "scan"} {
		bad = append(bad, layoutViolations(t, dir, owner)...)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: a language's internals are its own; move what is shared to a file named for what it is", b)
	}
}

// layoutViolations lists, for the package in dir, each use of a name a
// language file declares by a file that is not that language's.
func layoutViolations(t *testing.T, dir string, owner func(file string) string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	declaredIn := map[string]string{} // top-level name → file
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = f
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declaredIn[d.Name.Name] = p
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declaredIn[s.Name.Name] = p
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.Name != "_" {
								declaredIn[n.Name] = p
							}
						}
					}
				}
			}
		}
	}
	var bad []string
	for p, f := range files {
		if registryFiles[p] {
			continue
		}
		seen := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || seen[id.Name] {
				return true
			}
			from, ok := declaredIn[id.Name]
			if !ok || from == p {
				return true
			}
			if o := owner(from); o != "" && o != owner(p) {
				seen[id.Name] = true
				bad = append(bad, p+" uses "+id.Name+" from "+from)
			}
			return true
		})
	}
	return bad
}
