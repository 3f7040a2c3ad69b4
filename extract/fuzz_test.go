package extract

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// One fuzz target per language: each feeds Extract random and mutated
// bytes under a file name of that language, seeded with the language's
// fixtures, and checks what must hold for any input:
//
//   - no panic (Extract turns a reader's panic into a fallback; that
//     fallback is a failure here) and no crash of the C runtime (which
//     would end the fuzzing process);
//   - every symbol's and chunk's lines and bytes lie inside the file, and
//     its bytes start and end on the lines it claims;
//   - the chunks cover every line;
//   - the reader stops within its budget (a budget fallback is allowed:
//     it indexes the file as line chunks).
//
// CI runs the seed corpora (go test); a campaign runs one target, e.g.
//
//	go test ./extract -run '^$' -fuzz '^FuzzPython$' -fuzztime 10m
//
// and each failure found is kept under testdata/fuzz/<target>/ as a
// regression input.

func FuzzBash(f *testing.F)       { fuzzLanguage(f, "bash", ".sh") }
func FuzzC(f *testing.F)          { fuzzLanguage(f, "c", ".c") }
func FuzzCpp(f *testing.F)        { fuzzLanguage(f, "cpp", ".cpp") }
func FuzzCSharp(f *testing.F)     { fuzzLanguage(f, "csharp", ".cs") }
func FuzzElixir(f *testing.F)     { fuzzLanguage(f, "elixir", ".ex") }
func FuzzHaskell(f *testing.F)    { fuzzLanguage(f, "haskell", ".hs") }
func FuzzJava(f *testing.F)       { fuzzLanguage(f, "java", ".java") }
func FuzzJavaScript(f *testing.F) { fuzzLanguage(f, "javascript", ".js") }
func FuzzKotlin(f *testing.F)     { fuzzLanguage(f, "kotlin", ".kt") }
func FuzzLua(f *testing.F)        { fuzzLanguage(f, "lua", ".lua") }
func FuzzMarkdown(f *testing.F)   { fuzzLanguage(f, "markdown", ".md") }
func FuzzPHP(f *testing.F)        { fuzzLanguage(f, "php", ".php") }
func FuzzPython(f *testing.F)     { fuzzLanguage(f, "python", ".py") }
func FuzzRuby(f *testing.F)       { fuzzLanguage(f, "ruby", ".rb") }
func FuzzRust(f *testing.F)       { fuzzLanguage(f, "rust", ".rs") }
func FuzzScala(f *testing.F)      { fuzzLanguage(f, "scala", ".scala") }
func FuzzSwift(f *testing.F)      { fuzzLanguage(f, "swift", ".swift") }
func FuzzTSX(f *testing.F)        { fuzzLanguage(f, "typescript", ".tsx") }
func FuzzTypeScript(f *testing.F) { fuzzLanguage(f, "typescript", ".ts") }
func FuzzZig(f *testing.F)        { fuzzLanguage(f, "zig", ".zig") }

// fuzzLanguage seeds f with the files of fixtures/<dir> that read as the
// language of ext, plus a few hostile shapes, and runs the checks.
func fuzzLanguage(f *testing.F, dir, ext string) {
	want := LanguageOf("x" + ext).Name
	root := filepath.Join("..", "fixtures", dir)
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || LanguageOf(p).Name != want {
			return nil
		}
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
		return nil
	})
	for _, s := range []string{"", "\n", "{", "}}}}", "\x00", "\"", "/*", "#if 0\n", strings.Repeat("(", 300), "a\r\nb\rc\n", "\xff\xfe"} {
		f.Add([]byte(s))
	}
	name := "fuzz" + ext
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 64<<10 {
			return // the engine's inputs stay small; big files have their own tests
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		file, err := Extract(ctx, name, src, Options{ParseTimeout: 5 * time.Second})
		if err != nil {
			t.Fatalf("Extract: %v", err)
		}
		checkFileInvariants(t, file, src)
	})
}

// checkFileInvariants checks what Extract promises for any input.
func checkFileInvariants(t *testing.T, f *File, src []byte) {
	t.Helper()
	if strings.Contains(f.ParseProblem, "panic") {
		t.Fatalf("reader panicked: %s", f.ParseProblem)
	}
	lines := f.Lines
	starts := []int{0}
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int) int { return sort.SearchInts(starts, off+1) }
	for _, s := range f.Symbols {
		if s.StartLine < 1 || s.EndLine < s.StartLine || s.EndLine > max(lines, 1) {
			t.Errorf("symbol %s: lines %d-%d outside the file's %d", s.Qualname, s.StartLine, s.EndLine, lines)
		}
		if s.StartByte < 0 || s.EndByte < s.StartByte || s.EndByte > len(src) {
			t.Errorf("symbol %s: bytes %d-%d outside the file's %d", s.Qualname, s.StartByte, s.EndByte, len(src))
		} else if len(src) > 0 && s.StartByte < len(src) && lineOf(s.StartByte) != s.StartLine {
			t.Errorf("symbol %s: starts on line %d, byte %d is on line %d", s.Qualname, s.StartLine, s.StartByte, lineOf(s.StartByte))
		}
	}
	next := 1
	for _, c := range f.Chunks {
		if c.StartLine < 1 || c.EndLine < c.StartLine || c.EndLine > max(lines, 1) {
			t.Errorf("chunk lines %d-%d outside the file's %d", c.StartLine, c.EndLine, lines)
		}
		if c.StartLine > next {
			t.Errorf("lines %d-%d are in no chunk", next, c.StartLine-1)
		}
		next = max(next, c.EndLine+1)
		if c.StartByte < 0 || c.EndByte > len(src) || c.StartByte > c.EndByte || !bytes.Equal([]byte(c.Text), src[c.StartByte:c.EndByte]) {
			t.Errorf("chunk %d-%d: bytes %d-%d do not hold its text", c.StartLine, c.EndLine, c.StartByte, c.EndByte)
		}
	}
	if lines > 0 && next <= lines {
		t.Errorf("lines %d-%d are in no chunk", next, lines)
	}
}
