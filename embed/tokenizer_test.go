package embed

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/viberag/viberag/embed/internal/testtok"
)

// The expected ids below were worked out by hand from the rules (BERT
// normalization, punctuation splitting, greedy longest-match WordPiece) and
// looked up in the real tokenizer.json's vocabulary; the tokens are listed
// beside them so a reader can check both.
func TestTokenizerRealVocabulary(t *testing.T) {
	tok := realTokenizer(t)
	repeat := func(first int32, rest int32, n int) []int32 {
		ids := []int32{first}
		for range n {
			ids = append(ids, rest)
		}
		return ids
	}
	tests := []struct {
		name   string
		in     string
		tokens []string // nil when ids are generated
		ids    []int32
	}{
		{"empty", "", []string{}, []int32{}},
		{"only spaces", " \t\n ", []string{}, []int32{}},
		{"punctuation isolated", "Hello, World!", []string{"hello", ",", "world", "!"}, []int32{6595, 13, 1091, 2}},
		{"code punctuation", "foo_bar(x, y);", []string{"foo", "_", "bar", "(", "x", ",", "y", ")", ";"}, []int32{28382, 38, 2350, 9, 63, 13, 64, 10, 28}},
		{"operators", "err != nil {", []string{"err", "!", "=", "nil", "{"}, []int32{29525, 2, 30, 29526, 66}},
		{"ascii symbols are punctuation", "a+b=c", []string{"a", "+", "b", "=", "c"}, []int32{40, 12, 41, 30, 42}},
		{"camelCase is one lowercased word", "getUserById", []string{"getuserbyid"}, []int32{36975}},
		{"word pieces", "parseHTTPResponseHeaders", []string{"parse", "##ht", "##tp", "##res", "##pon", "##se", "##head", "##ers"}, []int32{29557, 10042, 24859, 5075, 25032, 2369, 3977, 1548}},
		{"single-letter pieces", "zxqvjw", []string{"z", "##x", "##q", "##v", "##j", "##w"}, []int32{65, 1598, 3163, 1618, 2504, 1863}},
		{"accents stripped", "Café naïve résumé", []string{"cafe", "naive", "resume"}, []int32{6671, 14746, 12749}},
		{"Ø has no decomposition", "Ångström Øresund", []string{"ang", "##strom", "ø", "##res", "##und"}, []int32{16079, 14690, 103, 5075, 7633}},
		{"dotted capital I", "İ", []string{"i"}, []int32{48}},
		{"greek lowercased", "Ωmega ΣΑΣ", []string{"ω", "##me", "##ga", "σ", "##α", "##σ"}, []int32{182, 3171, 2657, 176, 13611, 28736}},
		{"CJK ideographs isolated", "中文abc", []string{"中", "文", "abc"}, []int32{749, 864, 4928}},
		{"unicode punctuation", "«quote» x—y", []string{"«", "quote", "»", "x", "—", "y"}, []int32{80, 13689, 93, 63, 520, 64}},
		{"currency sign is not punctuation", "a€b", []string{"a", "##€", "##b"}, []int32{40, 29105, 1500}},
		{"no-break and ideographic spaces split", "a\u00a0b\u3000x", []string{"a", "b", "x"}, []int32{40, 41, 63}},
		{"zero-width space removed", "a\u200bb", []string{"ab"}, []int32{10116}},
		{"controls removed, tab and newline split", "c\x00d\te\nf\vg", []string{"cd", "e", "fg"}, []int32{2732, 44, 30773}},
		{"emoji unknown", "😀 ok", []string{"[UNK]", "ok"}, []int32{1, 6932}},
		{"fullwidth letters unknown", "ｆｕｌｌ", []string{"[UNK]"}, []int32{1}},
		{"literal [UNK] is the unknown token", "[UNK] x", []string{"[UNK]", "x"}, []int32{1, 63}},
		{"literal [PAD] as a word", "x [PAD] y", []string{"x", "[PAD]", "y"}, []int32{63, 0, 64}},
		{"[PAD] touching a word is text", "x[PAD]", []string{"x", "[", "pad", "]"}, []int32{63, 34, 10690, 36}},
		{"100 characters is a word", strings.Repeat("a", 100), nil, repeat(59266, 10060, 47)}, // aaaaaa ##aa×47
		{"101 characters is unknown", strings.Repeat("a", 101), []string{"[UNK]"}, []int32{1}},
		{"101 accented characters is unknown", strings.Repeat("é", 101), []string{"[UNK]"}, []int32{1}},
		{"truncated to max_length", strings.Repeat("x ", 600), nil, slices.Repeat([]int32{63}, 512)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tok.Encode(nil, tc.in)
			if !slices.Equal(got, tc.ids) {
				t.Errorf("Encode(%q) = %v %q, want %v", tc.in, got, tokenStrings(tok, got), tc.ids)
			}
			if tc.tokens != nil {
				if gotTok := tokenStrings(tok, tc.ids); !slices.Equal(gotTok, tc.tokens) {
					t.Errorf("table ids %v are tokens %q, table says %q", tc.ids, gotTok, tc.tokens)
				}
			}
		})
	}
}

func tokenStrings(tok *Tokenizer, ids []int32) []string {
	out := []string{}
	for _, id := range ids {
		out = append(out, tok.Token(id))
	}
	return out
}

func TestTokenizerFacts(t *testing.T) {
	tok := realTokenizer(t)
	if got := tok.VocabSize(); got != 61826 {
		t.Errorf("VocabSize = %d, want 61826", got)
	}
	if got := tok.UnkID(); got != 1 {
		t.Errorf("UnkID = %d, want 1", got)
	}
	if got := tok.MaxLength(); got != 512 {
		t.Errorf("MaxLength = %d, want 512", got)
	}
	// Model2Vec cuts texts at 512 × the median token length in characters.
	if tok.medianLen != 7 {
		t.Errorf("median token length = %d, want 7", tok.medianLen)
	}
	for tokStr, want := range map[string]int32{"[PAD]": 0, "[UNK]": 1, ",": 13, "x": 63, "world": 1091, "hello": 6595, "##aa": 10060} {
		if id, ok := tok.TokenID(tokStr); !ok || id != want {
			t.Errorf("TokenID(%q) = %d, %v; want %d", tokStr, id, ok, want)
		}
	}
	if _, ok := tok.TokenID("no-such-token-here"); ok {
		t.Error("TokenID found a token not in the vocabulary")
	}
}

// The generated tokenizer takes every code path of the real one; the
// expected tokens follow from the rules and testtok's vocabulary.
func TestTokenizerGeneratedVocabulary(t *testing.T) {
	tok := generatedTokenizer(t)
	aaa := []string{"a"}
	for range 99 {
		aaa = append(aaa, "##a")
	}
	tests := []struct {
		name   string
		in     string
		tokens []string
	}{
		{"empty", "", []string{}},
		{"only spaces", " \t\n ", []string{}},
		{"punctuation isolated", "Hello, World!", []string{"hello", ",", "world", "!"}},
		{"code punctuation", "foo_bar(x, y);", []string{"foo", "_", "bar", "(", "x", ",", "y", ")", ";"}},
		{"operators", "err != nil {", []string{"err", "!", "=", "nil", "{"}},
		{"ascii symbols are punctuation", "a+b=c", []string{"a", "+", "b", "=", "c"}},
		{"camelCase word pieces", "getUserById", []string{"get", "##user", "##by", "##id"}},
		{"longest match first", "parseHTTPResponseHeaders", []string{"parse", "##http", "##response", "##head", "##ers"}},
		{"single-letter pieces", "zxqvjw", []string{"z", "##x", "##q", "##v", "##j", "##w"}},
		{"accents stripped", "Hélló Wörld", []string{"hello", "world"}},
		{"Ø has no decomposition", "Øx", []string{"ø", "##x"}},
		{"dotted capital I", "İ", []string{"i"}},
		{"greek lowercased", "ΩΜΈΓΑ", []string{"ω", "##μ", "##ε", "##γ", "##α"}},
		{"CJK ideographs isolated", "中文abc", []string{"中", "文", "a", "##b", "##c"}},
		{"unicode punctuation", "«text» x—y", []string{"«", "text", "»", "x", "—", "y"}},
		{"currency sign is not punctuation", "a€b", []string{"a", "##€", "##b"}},
		{"no-break and ideographic spaces split", "a\u00a0b\u3000x", []string{"a", "b", "x"}},
		{"zero-width space removed", "a\u200bb", []string{"a", "##b"}},
		{"controls removed, tab and newline split", "c\x00d\te\nf\vg", []string{"c", "##d", "e", "f", "##g"}},
		{"emoji unknown", "😀 ok", []string{"[UNK]", "ok"}},
		{"uncoverable word unknown whole", "a😀b c", []string{"[UNK]", "c"}},
		{"fullwidth letters unknown", "ｆｕｌｌ", []string{"[UNK]"}},
		{"literal [UNK] is the unknown token", "[UNK] x", []string{"[UNK]", "x"}},
		{"literal [PAD] as a word", "x [PAD] y", []string{"x", "[PAD]", "y"}},
		{"[PAD] touching a word is text", "x[PAD]", []string{"x", "[", "p", "##a", "##d", "]"}},
		{"100 characters is a word", strings.Repeat("a", 100), aaa},
		{"101 characters is unknown", strings.Repeat("a", 101), []string{"[UNK]"}},
		{"101 accented characters is unknown", strings.Repeat("é", 101), []string{"[UNK]"}},
		{"truncated to max_length", strings.Repeat("x ", 600), slices.Repeat([]string{"x"}, 512)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tokenStrings(tok, tok.Encode(nil, tc.in)); !slices.Equal(got, tc.tokens) {
				t.Errorf("Encode(%q) = %q, want %q", tc.in, got, tc.tokens)
			}
		})
	}
}

func TestGeneratedTokenizerFacts(t *testing.T) {
	tok := generatedTokenizer(t)
	vocab := testtok.Vocabulary()
	if got := tok.VocabSize(); got != len(vocab) {
		t.Errorf("VocabSize = %d, want %d", got, len(vocab))
	}
	for id, s := range vocab {
		if got, ok := tok.TokenID(s); !ok || got != int32(id) {
			t.Errorf("TokenID(%q) = %d, %v; want %d", s, got, ok, id)
		}
	}
	if tok.UnkID() != 1 || tok.MaxLength() != 512 || tok.maxChars != 100 {
		t.Errorf("UnkID %d, MaxLength %d, max chars per word %d; want 1, 512, 100", tok.UnkID(), tok.MaxLength(), tok.maxChars)
	}
	// TestModel2VecLimits needs 3 × the median for its texts.
	if tok.medianLen != 5 {
		t.Errorf("median token length = %d, want 5", tok.medianLen)
	}
	if !bytes.Equal(testtok.Generated(), testtok.Generated()) {
		t.Error("generated tokenizer differs between calls")
	}
}

// The generated tokenizer has the real one's settings, and its ASCII
// characters the real ids.
func TestGeneratedTokenizerMatchesReal(t *testing.T) {
	real, gen := realTokenizer(t), generatedTokenizer(t)
	if gen.UnkID() != real.UnkID() || gen.MaxLength() != real.MaxLength() || gen.maxChars != real.maxChars || gen.norm != real.norm {
		t.Errorf("settings differ: generated %d %d %d %+v, real %d %d %d %+v",
			gen.UnkID(), gen.MaxLength(), gen.maxChars, gen.norm, real.UnkID(), real.MaxLength(), real.maxChars, real.norm)
	}
	for id := range int32(70) {
		if g, r := gen.Token(id), real.Token(id); g != r {
			t.Errorf("id %d: generated %q, real %q", id, g, r)
		}
	}
	if len(gen.normAdded) != len(real.normAdded) || len(gen.rawAdded) != len(real.rawAdded) {
		t.Errorf("added tokens differ: generated %d+%d, real %d+%d", len(gen.rawAdded), len(gen.normAdded), len(real.rawAdded), len(real.normAdded))
	}
}

func TestTokenizerAppendsAndIsDeterministic(t *testing.T) {
	tok := testTokenizer(t)
	ids := tinyTokenIDs(t)
	dst := []int32{-7}
	got := tok.Encode(dst, "hello world")
	if want := []int32{-7, ids.hello, ids.world}; !slices.Equal(got, want) {
		t.Fatalf("Encode appended %v, want %v", got, want)
	}
	text := "func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { Ünïcode 中文 }"
	first := tok.Encode(nil, text)
	for range 3 {
		if again := tok.Encode(nil, text); !slices.Equal(again, first) {
			t.Fatalf("Encode not deterministic: %v then %v", first, again)
		}
	}
}

// A tokenizer.json written by hand checks the settings the real file does
// not exercise: an explicit max_input_chars_per_word, another continuation
// prefix, lowercase off, and strip_accents set apart from lowercase.
func TestTokenizerSettings(t *testing.T) {
	vocab := `{"[UNK]": 0, "ab": 1, "++c": 2, "c": 3, "AB": 4, "é": 5, "e": 6}`
	file := func(normalizer string) string {
		return `{"normalizer": ` + normalizer + `, "pre_tokenizer": {"type": "BertPreTokenizer"},
			"model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "++",
			"max_input_chars_per_word": 3, "vocab": ` + vocab + `}}`
	}
	tests := []struct {
		name, normalizer, in string
		want                 []int32
	}{
		{"prefix and word limit", `{"type": "BertNormalizer", "lowercase": true}`, "abc abcc", []int32{1, 2, 0}},
		{"lowercase off keeps case", `{"type": "BertNormalizer", "lowercase": false}`, "AB ab", []int32{4, 1}},
		{"lowercase off keeps accents", `{"type": "BertNormalizer", "lowercase": false}`, "é", []int32{5}},
		{"strip_accents overrides lowercase", `{"type": "BertNormalizer", "lowercase": false, "strip_accents": true}`, "é", []int32{6}},
		{"no normalizer", `null`, "AB é", []int32{4, 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := ParseTokenizer([]byte(file(tc.normalizer)))
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.Encode(nil, tc.in); !slices.Equal(got, tc.want) {
				t.Errorf("Encode(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseTokenizerErrors(t *testing.T) {
	const pre = `"pre_tokenizer": {"type": "BertPreTokenizer"}`
	const model = `"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}}`
	tests := []struct {
		name, json, want string
	}{
		{"not JSON", `{`, "tokenizer JSON"},
		{"BPE model", `{` + pre + `, "model": {"type": "BPE", "vocab": {"a": 0}}}`, `model.type "BPE" not supported`},
		{"other pre-tokenizer", `{"pre_tokenizer": {"type": "Whitespace"}, ` + model + `}`, `pre_tokenizer "Whitespace" not supported`},
		{"no pre-tokenizer", `{` + model + `}`, "pre_tokenizer null not supported"},
		{"other normalizer", `{"normalizer": {"type": "NFC"}, ` + pre + `, ` + model + `}`, `normalizer.type "NFC" not supported`},
		{"left truncation", `{"truncation": {"max_length": 8, "direction": "Left"}, ` + pre + `, ` + model + `}`, `truncation.direction "Left"`},
		{"empty vocab", `{` + pre + `, "model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {}}}`, "vocab: empty"},
		{"unk not in vocab", `{` + pre + `, "model": {"type": "WordPiece", "unk_token": "<unk>", "vocab": {"a": 0}}}`, `unk_token "<unk>": not in vocab`},
		{"no unk", `{` + pre + `, "model": {"type": "WordPiece", "vocab": {"a": 0}}}`, "unk_token: missing"},
		{"duplicate id", `{` + pre + `, "model": {"type": "WordPiece", "unk_token": "a", "vocab": {"a": 0, "b": 0}}}`, "id 0 used by"},
		{"id out of range", `{` + pre + `, "model": {"type": "WordPiece", "unk_token": "a", "vocab": {"a": 0, "b": 9}}}`, `vocab["b"] = 9: out of range`},
		{"bad word limit", `{` + pre + `, "model": {"type": "WordPiece", "unk_token": "a", "max_input_chars_per_word": 0, "vocab": {"a": 0}}}`, "max_input_chars_per_word 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTokenizer([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseTokenizer error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLoadTokenizerMissingFile(t *testing.T) {
	if _, err := LoadTokenizer("no/such/tokenizer.json"); err == nil {
		t.Fatal("LoadTokenizer of a missing file succeeded")
	}
}
