package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The benchmark is committed as references, not text: each query names
// where its words are in the repository at the pinned commit, and the
// words are read back from the snapshot when the benchmark runs. A
// reference file (refs/<name>.tsv) has one line per query, tab-separated:
//
//	category  source  lines  spans  target…
//
// source is the commit whose message a task query was made from, or the
// file (path from the repository's root) holding the words of any other
// query; lines is the span of lines of that file the words lie in ("-" for
// a commit message); spans lists, space-separated, the pieces of the
// query text as byte ranges OFF+LEN, OFF counted from the start of the
// first of those lines (of the message). A piece is its range with each
// run of white space made one space; pieces are joined by one space, or
// by none when the piece is written ~OFF+LEN (the words of a link's text
// and the punctuation after it). A piece =HH is the one ASCII punctuation
// character of that hex code, for the few a doc reader wrote that the file
// does not hold (C#'s "name:" from <param name="name"> in a file without
// a colon). Architecture queries start with
// archPrefix, which is ours and is not referenced. The targets are paths
// from the repository's root.
//
// The pieces are plain byte ranges, so that reading a query back needs no
// parser and no rule of this generator: a set made once reads back the
// same whatever either becomes. queries.sha256 records the checksum of
// the whole set (setChecksum) so that a run can say it used that set.

// ref is one query as a reference.
type ref struct {
	Category string
	Source   string // commit id (task) or path
	First    int    // first line of the pieces (1-based); 0 for a commit message
	Last     int
	Spans    []span
	Targets  []string
}

// span is one piece of a query's text: Len bytes at Off from the base (the
// first line's start), or the punctuation character Lit; Glue joins it to
// the previous piece without a space.
type span struct {
	Off, Len int
	Lit      byte
	Glue     bool
}

// isPunct: an ASCII character that is neither a letter, a digit nor a
// space, the only kind a piece may hold literally.
func isPunct(b byte) bool {
	return b > ' ' && b < 0x7f && !isWordByte(b) || b == '_'
}

// writeRefs writes refs in the format above.
func writeRefs(w io.Writer, refs []ref) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# category\tsource\tlines\tspans\ttargets (see scripts/broadgen/refs.go)")
	for _, r := range refs {
		for _, f := range append([]string{r.Category, r.Source}, r.Targets...) {
			if f == "" || strings.ContainsAny(f, "\t\n") {
				return fmt.Errorf("reference field %q: empty, or holds a tab or newline", f)
			}
		}
		lines := "-"
		if r.First > 0 {
			lines = strconv.Itoa(r.First)
			if r.Last != r.First {
				lines += "-" + strconv.Itoa(r.Last)
			}
		}
		sp := make([]string, len(r.Spans))
		for i, s := range r.Spans {
			g := ""
			if s.Glue {
				g = "~"
			}
			if s.Lit != 0 {
				if !isPunct(s.Lit) {
					return fmt.Errorf("literal piece %q: only ASCII punctuation is written literally", s.Lit)
				}
				sp[i] = fmt.Sprintf("%s=%02x", g, s.Lit)
				continue
			}
			sp[i] = fmt.Sprintf("%s%d+%d", g, s.Off, s.Len)
		}
		fmt.Fprintf(bw, "%s\t%s\t%s\t%s\t%s\n", r.Category, r.Source, lines, strings.Join(sp, " "), strings.Join(r.Targets, "\t"))
	}
	return bw.Flush()
}

// readRefs reads what writeRefs wrote; name says where, in errors.
func readRefs(rd io.Reader, name string) ([]ref, error) {
	var out []ref
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, a...))
		}
		f := strings.Split(line, "\t")
		if len(f) < 5 {
			return nil, bad("want category, source, lines, spans and at least one target; have %d fields", len(f))
		}
		r := ref{Category: f[0], Source: f[1], Targets: f[4:]}
		if f[2] != "-" {
			a, b, found := strings.Cut(f[2], "-")
			var err1, err2 error
			r.First, err1 = strconv.Atoi(a)
			r.Last = r.First
			if found {
				r.Last, err2 = strconv.Atoi(b)
			}
			if err1 != nil || err2 != nil || r.First < 1 || r.Last < r.First {
				return nil, bad("lines %q: want N or N-M", f[2])
			}
		}
		for _, s := range strings.Fields(f[3]) {
			sp := span{}
			if strings.HasPrefix(s, "~") {
				sp.Glue, s = true, s[1:]
			}
			if hex, ok := strings.CutPrefix(s, "="); ok {
				v, err := strconv.ParseUint(hex, 16, 8)
				if err != nil || len(hex) != 2 || !isPunct(byte(v)) {
					return nil, bad("literal piece %q: want =HH, an ASCII punctuation character", s)
				}
				sp.Lit = byte(v)
				r.Spans = append(r.Spans, sp)
				continue
			}
			a, b, found := strings.Cut(s, "+")
			var err1, err2 error
			sp.Off, err1 = strconv.Atoi(a)
			sp.Len, err2 = strconv.Atoi(b)
			if !found || err1 != nil || err2 != nil || sp.Off < 0 || sp.Len < 1 {
				return nil, bad("span %q: want OFF+LEN", s)
			}
			r.Spans = append(r.Spans, sp)
		}
		if len(r.Spans) == 0 {
			return nil, bad("no spans")
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// lineStart is the byte offset of line n (1-based) of src.
func lineStart(src []byte, n int) (int, bool) {
	off := 0
	for l := 1; l < n; l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	return off, true
}

// lineOf is the line (1-based) holding byte offset off of src.
func lineOf(src []byte, off int) int { return bytes.Count(src[:off], []byte{'\n'}) + 1 }

// readSpans is the text the pieces name in src, counted from base.
func readSpans(src []byte, base int, spans []span) (string, error) {
	var b strings.Builder
	for i, s := range spans {
		if i > 0 && !s.Glue {
			b.WriteByte(' ')
		}
		if s.Lit != 0 {
			b.WriteByte(s.Lit)
			continue
		}
		lo, hi := base+s.Off, base+s.Off+s.Len
		if lo < 0 || hi > len(src) {
			return "", fmt.Errorf("span %d+%d: past the end of the source (%d bytes from the base)", s.Off, s.Len, len(src)-base)
		}
		b.WriteString(strings.Join(strings.Fields(string(src[lo:hi])), " "))
	}
	return b.String(), nil
}

// maxStarts bounds the places findSpans tries as the first piece's.
const maxStarts = 400

// findSpans finds text (words joined by single spaces) in src as pieces,
// with offsets from the start of src: the fewest pieces found from any of
// the places the first word occurs, the earliest on a tie. prefer, when
// not nil, picks among one-piece answers (a symbol's definition rather
// than its first mention). ok is false when some character of the text is
// not in src in order.
func findSpans(src []byte, text string, prefer func(at int) bool) ([]span, bool) {
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return nil, false
	}
	first := []byte(fields[0])
	var best []span
	tried := 0
	for at := 0; at < len(src) && tried < maxStarts; {
		i := bytes.Index(src[at:], first)
		if i < 0 {
			break
		}
		tried++
		if sp, ok := greedySpans(src, fields, at+i); ok {
			better := best == nil || len(sp) < len(best)
			if !better && prefer != nil && len(sp) == len(best) && !prefer(best[0].Off) && prefer(sp[0].Off) {
				better = true
			}
			if better {
				best = sp
			}
		}
		at += i + 1
	}
	if best == nil { // the first word is itself in pieces
		return greedySpans(src, fields, 0)
	}
	return best, true
}

// greedySpans matches fields in src from start onwards: each word goes on
// the current piece when only white space separates it from it, else
// starts a piece where it next occurs. A word that does not occur further
// on is taken from anywhere in src, whole, or else as its longest prefix
// found, then the rest glued on (words a doc reader made up from markup,
// such as C#'s "name:" from <param name="name">); such a piece does not
// move the place the next word is looked for from. Punctuation found
// nowhere is written literally.
func greedySpans(src []byte, fields []string, start int) ([]span, bool) {
	var out []span
	p := start
	for _, f := range fields {
		rest := f
		for piece := 0; rest != ""; piece++ {
			if last := len(out) - 1; piece == 0 && last >= 0 && out[last].Off+out[last].Len == p {
				q := skipSpace(src, p)
				if q > p && bytes.HasPrefix(src[q:], []byte(rest)) {
					out[last].Len = q + len(rest) - out[last].Off
					p = q + len(rest)
					break
				}
			}
			at, n := -1, len(rest)
			if i := bytes.Index(src[p:], []byte(rest)); i >= 0 {
				at = p + i
			} else if i := bytes.Index(src, []byte(rest)); i >= 0 {
				at = i
			} else {
				fa, fn := longestPrefix(src[p:], rest)
				aa, an := longestPrefix(src, rest)
				if fn >= an {
					at, n = p+fa, fn
				} else {
					at, n = aa, an
				}
			}
			if n == 0 {
				if !isPunct(rest[0]) {
					return nil, false
				}
				out = append(out, span{Lit: rest[0], Glue: piece > 0})
				rest = rest[1:]
				continue
			}
			out = append(out, span{Off: at, Len: n, Glue: piece > 0})
			if at >= p {
				p = at + n
			}
			rest = rest[n:]
		}
	}
	return out, true
}

// spanBounds are the first and the last byte offsets the pieces cover.
func spanBounds(sp []span) (lo, hi int) {
	lo, hi = -1, -1
	for _, s := range sp {
		if s.Lit != 0 {
			continue
		}
		if lo < 0 {
			lo, hi = s.Off, s.Off+s.Len
		}
		lo, hi = min(lo, s.Off), max(hi, s.Off+s.Len)
	}
	return lo, hi
}

// longestPrefix finds the longest prefix of s (whole runes) that occurs in
// src: where, and its length (0 when not even the first rune does).
func longestPrefix(src []byte, s string) (at, n int) {
	var cuts []int // rune boundaries of s, past the first rune
	for i := range s {
		if i > 0 {
			cuts = append(cuts, i)
		}
	}
	cuts = append(cuts, len(s))
	k := sort.Search(len(cuts), func(j int) bool { return !bytes.Contains(src, []byte(s[:cuts[j]])) })
	if k == 0 {
		return -1, 0
	}
	n = cuts[k-1]
	return bytes.Index(src, []byte(s[:n])), n
}

// skipSpace is the first offset at or after p that is not white space (as
// strings.Fields sees it).
func skipSpace(src []byte, p int) int {
	for p < len(src) {
		r, size := utf8.DecodeRune(src[p:])
		if !unicode.IsSpace(r) {
			break
		}
		p += size
	}
	return p
}

// setChecksum is the sha256, in hex, of the compact JSON (encoding/json,
// keys sorted) of {name: [query, …]} over the whole set.
func setChecksum(set map[string][]query) (string, error) {
	data, err := json.Marshal(set)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// sumLine is queries.sha256's one line.
func sumLine(sum string, queries, repos int) string {
	return fmt.Sprintf("%s  %d queries in %d repositories\n", sum, queries, repos)
}

// readSum is the checksum recorded in p.
func readSum(p string) (string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	f := strings.Fields(string(data))
	if len(f) == 0 || len(f[0]) != 64 {
		return "", fmt.Errorf("%s: want a sha256 in hex first", p)
	}
	return f[0], nil
}
