package embed

import (
	"bytes"
	"fmt"
	json "github.com/segmentio/encoding/json"
	"os"
	"slices"
	"sync"
	"unicode/utf8"
)

// Tokenizer is a WordPiece tokenizer configured by a Hugging Face
// tokenizer.json, the kind BERT-family and Model2Vec models ship.
//
// It implements the parts of the format those files use, and rejects files
// that ask for anything else: the BertNormalizer (clean text, isolate CJK
// ideographs, strip accents, lowercase), the BertPreTokenizer (split on
// whitespace, isolate punctuation), the WordPiece model (greedy
// longest-match-first with a continuation prefix; a word longer than
// max_input_chars_per_word, or one that cannot be covered by the
// vocabulary, becomes the unknown token), added tokens written literally in
// the text (such as "[UNK]"), and right truncation to truncation.max_length.
// Encoding never adds special tokens ([CLS], [SEP]): Model2Vec does not use
// them.
//
// Unicode character classes come from Go's unicode package, whose tables
// may be newer than those of the Rust crates behind Hugging Face
// tokenizers; the two can differ only on characters assigned to Unicode
// recently.
//
// A Tokenizer is safe for concurrent use.
type Tokenizer struct {
	norm      bertNormalizer
	tokens    []string // by id
	unkID     int32
	maxChars  int // max_input_chars_per_word
	truncate  int // truncation.max_length; 0 means none
	medianLen int // median token length in characters, as Model2Vec computes it
	words     trie
	conts     trie // continuation tokens with their prefix removed
	rawAdded  []addedToken
	normAdded []addedToken
	scratch   sync.Pool // *tokScratch
}

// LoadTokenizer reads a tokenizer.json file.
func LoadTokenizer(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("embed: tokenizer: %w", err)
	}
	t, err := ParseTokenizer(data)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return t, nil
}

// ParseTokenizer reads a tokenizer from the contents of a tokenizer.json.
func ParseTokenizer(data []byte) (*Tokenizer, error) {
	var f tokenizerJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("embed: tokenizer JSON: %w", err)
	}
	return newTokenizer(&f)
}

// Encode appends the token ids of text to dst and returns the extended
// slice. Unknown words give the unknown token's id (see UnkID); no special
// tokens are added; at most MaxLength ids are appended when the file sets
// a truncation length.
func (t *Tokenizer) Encode(dst []int32, text string) []int32 {
	sc, _ := t.scratch.Get().(*tokScratch)
	if sc == nil {
		sc = new(tokScratch)
	}
	dst = t.encode(sc, dst, text)
	t.scratch.Put(sc)
	return dst
}

// VocabSize is the number of token ids: one more than the largest id.
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// UnkID is the id of the unknown token.
func (t *Tokenizer) UnkID() int32 { return t.unkID }

// MaxLength is the truncation length from the file, or 0 for none.
func (t *Tokenizer) MaxLength() int { return t.truncate }

// TokenID returns the id of a vocabulary entry, such as "hello" or "##lo".
func (t *Tokenizer) TokenID(token string) (int32, bool) {
	id := t.words.exact(token)
	return id, id >= 0
}

// Token returns the vocabulary entry of id, or "" when there is none.
func (t *Tokenizer) Token(id int32) string {
	if id < 0 || int(id) >= len(t.tokens) {
		return ""
	}
	return t.tokens[id]
}

// tokenizerJSON is the part of tokenizer.json the Tokenizer reads.
type tokenizerJSON struct {
	Truncation *struct {
		MaxLength int    `json:"max_length"`
		Direction string `json:"direction"`
	} `json:"truncation"`
	AddedTokens []struct {
		ID         int32  `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		Normalized bool   `json:"normalized"`
	} `json:"added_tokens"`
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          *bool  `json:"clean_text"`
		HandleChineseChars *bool  `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          *bool  `json:"lowercase"`
	} `json:"normalizer"`
	PreTokenizer *struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	Model struct {
		Type                    string           `json:"type"`
		UnkToken                *string          `json:"unk_token"`
		ContinuingSubwordPrefix *string          `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    *int             `json:"max_input_chars_per_word"`
		Vocab                   map[string]int32 `json:"vocab"`
	} `json:"model"`
}

// addedToken is a token matched literally in the text before
// pre-tokenization.
type addedToken struct {
	content    []byte
	id         int32
	singleWord bool // matches only where no word character touches it
}

// tokScratch holds the buffers one encoding needs, reused across calls.
type tokScratch struct {
	raw, a, b, c []byte
}

func newTokenizer(f *tokenizerJSON) (*Tokenizer, error) {
	m := &f.Model
	if m.Type != "WordPiece" {
		return nil, fmt.Errorf("embed: tokenizer model.type %q not supported (want WordPiece)", m.Type)
	}
	if f.PreTokenizer == nil || f.PreTokenizer.Type != "BertPreTokenizer" {
		typ := "null"
		if f.PreTokenizer != nil {
			typ = fmt.Sprintf("%q", f.PreTokenizer.Type)
		}
		return nil, fmt.Errorf("embed: tokenizer pre_tokenizer %s not supported (want BertPreTokenizer)", typ)
	}
	t := &Tokenizer{maxChars: 100}
	if n := f.Normalizer; n != nil {
		if n.Type != "BertNormalizer" {
			return nil, fmt.Errorf("embed: tokenizer normalizer.type %q not supported (want BertNormalizer or null)", n.Type)
		}
		// Defaults and the strip_accents rule follow Hugging Face
		// tokenizers: a null strip_accents follows lowercase.
		t.norm = bertNormalizer{cleanText: true, chinese: true, lowercase: true}
		if n.CleanText != nil {
			t.norm.cleanText = *n.CleanText
		}
		if n.HandleChineseChars != nil {
			t.norm.chinese = *n.HandleChineseChars
		}
		if n.Lowercase != nil {
			t.norm.lowercase = *n.Lowercase
		}
		t.norm.stripAccents = t.norm.lowercase
		if n.StripAccents != nil {
			t.norm.stripAccents = *n.StripAccents
		}
	}
	if tr := f.Truncation; tr != nil {
		if tr.Direction != "" && tr.Direction != "Right" {
			return nil, fmt.Errorf("embed: tokenizer truncation.direction %q not supported (want Right)", tr.Direction)
		}
		if tr.MaxLength < 0 {
			return nil, fmt.Errorf("embed: tokenizer truncation.max_length %d: negative", tr.MaxLength)
		}
		t.truncate = tr.MaxLength
	}
	if m.MaxInputCharsPerWord != nil {
		if *m.MaxInputCharsPerWord <= 0 {
			return nil, fmt.Errorf("embed: tokenizer model.max_input_chars_per_word %d: not positive", *m.MaxInputCharsPerWord)
		}
		t.maxChars = *m.MaxInputCharsPerWord
	}
	prefix := "##"
	if m.ContinuingSubwordPrefix != nil {
		prefix = *m.ContinuingSubwordPrefix
	}
	if len(m.Vocab) == 0 {
		return nil, fmt.Errorf("embed: tokenizer model.vocab: empty")
	}

	// Ids index the embedding rows, so they must be unique and small.
	maxID := int32(-1)
	for tok, id := range m.Vocab {
		if id < 0 || int(id) >= len(m.Vocab)+len(f.AddedTokens) {
			return nil, fmt.Errorf("embed: tokenizer model.vocab[%q] = %d: out of range", tok, id)
		}
		maxID = max(maxID, id)
	}
	for _, a := range f.AddedTokens {
		if a.ID < 0 || int(a.ID) >= len(m.Vocab)+len(f.AddedTokens) {
			return nil, fmt.Errorf("embed: tokenizer added_tokens %q id %d: out of range", a.Content, a.ID)
		}
		maxID = max(maxID, a.ID)
	}
	t.tokens = make([]string, maxID+1)
	seen := make([]bool, maxID+1)
	keys := make([]string, 0, len(m.Vocab))
	ids := make([]int32, 0, len(m.Vocab))
	var contKeys []string
	var contIDs []int32
	for tok, id := range m.Vocab {
		if seen[id] {
			return nil, fmt.Errorf("embed: tokenizer model.vocab: id %d used by %q and %q", id, t.tokens[id], tok)
		}
		seen[id] = true
		t.tokens[id] = tok
		keys = append(keys, tok)
		ids = append(ids, id)
		if rest, ok := cutPrefix(tok, prefix); ok && rest != "" {
			contKeys = append(contKeys, rest)
			contIDs = append(contIDs, id)
		}
	}
	for _, a := range f.AddedTokens {
		if seen[a.ID] && t.tokens[a.ID] != a.Content {
			return nil, fmt.Errorf("embed: tokenizer added_tokens %q id %d: already used by %q", a.Content, a.ID, t.tokens[a.ID])
		}
		seen[a.ID] = true
		t.tokens[a.ID] = a.Content
	}
	if m.UnkToken == nil {
		return nil, fmt.Errorf("embed: tokenizer model.unk_token: missing")
	}
	unk, ok := m.Vocab[*m.UnkToken]
	if !ok {
		return nil, fmt.Errorf("embed: tokenizer model.unk_token %q: not in vocab", *m.UnkToken)
	}
	t.unkID = unk
	t.words = buildTrie(keys, ids)
	t.conts = buildTrie(contKeys, contIDs)

	for _, a := range f.AddedTokens {
		if a.Content == "" {
			continue
		}
		tok := addedToken{content: []byte(a.Content), id: a.ID, singleWord: a.SingleWord}
		if a.Normalized {
			// Normalized added tokens are matched in normalized text, so
			// their pattern is their normalized form: "[PAD]" → "[pad]".
			var sc tokScratch
			tok.content = bytes.Clone(t.norm.apply(&sc, tok.content))
			if len(tok.content) == 0 {
				continue
			}
			t.normAdded = append(t.normAdded, tok)
		} else {
			t.rawAdded = append(t.rawAdded, tok)
		}
	}
	t.medianLen = medianTokenLen(t.tokens)
	return t, nil
}

// medianTokenLen is int(numpy.median(lengths in characters)) over the
// vocabulary, the figure Model2Vec multiplies by its token limit to cut
// over-long inputs before tokenizing.
func medianTokenLen(tokens []string) int {
	lens := make([]int, 0, len(tokens))
	for _, tok := range tokens {
		lens = append(lens, utf8.RuneCountInString(tok))
	}
	if len(lens) == 0 {
		return 0
	}
	slices.Sort(lens)
	n := len(lens)
	if n%2 == 1 {
		return lens[n/2]
	}
	return (lens[n/2-1] + lens[n/2]) / 2
}

func cutPrefix(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):], true
	}
	return s, false
}

// encode runs the whole pipeline: added tokens in the raw text, then for
// the text between them normalization, normalized added tokens,
// pre-tokenization and WordPiece; finally truncation.
func (t *Tokenizer) encode(sc *tokScratch, ids []int32, text string) []int32 {
	limit := int(^uint(0) >> 1)
	if t.truncate > 0 {
		limit = len(ids) + t.truncate
	}
	sc.raw = append(sc.raw[:0], text...)
	raw := sc.raw
	for pos := 0; len(ids) < limit; {
		start, end, id := len(raw), len(raw), int32(-1)
		if s, e, i := nextAdded(raw, pos, t.rawAdded); s >= 0 {
			start, end, id = s, e, i
		}
		if start > pos {
			ids = t.encodePiece(sc, ids, raw[pos:start], limit)
		}
		if id < 0 {
			break
		}
		ids = append(ids, id)
		pos = end
	}
	if len(ids) > limit {
		ids = ids[:limit]
	}
	return ids
}

// encodePiece encodes raw text that holds no raw added token.
func (t *Tokenizer) encodePiece(sc *tokScratch, ids []int32, piece []byte, limit int) []int32 {
	s := t.norm.apply(sc, piece)
	for pos := 0; len(ids) < limit; {
		start, end, id := len(s), len(s), int32(-1)
		if st, e, i := nextAdded(s, pos, t.normAdded); st >= 0 {
			start, end, id = st, e, i
		}
		if start > pos {
			ids = t.wordPieces(ids, s[pos:start], limit)
		}
		if id < 0 {
			break
		}
		ids = append(ids, id)
		pos = end
	}
	return ids
}

// nextAdded finds the next match of toks in s at or after from: leftmost,
// longest on ties; a single-word token touching a word character is no
// match, and the search resumes after it, as Hugging Face's matcher does.
// It returns start -1 when there is none.
func nextAdded(s []byte, from int, toks []addedToken) (start, end int, id int32) {
	for len(toks) > 0 && from < len(s) {
		best, tok := -1, (*addedToken)(nil)
		for i := range toks {
			j := bytes.Index(s[from:], toks[i].content)
			if j < 0 {
				continue
			}
			j += from
			if best < 0 || j < best || (j == best && len(toks[i].content) > len(tok.content)) {
				best, tok = j, &toks[i]
			}
		}
		if best < 0 {
			break
		}
		end := best + len(tok.content)
		if tok.singleWord && (endsWithWordChar(s[:best]) || startsWithWordChar(s[end:])) {
			from = end
			continue
		}
		return best, end, tok.id
	}
	return -1, -1, 0
}

// wordPieces pre-tokenizes normalized text — whitespace separates words and
// is dropped, each punctuation character is a word of its own — and appends
// the WordPiece ids of each word, stopping once ids reaches limit.
func (t *Tokenizer) wordPieces(ids []int32, s []byte, limit int) []int32 {
	start, chars := -1, 0
	for i := 0; i < len(s) && len(ids) < limit; {
		c := s[i]
		size := 1
		space, punct := false, false
		if c < utf8.RuneSelf {
			space = c == ' ' || ('\t' <= c && c <= '\r')
			punct = isASCIIPunct(c)
		} else {
			var r rune
			r, size = utf8.DecodeRune(s[i:])
			space = isWhitespace(r)
			punct = !space && isPunct(r)
		}
		if space || punct {
			if start >= 0 {
				ids = t.wordPiece(ids, s[start:i], chars)
				start = -1
			}
			if punct && len(ids) < limit {
				ids = t.wordPiece(ids, s[i:i+size], 1)
			}
		} else {
			if start < 0 {
				start, chars = i, 0
			}
			chars++
		}
		i += size
	}
	if start >= 0 && len(ids) < limit {
		ids = t.wordPiece(ids, s[start:], chars)
	}
	return ids
}

// wordPiece appends the ids of one word of chars characters: greedy
// longest-match-first, continuation pieces from the prefixed vocabulary; a
// word too long or not coverable becomes one unknown token.
func (t *Tokenizer) wordPiece(ids []int32, word []byte, chars int) []int32 {
	if chars > t.maxChars {
		return append(ids, t.unkID)
	}
	n0 := len(ids)
	for start := 0; start < len(word); {
		tr := &t.words
		if start > 0 {
			tr = &t.conts
		}
		n, id := tr.longest(word[start:])
		if n == 0 {
			return append(ids[:n0], t.unkID)
		}
		ids = append(ids, id)
		start += n
	}
	return ids
}
