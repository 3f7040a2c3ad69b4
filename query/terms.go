package query

import (
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/tables/fulltext"
)

// terms is a query analysed for the text channels.
type terms struct {
	// words are the lower-case search words: every token split with
	// extract.SplitIdentifier (the index's own splitting), English stop
	// words and one-letter words dropped, duplicates removed, in query
	// order. A token's whole form ("getuserbyid", "res.send") follows its
	// parts, as at index time.
	words []string
	// idents are the tokens written like identifiers (camelCase,
	// PascalCase after the first word, snake_case, qualified a.b or A::B),
	// as written: the names an agent means literally.
	idents []string
	// natural is set when the query reads as English (it has stop words
	// or three or more plain words).
	natural bool
}

// analyse splits q into terms.
func analyse(q string) terms {
	var t terms
	seen := map[string]bool{}
	add := func(w string) {
		if w == "" || seen[w] {
			return
		}
		seen[w] = true
		t.words = append(t.words, w)
	}
	stops, plain := 0, 0
	for i, tok := range tokens(q) {
		lower := strings.ToLower(tok)
		if isStopWord(lower) {
			stops++
			continue
		}
		if isIdentLike(tok, i) {
			t.idents = append(t.idents, tok)
		} else {
			plain++
		}
		tokenWords(tok, lower, add)
	}
	t.natural = stops > 0 || plain >= 3
	return t
}

// tokenWords calls add with the search words of tok, a token that is not
// a stop word (lower is its lower-case form): its parts by
// extract.SplitIdentifier, then its whole form when it is written with _
// or -. Words may repeat.
func tokenWords(tok, lower string, add func(string)) {
	for _, w := range extract.SplitIdentifier(tok) {
		if utf8.RuneCountInString(w) < 2 && !isDigits(w) {
			continue
		}
		if isStopWord(w) && w != lower {
			// A stop word inside an identifier (getUserById's "by")
			// is noise on its own; the whole form keeps it.
			continue
		}
		add(w)
	}
	if strings.ContainsAny(tok, "_-") {
		// max_retries and url-encoded are also written maxRetries and
		// urlencoded, which the index holds as one word.
		if j := joined(lower); j != lower {
			add(j)
		}
	}
}

// tokens splits q at white space and at punctuation that is not part of
// an identifier, keeping the qualifiers . :: -> \ # between identifier
// characters (so "res.send" and "Sinatra::Base" stay whole). Apostrophes
// are dropped with what follows them ("xmonad's" → "xmonad").
func tokens(q string) []string {
	return slices.Collect(tokenSeq(q))
}

// tokenSeq yields the tokens of q one at a time, for a reader that may
// stop early.
func tokenSeq(q string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for f := range strings.FieldsFuncSeq(q, notTokenRune) {
			if i := strings.IndexAny(f, "'’"); i >= 0 {
				f = f[:i]
			}
			f = strings.Trim(f, ".:->\\#")
			if f != "" && !yield(f) {
				return
			}
		}
	}
}

// notTokenRune reports whether r separates tokens.
func notTokenRune(r rune) bool {
	return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_$.:->\\#'’", r))
}

// isIdentLike reports whether tok is written like an identifier rather
// than a word: it has an underscore or a qualifier inside, or an upper-case
// letter after its first rune, or starts upper-case when it is not the
// query's first token (a capitalised first word is just a sentence); an
// all-capitals token is an acronym, not an identifier.
func isIdentLike(tok string, pos int) bool {
	if tok == strings.ToUpper(tok) && !strings.ContainsAny(tok, "_.:\\#$") {
		return false // an acronym (JSON, HTTP) is a word in a sentence
	}
	if strings.ContainsAny(strings.Trim(tok, "_"), "_.:\\#$") || strings.Contains(tok, "->") || strings.HasPrefix(tok, "_") {
		return true
	}
	for i, r := range tok {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	r, _ := utf8.DecodeRuneInString(tok)
	return pos > 0 && unicode.IsUpper(r) && utf8.RuneCountInString(tok) > 1
}

// joined drops every rune that is not a letter or digit.
func joined(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s)
}

func isDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

// stem strips common English suffixes so that a prefix query on the result
// matches the word's family: "registered" → "register", "routes" → "rout",
// "templating" → "templat", "handlers" → "handl", "formatter" → "format",
// "composition" → "compos". It returns w unchanged when the stem would be
// shorter than minStem runes, so short words are matched whole.
func stem(w string) string {
	const minStem = 4
	if len(w) <= minStem || !isASCIILetters(w) {
		return w
	}
	for _, suf := range stemSuffixes {
		s, ok := strings.CutSuffix(w, suf)
		if !ok || len(s) < minStem {
			continue
		}
		if suf == "s" && strings.ContainsRune("siu", rune(s[len(s)-1])) {
			// process, status, analysis: not plurals.
			return w
		}
		// A doubled final consonant belongs to the suffix: formatt(er),
		// runn(ing); not in ll, ss, zz (install, process, buzz).
		if n := len(s); n > minStem && s[n-1] == s[n-2] && !strings.ContainsRune("aeioulsz", rune(s[n-1])) {
			s = s[:n-1]
		}
		if t := strings.TrimSuffix(s, "e"); len(t) >= minStem {
			s = t // route/routing, cache/caching; not line → lin
		}
		return s
	}
	if s := strings.TrimSuffix(w, "e"); len(s) >= minStem {
		return s
	}
	return w
}

// stemSuffixes are tried in order; longer first.
var stemSuffixes = []string{
	"izations", "ization", "isations", "isation", "ations", "ation", "itions", "ition", "ions", "ion",
	"ements", "ement", "ments", "ment", "ings", "ing", "ies", "ied", "ers", "er", "ed", "es", "s",
	"ly", "ity", "ness",
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// isStopWord reports whether w (lower-case) is an English function word
// or a question word that carries no topic. A negative contraction is
// cut at its apostrophe (tokenSeq), so "doesn't" is read as "doesn":
// those stems are function words too, where a commit message writes
// them and code does only in comments ("doesn" lifted the file whose
// comment said it as one of a task's rarest words).
func isStopWord(w string) bool {
	_, ok := stopWords[w]
	return ok
}

var stopWords = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`a about above after again all also am an and any are as at be been
		before being between both but by can could did do does doing done down during each either else
		for from further had has have having he her here hers him his how i if in into is it its itself
		just me more most my no nor not now of off on once only or other our ours out over own same she
		should so some such than that the their theirs them then there these they this those through to
		too under until up very was we were what when where which while who whom whose why will with
		within without would you your yours via vs etc e.g i.e
		aren couldn didn doesn don hadn hasn haven isn mustn needn shouldn wasn weren won wouldn`) {
		m[w] = struct{}{}
	}
	return m
}()

// textTerm is one query word's full-text term: the phrase of its tokens,
// or, for words long enough, a prefix query on its stem so that the
// word's family matches ("registered" → "register"*).
type textTerm struct {
	text   string // the word, or its stem when prefix
	prefix bool
	q      fulltext.Query
	key    string // q.String(), which keys the document counts
}

// textTerms turns the query's words into full-text terms (see textTerm),
// with prefixes when prefix is set (for every word of five letters or
// more when all is set too). Duplicates are dropped.
func textTerms(words []string, prefix, all bool) []textTerm {
	var out []textTerm
	type seenKey struct {
		text   string
		prefix bool
	}
	seen := map[seenKey]bool{}
	for _, w := range words {
		t := textTerm{text: w}
		if prefix {
			if s := stem(w); s != w || (all && utf8.RuneCountInString(w) >= 5 && isASCIILetters(w)) {
				t.text, t.prefix = s, true
			}
		}
		if k := (seenKey{t.text, t.prefix}); !seen[k] {
			seen[k] = true
			if t.prefix {
				t.q = fulltext.Prefix(t.text)
			} else {
				t.q = fulltext.Term(t.text)
			}
			t.key = t.q.String()
			out = append(out, t)
		}
	}
	return out
}

// orQuery ORs terms into one query; the zero Query for none.
func orQuery(terms []textTerm) fulltext.Query {
	qs := make([]fulltext.Query, len(terms))
	for i, t := range terms {
		qs[i] = t.q
	}
	return fulltext.Or(qs...)
}
