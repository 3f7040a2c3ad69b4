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
	"unicode"
	"unicode/utf8"

	"github.com/viberag/viberag/extract/scan"
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
		if strings.HasPrefix(file.ParseProblem, "budget:") {
			// Real files take under 2 steps a byte (BENCHMARKS.md) and no
			// scan may stall: a hand-written reader stopped by its budget
			// is a bug here, though a safe one in an index.
			t.Fatalf("reader ran out of budget: %s", file.ParseProblem)
		}
	})
}

// FuzzSplitIdentifier checks the identifier splitter on any string: it
// ends, its parts are non-empty and lower-case, and the parts spell the
// identifier's letters and digits in order.
func FuzzSplitIdentifier(f *testing.F) {
	seen := map[string]bool{}
	_ = filepath.WalkDir(filepath.Join("..", "fixtures"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(seen) > 400 {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for _, w := range strings.FieldsFunc(string(src), func(r rune) bool { return r <= ' ' || strings.ContainsRune("(){}[];,\"'", r) }) {
			if !seen[w] && len(seen) <= 400 {
				seen[w] = true
				f.Add(w)
			}
		}
		return nil
	})
	for _, s := range []string{"", "_", "getUserById", "HTMLParser", "parse2D", "MAX_RETRIES", "\xff\xfe", "ǅungla", "İstanbul", "ΣΑΣ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		parts := SplitIdentifier(s)
		var want strings.Builder
		for _, r := range s {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				want.WriteRune(r)
			}
		}
		var got strings.Builder
		letterLed := 0
		for i, p := range parts {
			if p == "" || strings.ToLower(p) != p {
				t.Fatalf("SplitIdentifier(%q) part %d = %q: empty or not lower-case", s, i, p)
			}
			if r, _ := utf8.DecodeRuneInString(p); unicode.IsLetter(r) {
				letterLed++
			}
			if letterLed >= 2 && i == len(parts)-1 && len(parts) > 1 {
				break // the whole identifier follows the parts
			}
			got.WriteString(p)
		}
		if got.String() != strings.ToLower(want.String()) {
			t.Fatalf("SplitIdentifier(%q) = %q: parts spell %q, want %q", s, parts, got.String(), strings.ToLower(want.String()))
		}
	})
}

// FuzzChunker checks packUnits on any tree of units: its spans cover lines
// 1..total in order (line windows overlap), each inside the file. An input is the file's line
// count (2 bytes) then one unit per 3 bytes — start line, length, and
// whether it is a sibling, a child of the previous unit, or a sibling of
// its parent. The seeds are the units the scanners read from fixtures/.
func FuzzChunker(f *testing.F) {
	_ = filepath.WalkDir(filepath.Join("..", "fixtures"), func(p string, d fs.DirEntry, err error) error {
		lang := LanguageOf(p).Name
		if err != nil || d.IsDir() || !scan.Reads(lang) {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		file, err := Extract(context.Background(), p, src, Options{})
		if err != nil || file.Lines > 0xffff {
			return nil
		}
		if out, _ := (scanReader{lang: lang}).read(context.Background(), p, src, nil); out != nil {
			f.Add(encodeUnits(out.Units, file.Lines))
		}
		return nil
	})
	f.Add([]byte{0, 200, 1, 150, 0, 10, 5, 1, 20, 100, 2})
	f.Add([]byte{0, 0})
	f.Add([]byte{255, 255, 0, 255, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 3<<10 {
			return
		}
		total := int(data[0])<<8 | int(data[1])
		units := decodeUnits(data[2:])
		spans := packUnits(units, total)
		next, prev := 1, 0
		for _, sp := range spans {
			// line windows overlap by design; a gap or a step back never
			if sp.start > next || sp.start <= prev || sp.end < sp.start || sp.end > total {
				t.Fatalf("packUnits(%d lines): span %d-%d after line %d", total, sp.start, sp.end, next-1)
			}
			next, prev = max(next, sp.end+1), sp.start
		}
		if total > 0 && next != total+1 {
			t.Fatalf("packUnits(%d lines): spans end at line %d", total, next-1)
		}
	})
}

// encodeUnits is the inverse of decodeUnits for trees whose lines fit a
// byte (larger values are cut: seeds only need their shape).
func encodeUnits(units []Unit, total int) []byte {
	data := []byte{byte(total >> 8), byte(total)}
	var enc func(us []Unit, first bool)
	enc = func(us []Unit, first bool) {
		for i, u := range us {
			rel := byte(0)
			if i == 0 && first {
				rel = 1
			}
			data = append(data, byte(min(u.StartLine, 255)), byte(min(u.EndLine-u.StartLine, 255)), rel)
			enc(u.Children, true)
			if len(u.Children) > 0 {
				data = append(data, 0, 0, 2) // back up to this level
			}
		}
	}
	enc(units, false)
	return data
}

// decodeUnits reads a unit tree: 3 bytes a unit (start line, length,
// relation: 0 sibling, 1 first child of the previous unit, 2 back to the
// parent's level — that triple adds no unit).
func decodeUnits(data []byte) []Unit {
	i := 0
	var level func(depth int) []Unit
	level = func(depth int) []Unit {
		var us []Unit
		for i+2 < len(data) {
			start, n, rel := int(data[i]), int(data[i+1]), data[i+2]%3
			switch {
			case rel == 2:
				i += 3
				if depth > 0 {
					return us
				}
				continue
			case rel == 1 && len(us) > 0 && depth < 64:
				// the child level reads this triple as its first unit
				us[len(us)-1].Children = level(depth + 1)
				continue
			}
			i += 3
			us = append(us, Unit{StartLine: start, EndLine: start + n})
		}
		return us
	}
	return level(0)
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
