package fileset

import (
	"context"
	"github.com/viberag/viberag/internal/testkit"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestIndexPath(t *testing.T) {
	for _, c := range []struct{ os, index string }{
		{"src/main.go", "src/main.go"},
		{"100%.txt", "100%.txt"},
		{"pct%41.go", "pct%41.go"},       // %41 is 'A': valid UTF-8 either way
		{"caf%C3%A9.md", "caf%C3%A9.md"}, // decodes to valid UTF-8: ordinary
		{"100%25.txt", "100%25.txt"},     // decodes to "100%.txt": ordinary
		{"bad%ff.go", "bad%ff.go"},       // lower case: not an escaped form
		{"café/ü.go", "café/ü.go"},
		{"x\uFFFDy.go", "x\uFFFDy.go"}, // a real U+FFFD is valid UTF-8
		{"bad\xff\xfe.go", "bad%FF%FE.go"},
		{"bad\xfe\xff.go", "bad%FE%FF.go"},
		{"50%\xff", "50%25%FF"},
		{"d\xe9j\xe0/vu.go", "d%E9j%E0/vu.go"},
		{"trunc\xc3", "trunc%C3"},
		{"sur\xed\xa0\x80.go", "sur%ED%A0%80.go"}, // an encoded surrogate is not UTF-8
		// Valid names that read as an escaped form are escaped too.
		{"bad%FF.go", "bad%25FF.go"},
		{"bad%25FF.go", "bad%2525FF.go"},
		{"a%25%FF", "a%2525%25FF"},
	} {
		if got := IndexPath(c.os); got != c.index {
			t.Errorf("IndexPath(%q) = %q, want %q", c.os, got, c.index)
		}
		if got := OSPath(c.index); got != c.os {
			t.Errorf("OSPath(%q) = %q, want %q", c.index, got, c.os)
		}
	}
}

func TestOSPathRaw(t *testing.T) {
	// Bytes typed in a shell are the file system's spelling already.
	if got := OSPath("bad\xff.go"); got != "bad\xff.go" {
		t.Errorf("OSPath of raw bytes = %q", got)
	}
	// A form IndexPath never writes names itself, not a decoded path:
	// "%2F" cannot smuggle in a separator, nor lower case hex a byte.
	for _, p := range []string{"x%FF%2F..%2Fetc", "bad%ff.go", "%2e%2e/x", "x%FF%2E%2E"} {
		if got := OSPath(p); got != p {
			t.Errorf("OSPath(%q) = %q, want it unchanged", p, got)
		}
	}
}

func TestJoin(t *testing.T) {
	if got, want := Join("/r", "d/bad%FF.go"), filepath.Join("/r", "d", "bad\xff.go"); got != want {
		t.Errorf("Join = %q, want %q", got, want)
	}
}

// FuzzIndexPath checks that IndexPath is one to one and OSPath its
// inverse, that index forms are UTF-8, that ordinary names are their own
// form, and that escaping keeps a path's elements.
func FuzzIndexPath(f *testing.F) {
	for _, s := range []string{"a/b.go", "bad\xff.go", "bad%FF.go", "%", "%%FF", "50%\xff", "x%25%FF", "\xed\xa0\x80"} {
		f.Add(s, s+"x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ia, ib := IndexPath(a), IndexPath(b)
		if !utf8.ValidString(ia) {
			t.Fatalf("IndexPath(%q) = %q is not UTF-8", a, ia)
		}
		if back := OSPath(ia); back != a {
			t.Fatalf("OSPath(IndexPath(%q)) = %q", a, back)
		}
		if a != b && ia == ib {
			t.Fatalf("%q and %q share the index form %q", a, b, ia)
		}
		if utf8.ValidString(a) && !strings.Contains(a, "%") && ia != a {
			t.Fatalf("ordinary %q became %q", a, ia)
		}
		if strings.Count(ia, "/") != strings.Count(a, "/") || strings.Count(ia, ".") != strings.Count(a, ".") {
			t.Fatalf("IndexPath(%q) = %q changed the path's elements", a, ia)
		}
		// Whatever an agent sends, OSPath keeps its separators and dots.
		if o := OSPath(a); strings.Count(o, "/") != strings.Count(a, "/") || strings.Count(o, ".") != strings.Count(a, ".") {
			t.Fatalf("OSPath(%q) = %q changed the path's elements", a, o)
		}
	})
}

// TestSelectNamesNotUTF8: names that differ only in bytes that are not
// UTF-8, and a valid name that reads as an escaped one, are selected under
// distinct index forms, in git and walk mode, and each form reads its own
// file; patterns match the form answers show as well as the bytes.
func TestSelectNamesNotUTF8(t *testing.T) {
	files := map[string]string{
		"bad\xff\xfe.go":   "package a // ff fe\n",
		"bad\xfe\xff.go":   "package a // fe ff\n",
		"bad\xff.go":       "package a // ff\n",
		"bad%FF.go":        "package a // literal %FF\n",
		"pct%41.go":        "package a // ordinary\n",
		"d\xe9j\xe0/vu.go": "package a // latin-1 directory\n",
		"key\xff.pem":      "secret\n",
	}
	want := []string{"bad%25FF.go", "bad%FE%FF.go", "bad%FF%FE.go", "bad%FF.go", "d%E9j%E0/vu.go", "pct%41.go"}
	for _, git := range []bool{true, false} {
		t.Run(map[bool]string{true: "git", false: "walk"}[git], func(t *testing.T) {
			root := t.TempDir()
			hermeticGit(t, root)
			testkit.WriteFiles(t, root, files)
			if git {
				testkit.Git(t, root, "init", "-q")
			}
			sel, err := Select(context.Background(), root, SelectOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if sel.Git != git {
				t.Fatalf("Git = %v, want %v", sel.Git, git)
			}
			var got []string
			for _, c := range sel.Files {
				got = append(got, c.Path)
				data, err := os.ReadFile(Join(sel.Root, c.Path))
				if err != nil || string(data) != files[OSPath(c.Path)] {
					t.Errorf("%s reads %q, %v; want the content of %q", c.Path, data, err, OSPath(c.Path))
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("selected %q, want %q", got, want)
			}
			if len(sel.Skipped) != 1 || sel.Skipped[0].Path != "key%FF.pem" || sel.Skipped[0].Reason != SkipSecret {
				t.Errorf("skipped %+v, want key%%FF.pem as a secret", sel.Skipped)
			}
			for _, pat := range []string{"bad%FE%FF.go", "bad\xfe\xff.go", "d%E9j%E0"} {
				sel, err := Select(context.Background(), root, SelectOptions{Exclude: []string{pat}})
				if err != nil {
					t.Fatal(err)
				}
				if len(sel.Files) != len(want)-1 {
					t.Errorf("--exclude %q left %d files, want %d", pat, len(sel.Files), len(want)-1)
				}
			}
		})
	}
}
