package embed

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/viberag/viberag/extract/words"
)

// Static is a static word-embedding model over identifier parts: a
// text's vector is the weighted sum of the vectors of its words, scaled
// to unit length. Its words are what the lexical channels search — every
// run of letters and digits cut by package words, as the index cuts
// identifiers (getUserById → get user by id), lower-cased — so a query
// and the code it should find are cut into the same words.
//
// Words outside the vocabulary are dropped; a text with no known word
// gets the zero vector. Each word has a weight (its training frequency
// turned into a smooth inverse, so "the" and "return" weigh little) and
// an int8 vector with a scale of its own.
//
// A Static is safe for concurrent use; it is read-only once loaded.
type Static struct {
	id       string
	dim      int
	index    map[string]int32
	weights  []float32 // weight × scale, by word id
	rows     []int8    // words × dim
	maxWords int
}

// StaticModel is a static model before quantisation: what a trainer
// writes with WriteStatic.
type StaticModel struct {
	Name    string      // a short name, part of the provider's ID
	Words   []string    // distinct, lower-case
	Weights []float32   // by word; ≥ 0
	Vectors [][]float32 // by word; all of one length
}

// StaticFile is the file of a static model inside its directory.
const StaticFile = "static.bin"

// LoadStatic loads the static model in dir/static.bin. It reads only that
// file.
func LoadStatic(dir string) (*Static, error) {
	data, err := os.ReadFile(filepath.Join(dir, StaticFile))
	if err != nil {
		return nil, fmt.Errorf("embed: static model: %w", err)
	}
	m, err := ReadStatic(data)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, filepath.Join(dir, StaticFile))
	}
	return m, nil
}

// staticMagic starts a static model file.
const staticMagic = "viberag-static\x00\x01"

// DefaultStaticMaxWords caps the words of one text that make its vector:
// enough for a chunk of code; the rest of a very long text does not
// move it.
const DefaultStaticMaxWords = 4096

// WriteStatic writes m in the static model format: the magic, then
// uvarint dim, word count and name, then per word its uvarint-prefixed
// bytes, float32 weight and float32 scale, then the int8 rows. Each
// vector is quantised to int8 with its own scale (max |x| / 127).
func WriteStatic(w io.Writer, m StaticModel) error {
	if len(m.Words) == 0 || len(m.Words) != len(m.Vectors) || len(m.Words) != len(m.Weights) {
		return fmt.Errorf("embed: static model %q: %d words, %d vectors, %d weights: want as many, and at least one", m.Name, len(m.Words), len(m.Vectors), len(m.Weights))
	}
	dim := len(m.Vectors[0])
	if dim == 0 {
		return fmt.Errorf("embed: static model %q: vectors of length 0", m.Name)
	}
	var buf bytes.Buffer
	buf.WriteString(staticMagic)
	putUvarint(&buf, uint64(dim))
	putUvarint(&buf, uint64(len(m.Words)))
	putUvarint(&buf, uint64(len(m.Name)))
	buf.WriteString(m.Name)
	seen := make(map[string]bool, len(m.Words))
	scales := make([]float32, len(m.Words))
	for i, word := range m.Words {
		if word == "" || seen[word] || word != strings.ToLower(word) {
			return fmt.Errorf("embed: static model %q: word %d %q: empty, repeated or not lower-case", m.Name, i, word)
		}
		seen[word] = true
		if len(m.Vectors[i]) != dim {
			return fmt.Errorf("embed: static model %q: word %q: vector of length %d, want %d", m.Name, word, len(m.Vectors[i]), dim)
		}
		if w := m.Weights[i]; w < 0 || math.IsNaN(float64(w)) || math.IsInf(float64(w), 0) {
			return fmt.Errorf("embed: static model %q: word %q: weight %v", m.Name, word, w)
		}
		var mx float64
		for _, x := range m.Vectors[i] {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("embed: static model %q: word %q: component %v", m.Name, word, x)
			}
			mx = max(mx, math.Abs(float64(x)))
		}
		scales[i] = float32(mx / 127)
		putUvarint(&buf, uint64(len(word)))
		buf.WriteString(word)
		binary.Write(&buf, binary.LittleEndian, m.Weights[i])
		binary.Write(&buf, binary.LittleEndian, scales[i])
	}
	row := make([]byte, dim)
	for i, v := range m.Vectors {
		for d, x := range v {
			q := 0.0
			if scales[i] > 0 {
				q = math.Round(float64(x) / float64(scales[i]))
			}
			row[d] = byte(int8(max(-127, min(127, q))))
		}
		buf.Write(row)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func putUvarint(b *bytes.Buffer, x uint64) {
	var tmp [binary.MaxVarintLen64]byte
	b.Write(tmp[:binary.PutUvarint(tmp[:], x)])
}

// ReadStatic reads a model written by WriteStatic. Its ID is
// "static:" + the model's name + "@" + 12 hex digits of the data's
// sha256, so two different models never share an ID.
func ReadStatic(data []byte) (*Static, error) {
	fail := func(what string, err error) (*Static, error) {
		if err == nil {
			err = errors.New("malformed")
		}
		return nil, fmt.Errorf("embed: static model: %s: %w", what, err)
	}
	if !bytes.HasPrefix(data, []byte(staticMagic)) {
		return fail("header", errors.New("not a static model file"))
	}
	r := bytes.NewReader(data[len(staticMagic):])
	dim, err := binary.ReadUvarint(r)
	if err != nil || dim == 0 || dim > 4096 {
		return fail(fmt.Sprintf("dim %d", dim), err)
	}
	n, err := binary.ReadUvarint(r)
	if err != nil || n == 0 || n > 1<<22 {
		return fail(fmt.Sprintf("word count %d", n), err)
	}
	name, err := readString(r)
	if err != nil {
		return fail("name", err)
	}
	m := &Static{
		dim:      int(dim),
		index:    make(map[string]int32, n),
		weights:  make([]float32, n),
		maxWords: DefaultStaticMaxWords,
	}
	var ws [2]float32
	for i := range int(n) {
		word, err := readString(r)
		if err != nil {
			return fail(fmt.Sprintf("word %d", i), err)
		}
		if err := binary.Read(r, binary.LittleEndian, &ws); err != nil {
			return fail(fmt.Sprintf("word %q: weight", word), err)
		}
		if _, dup := m.index[word]; dup {
			return fail(fmt.Sprintf("word %q", word), errors.New("repeated"))
		}
		m.index[word] = int32(i)
		m.weights[i] = ws[0] * ws[1]
	}
	rest := data[len(data)-r.Len():]
	if len(rest) != int(n)*int(dim) {
		return fail("rows", fmt.Errorf("%d bytes, want %d × %d", len(rest), n, dim))
	}
	m.rows = make([]int8, len(rest))
	for i, b := range rest {
		m.rows[i] = int8(b)
	}
	sum := sha256.Sum256(data)
	m.id = "static:" + name + "@" + hex.EncodeToString(sum[:])[:12]
	return m, nil
}

func readString(r *bytes.Reader) (string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return "", err
	}
	if n > uint64(r.Len()) {
		return "", fmt.Errorf("length %d past the end", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return string(b), nil
}

// ID implements Provider.
func (m *Static) ID() string { return m.id }

// Dim implements Provider.
func (m *Static) Dim() int { return m.dim }

// VocabSize is the number of words the model knows.
func (m *Static) VocabSize() int { return len(m.weights) }

// Embed implements Provider.
func (m *Static) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*m.dim)
	for i := range out {
		out[i] = flat[i*m.dim : (i+1)*m.dim : (i+1)*m.dim]
	}
	err := inParallel(len(texts), func(lo, hi int) error {
		acc := make([]float64, m.dim)
		var buf []byte
		for i := lo; i < hi; i++ {
			if (i-lo)%64 == 0 {
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("embed: static: %w", err)
				}
			}
			buf = m.embedOne(texts[i], out[i], acc, buf)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// embedOne writes the vector of text into dst, using buf for words.
func (m *Static) embedOne(text string, dst []float32, acc []float64, buf []byte) []byte {
	clear(acc)
	n := 0
	buf = staticWords(text, buf, func(w []byte) bool {
		id, ok := m.index[string(w)]
		if !ok {
			return true
		}
		if n++; n > m.maxWords {
			return false
		}
		wt := float64(m.weights[id])
		row := m.rows[int(id)*m.dim : (int(id)+1)*m.dim]
		row = row[:len(acc)]
		for d := range acc {
			acc[d] += wt * float64(row[d])
		}
		return true
	})
	normalizeInto(dst, acc)
	return buf
}

// Words returns the model's vocabulary, sorted.
func (m *Static) Words() []string {
	out := make([]string, 0, len(m.index))
	for w := range m.index {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// StaticWords yields the words of text as a static model sees them: the
// words of package words, as the index cuts identifiers (a new word at a
// lower→upper change, before the last capital of a capital run followed by
// a lower-case letter, and at a letter→digit change), lower-cased. The
// identifier's whole form, which extract.SplitIdentifier appends, is not
// yielded: a static model learns parts, and the whole would be a word of
// its own for every identifier. Parts of one rune that is not a digit are
// dropped (loop variables, "s" of "users's").
//
// Trainers and the provider share this function, so a model's vocabulary
// is cut exactly as the texts it embeds.
func StaticWords(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		staticWords(text, nil, func(w []byte) bool { return yield(string(w)) })
	}
}

// staticWords calls fn with each word of text (see StaticWords) in a
// buffer that fn must not keep, and returns the buffer for reuse.
func staticWords(text string, buf []byte, fn func([]byte) bool) []byte {
	words.Each(text, func(w string) bool {
		if r, size := utf8.DecodeRuneInString(w); size == len(w) && !unicode.IsDigit(r) {
			return true // one rune that is not a digit
		}
		buf = words.AppendLower(buf[:0], w)
		return fn(buf)
	})
	return buf
}
