package fulltext

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/rangetable"
)

// How a non-ASCII code point tokenizes: the rules of SQLite's FTS5
// unicode61 tokenizer with remove_diacritics 2, as its documentation
// states them (sqlite.org/fts5.html, "Unicode61 Tokenizer"), computed
// from Go's Unicode tables and golang.org/x/text:
//
//   - Unicode 6.1 is the reference: a code point that 6.1 did not assign
//     is a token character (6.1 does not make it a space or punctuation),
//     kept as it is; an assigned one is a token character when its 6.1
//     general category is a letter (L*), a number (N*) or private use
//     (Co), and separates tokens otherwise. Go's tables are a later
//     Unicode, so the few code points whose category crossed that line
//     since 6.1 are listed (categoryChanges).
//   - Case folding is Unicode's simple folding as 6.1 has it: a letter's
//     simple lower-case mapping, else the lower-case of its case orbit
//     (µ → μ, ſ → s, ς → σ; Go's unicode.SimpleFold walks the orbits),
//     unless the result is a letter added after 6.1 (the lower-case
//     Cherokee of Unicode 8).
//   - remove_diacritics 2 removes every diacritic from Latin letters: a
//     letter whose canonical decomposition is an ASCII letter and
//     combining marks folds to that letter (é, ấ, ǖ → e, a, u; ø and æ
//     have no decomposition and stay). The marks that occur in those
//     decompositions (25 of them, U+0300..U+0331) are diacritics: one
//     continues the token it follows and is dropped, and separates
//     tokens elsewhere, so a decomposed é reads as the composed one.
//
// TestTokensMatchFTS5 holds these rules to FTS5 itself over every plane.
// Three things FTS5 does that its documentation does not say are kept
// too, so that tokens stay FTS5's: U+FFFE and U+FFFF, which are not
// characters, separate tokens; and U+01E0 and U+01E1 (A and a with dot
// above and macron) keep their diacritics.

// unicode61 is the set of code points Unicode 6.1 assigned.
var unicode61 = rangetable.Assigned("6.1.0")

// categoryChanges are the 6.1-assigned code points whose general
// category moved between token (L, N, Co) and separator after 6.1, with
// their 6.1 class (Unicode's release notes: U+1885..U+1886 Lo → Mn in
// 9.0; the New Tai Lue vowel signs Mc → Lo in 8.0; U+1CF2..U+1CF3 Mc → Lo
// in 10.0).
var categoryChanges = []struct {
	lo, hi rune
	token  bool
}{
	{0x1885, 0x1886, true},
	{0x19B0, 0x19C0, false},
	{0x19C8, 0x19C9, false},
	{0x1CF2, 0x1CF3, false},
}

// keepsDiacritics are the Latin letters whose diacritics FTS5 keeps.
func keepsDiacritics(r rune) bool { return r == 0x1E0 || r == 0x1E1 }

// Kinds of code point.
const (
	separator = iota // separates tokens
	tokenChar        // starts or continues a token, as fold
	diacritic        // continues a token and is dropped; else separates
)

// class is what a code point is in a text: its kind and, for a token
// character, the code point it is indexed as.
type class struct {
	kind uint8
	fold rune
}

// classOf returns r's class (r not ASCII): from a table for the Basic
// Multilingual Plane, where nearly all of any text is, computed for the
// rest.
func classOf(r rune) class {
	if r < tableEnd {
		v := bmpTable()[r-utf8.RuneSelf]
		return class{kind: uint8(v & 3), fold: rune(v >> 2)}
	}
	return classify(r)
}

// tableEnd bounds the code points bmpTable holds.
const tableEnd = 0x10000

// bmpTable holds the classes of U+0080..U+FFFF, each as fold << 2 | kind,
// computed once (about 5 ms), when a text first has such a code point:
// computing one costs table lookups and, for a Latin letter, a
// decomposition, several times what tokenizing it does otherwise.
var bmpTable = sync.OnceValue(func() []uint32 {
	t := make([]uint32, tableEnd-utf8.RuneSelf)
	for r := rune(utf8.RuneSelf); r < tableEnd; r++ {
		c := classify(r)
		t[r-utf8.RuneSelf] = uint32(c.fold)<<2 | uint32(c.kind)
	}
	return t
})

// classify computes r's class (r not ASCII).
func classify(r rune) class {
	switch {
	case r == 0xFFFE || r == 0xFFFF:
		return class{}
	case !unicode.Is(unicode61, r):
		return class{kind: tokenChar, fold: r}
	case isDiacritic(r):
		return class{kind: diacritic}
	case !isTokenChar(r):
		return class{}
	}
	return class{kind: tokenChar, fold: foldRune(r)}
}

// isTokenChar reports whether r (assigned in 6.1) is a letter, a number
// or private use in 6.1.
func isTokenChar(r rune) bool {
	for _, c := range categoryChanges {
		if r >= c.lo && r <= c.hi {
			return c.token
		}
	}
	return unicode.In(r, unicode.L, unicode.N, unicode.Co)
}

// foldRune case-folds r and removes its diacritics.
func foldRune(r rune) rune {
	f := unicode.ToLower(r)
	if f == r && unicode.SimpleFold(r) != r {
		f = unicode.ToLower(unicode.ToUpper(r))
	}
	if f != r && !unicode.Is(unicode61, f) {
		f = r
	}
	if f >= 0x80 && unicode.Is(unicode.Latin, f) && !keepsDiacritics(f) {
		if base, ok := latinBase(f); ok {
			return base
		}
	}
	return f
}

// latinBase returns the ASCII letter r's canonical decomposition starts
// with, when the rest of it is combining marks.
func latinBase(r rune) (rune, bool) {
	d := norm.NFD.String(string(r))
	if len(d) < 2 || d[0] >= 0x80 {
		return 0, false
	}
	for _, m := range d[1:] {
		if !unicode.Is(unicode.Mn, m) {
			return 0, false
		}
	}
	return rune(d[0]), true
}

// isDiacritic reports whether r is a mark of some Latin letter's
// canonical decomposition onto an ASCII letter.
func isDiacritic(r rune) bool {
	if r < 0x300 || r > 0x36F {
		return false // the combining diacritical marks hold every one
	}
	return latinMarks()[r]
}

// latinMarks finds the marks of the canonical decompositions of the
// Latin letters 6.1 assigned onto ASCII letters.
var latinMarks = sync.OnceValue(func() map[rune]bool {
	marks := map[rune]bool{}
	for _, rg := range unicode.Latin.R16 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
			if r < 0x80 || !unicode.Is(unicode61, r) || keepsDiacritics(r) {
				continue
			}
			if _, ok := latinBase(r); ok {
				for _, m := range norm.NFD.String(string(r))[1:] {
					marks[m] = true
				}
			}
		}
	}
	return marks
})
