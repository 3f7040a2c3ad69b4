package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
)

// Model2Vec is a Model2Vec static embedding model: a text's vector is the
// mean of per-token vectors, so embedding is a tokenizer pass and a table
// lookup — no neural network at run time.
//
// Inference follows the reference implementation (the model2vec Python
// package): cut the text to MaxTokens × the vocabulary's median token length
// characters; tokenize without special tokens (the tokenizer truncates to
// its own max_length, 512 for potion models, counting unknown tokens); drop
// unknown tokens; keep the first MaxTokens; look up each token's row of the
// embeddings tensor through the mapping tensor; scale it by the weights
// tensor at the token id; average; divide by the L2 norm when config.json
// says normalize (potion models do; one that does not gets raw means). A
// text with no known token gets the zero vector.
//
// A Model2Vec is safe for concurrent use; Embed spreads large batches over
// GOMAXPROCS goroutines.
type Model2Vec struct {
	id        string
	tok       *Tokenizer
	dim       int
	emb       []float32 // rows × dim
	weights   []float64 // by token id; nil means all 1
	mapping   []int32   // token id → row; nil means the identity
	normalize bool
	maxTokens int
	maxChars  int       // 0 means no cap
	scratch   sync.Pool // *m2vScratch
}

// DefaultMaxTokens is Model2Vec's default token limit per text. As in the
// reference, a text is first cut to the limit × the vocabulary's median
// token length in characters (3,584 for potion-code-16M). Code runs at 3–4
// characters per token, so a chunk's first 1,500–2,000 characters make its
// vector and the rest does not move it.
const DefaultMaxTokens = 512

// Model2VecOptions configures LoadModel2Vec.
type Model2VecOptions struct {
	// Spec, when set, requires the directory's files to have the sha256
	// sums it lists (ErrChecksum otherwise), and names the model Spec.ID().
	Spec *ModelSpec

	// ID names the model, overriding the derived name. Without ID or Spec,
	// a directory holding a known model (DefaultModel) gets that model's ID
	// and any other gets "model2vec:local@" and 12 hex digits of a sha256
	// over its files, so two different models never share an ID.
	ID string

	// MaxTokens is the token limit per text; 0 means DefaultMaxTokens. A
	// non-default limit is appended to the ID ("+max256"), since it changes
	// the vectors of long texts.
	MaxTokens int
}

// Model2Vec file names inside a model directory.
const (
	modelFile     = "model.safetensors"
	tokenizerFile = "tokenizer.json"
	configFile    = "config.json"
)

// LoadModel2Vec loads a Model2Vec model from dir, which holds
// model.safetensors, tokenizer.json and config.json. It reads only local
// files.
func LoadModel2Vec(dir string, opts Model2VecOptions) (*Model2Vec, error) {
	if opts.MaxTokens < 0 {
		return nil, fmt.Errorf("embed: model2vec MaxTokens %d: negative", opts.MaxTokens)
	}
	sums := make(map[string]string, 3)
	readAll := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("embed: model2vec: %w", err)
		}
		s := sha256.Sum256(b)
		sums[name] = hex.EncodeToString(s[:])
		return b, nil
	}
	// The tokenizer parses while the tensors are read: loading is on the
	// path of every index run and of every search process.
	var tokSum string
	type parsed = struct {
		tok *Tokenizer
		err error
	}
	tokCh := make(chan parsed, 1)
	go func() {
		b, err := os.ReadFile(filepath.Join(dir, tokenizerFile))
		if err != nil {
			tokCh <- parsed{err: fmt.Errorf("embed: model2vec: %w", err)}
			return
		}
		s := sha256.Sum256(b)
		tokSum = hex.EncodeToString(s[:])
		tok, err := ParseTokenizer(b)
		if err != nil {
			err = fmt.Errorf("%w (file %s)", err, filepath.Join(dir, tokenizerFile))
		}
		tokCh <- parsed{tok, err}
	}()
	cfgData, err := readAll(configFile)
	if err != nil {
		<-tokCh
		return nil, err
	}
	var cfg struct {
		Normalize              *bool `json:"normalize"`
		VocabularyQuantization *int  `json:"vocabulary_quantization"`
	}
	if err := json.Unmarshal(cfgData, &cfg); err != nil {
		<-tokCh
		return nil, fmt.Errorf("embed: model2vec %s: %w", filepath.Join(dir, configFile), err)
	}
	m := &Model2Vec{normalize: cfg.Normalize != nil && *cfg.Normalize, maxTokens: opts.MaxTokens}
	path := filepath.Join(dir, modelFile)
	sum, rows, tensErr := m.readTensors(path, tokCh)
	if tensErr != nil {
		return nil, tensErr
	}
	sums[tokenizerFile] = tokSum
	sums[modelFile] = sum
	tok := m.tok
	if m.maxTokens == 0 {
		m.maxTokens = DefaultMaxTokens
	}
	m.maxChars = m.maxTokens * tok.medianLen
	if q := cfg.VocabularyQuantization; q != nil && m.mapping != nil && *q != rows {
		return nil, fmt.Errorf("embed: model2vec %s: vocabulary_quantization %d, but embeddings has %d rows", filepath.Join(dir, configFile), *q, rows)
	}
	if opts.Spec != nil {
		for _, f := range opts.Spec.Files {
			if got, ok := sums[f.Name]; ok && f.SHA256 != "" && got != f.SHA256 {
				return nil, fmt.Errorf("embed: model2vec %s: sha256: expected %s, got %s (delete it to download it again): %w", filepath.Join(dir, f.Name), f.SHA256, got, ErrChecksum)
			}
		}
	}
	switch {
	case opts.ID != "":
		m.id = opts.ID
	case opts.Spec != nil:
		m.id = opts.Spec.ID()
	default:
		m.id = idFromSums(sums)
	}
	if m.maxTokens != DefaultMaxTokens {
		m.id += "+max" + strconv.Itoa(m.maxTokens)
	}
	return m, nil
}

// idFromSums names a model directory by its files' sha256 sums.
func idFromSums(sums map[string]string) string {
	def := DefaultModel()
	known := true
	for _, f := range def.Files {
		if sums[f.Name] != f.SHA256 {
			known = false
		}
	}
	if known {
		return def.ID()
	}
	h := sha256.New()
	for _, name := range []string{modelFile, tokenizerFile, configFile} {
		io.WriteString(h, name+"="+sums[name]+"\n")
	}
	return "model2vec:local@" + hex.EncodeToString(h.Sum(nil))[:12]
}

// readTensors streams the safetensors file at path into m, then takes
// the tokenizer from tok (parsed meanwhile) and checks every tensor
// against it. It returns the file's sha256 and the embedding rows.
func (m *Model2Vec) readTensors(path string, tok <-chan struct {
	tok *Tokenizer
	err error
}) (string, int, error) {
	fail := func(err error) (string, int, error) {
		return "", 0, fmt.Errorf("embed: model2vec %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", 0, fmt.Errorf("embed: model2vec: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", 0, fmt.Errorf("embed: model2vec: %w", err)
	}
	h := sha256.New()
	r := io.TeeReader(f, h)
	tensors, err := readSTHeader(r, st.Size())
	if err != nil {
		return fail(err)
	}
	byName := make(map[string]stTensor, len(tensors))
	for _, t := range tensors {
		byName[t.Name] = t
	}
	emb, ok := byName["embeddings"]
	if !ok {
		return fail(fmt.Errorf("no tensor %q", "embeddings"))
	}
	if len(emb.Shape) != 2 || emb.Shape[0] <= 0 || emb.Shape[1] <= 0 {
		return fail(fmt.Errorf("tensor %q: shape %v, want [rows, dim]", "embeddings", emb.Shape))
	}
	rows := emb.Shape[0]
	m.dim = int(emb.Shape[1])
	var mapping []int64
	var decs = map[string]func([]byte){}
	if m.emb, decs["embeddings"], err = float32Decoder(emb); err != nil {
		return fail(err)
	}
	weights, hasWeights := byName["weights"]
	if hasWeights {
		if len(weights.Shape) != 1 {
			return fail(fmt.Errorf("tensor %q: shape %v, want [vocabulary]", "weights", weights.Shape))
		}
		if m.weights, decs["weights"], err = float64Decoder(weights); err != nil {
			return fail(err)
		}
	}
	mapT, hasMapping := byName["mapping"]
	if hasMapping {
		if len(mapT.Shape) != 1 {
			return fail(fmt.Errorf("tensor %q: shape %v, want [vocabulary]", "mapping", mapT.Shape))
		}
		if mapping, decs["mapping"], err = int64Decoder(mapT); err != nil {
			return fail(err)
		}
	}
	direct := func(t stTensor) []byte {
		if t.Name == "embeddings" && t.DType == "F32" {
			return f32Bytes(m.emb)
		}
		return nil
	}
	if err := readSTData(r, tensors, func(t stTensor) func([]byte) { return decs[t.Name] }, direct); err != nil {
		return fail(err)
	}
	if _, err := io.Copy(io.Discard, r); err != nil {
		return fail(err)
	}

	p := <-tok
	if p.err != nil {
		return "", 0, p.err
	}
	m.tok = p.tok
	vocab := m.tok.VocabSize()
	if hasWeights && weights.Shape[0] != int64(vocab) {
		return fail(fmt.Errorf("tensor %q: shape %v, want [%d] (the tokenizer's vocabulary)", "weights", weights.Shape, vocab))
	}
	if hasMapping && mapT.Shape[0] != int64(vocab) {
		return fail(fmt.Errorf("tensor %q: shape %v, want [%d] (the tokenizer's vocabulary)", "mapping", mapT.Shape, vocab))
	}
	if !hasMapping && rows != int64(vocab) {
		return fail(fmt.Errorf("tensor %q: %d rows, but the tokenizer has %d ids and there is no mapping tensor", "embeddings", rows, vocab))
	}
	if mapping != nil {
		m.mapping = make([]int32, len(mapping))
		for id, row := range mapping {
			if row < 0 || row >= rows {
				return fail(fmt.Errorf("tensor %q: mapping[%d] = %d, outside the %d embedding rows", "mapping", id, row, rows))
			}
			m.mapping[id] = int32(row)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), int(rows), nil
}

// ID implements Provider.
func (m *Model2Vec) ID() string { return m.id }

// Dim implements Provider.
func (m *Model2Vec) Dim() int { return m.dim }

// Tokenizer returns the model's tokenizer.
func (m *Model2Vec) Tokenizer() *Tokenizer { return m.tok }

// minPerWorker keeps small batches on one goroutine, where starting more
// would cost more than it saves.
const minPerWorker = 32

// Embed implements Provider.
func (m *Model2Vec) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*m.dim)
	for i := range out {
		out[i] = flat[i*m.dim : (i+1)*m.dim : (i+1)*m.dim]
	}
	if err := inParallel(len(texts), func(lo, hi int) error { return m.embedRange(ctx, texts[lo:hi], out[lo:hi]) }); err != nil {
		return nil, err
	}
	return out, nil
}

// inParallel runs fn over [0, n) in contiguous ranges, one per CPU, with
// at least minPerWorker items each (one range when n is small), and
// returns the ranges' errors joined.
func inParallel(n int, fn func(lo, hi int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n/minPerWorker)
	if workers <= 1 {
		return fn(0, n)
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	per := (n + workers - 1) / workers
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, n)
		wg.Go(func() { errs[w] = fn(lo, hi) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// m2vScratch holds one goroutine's buffers.
type m2vScratch struct {
	tok   tokScratch
	ids   []int32
	uniq  []int32 // distinct ids in first-seen order
	count []int32 // by token id; all zero between calls
	acc   []float64
}

func (m *Model2Vec) embedRange(ctx context.Context, texts []string, out [][]float32) error {
	sc, _ := m.scratch.Get().(*m2vScratch)
	if sc == nil {
		sc = &m2vScratch{acc: make([]float64, m.dim)}
	}
	defer m.scratch.Put(sc)
	for i, text := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("embed: model2vec: %w", err)
			}
		}
		m.embedOne(sc, text, out[i])
	}
	return nil
}

// embedOne writes the vector of text into dst.
//
// Tokens are counted first and each distinct one is added once, scaled by
// its count: code repeats tokens ("(", ".", "err") so much that this
// halves the work, and four rows are summed per pass over the accumulator.
func (m *Model2Vec) embedOne(sc *m2vScratch, text string, dst []float32) {
	text = truncateRunes(text, m.maxChars)
	sc.ids = m.tok.encode(&sc.tok, sc.ids[:0], text)
	if sc.count == nil {
		sc.count = make([]int32, m.tok.VocabSize())
	}
	uniq := sc.uniq[:0]
	n := 0
	unk := m.tok.unkID
	for _, id := range sc.ids {
		if id == unk {
			continue
		}
		if n == m.maxTokens {
			break
		}
		if sc.count[id] == 0 {
			uniq = append(uniq, id)
		}
		sc.count[id]++
		n++
	}
	sc.uniq = uniq
	if n == 0 {
		clear(dst)
		return
	}
	acc := sc.acc[:m.dim]
	clear(acc)
	i := 0
	for ; i+4 <= len(uniq); i += 4 {
		e0, w0 := m.row(sc, uniq[i])
		e1, w1 := m.row(sc, uniq[i+1])
		e2, w2 := m.row(sc, uniq[i+2])
		e3, w3 := m.row(sc, uniq[i+3])
		e0, e1, e2, e3 = e0[:len(acc)], e1[:len(acc)], e2[:len(acc)], e3[:len(acc)]
		for d := range acc {
			acc[d] += w0*float64(e0[d]) + w1*float64(e1[d]) + w2*float64(e2[d]) + w3*float64(e3[d])
		}
	}
	for ; i < len(uniq); i++ {
		e, w := m.row(sc, uniq[i])
		e = e[:len(acc)]
		for d := range acc {
			acc[d] += w * float64(e[d])
		}
	}
	for _, id := range uniq {
		sc.count[id] = 0
	}
	inv := 1 / float64(n)
	for d := range acc {
		acc[d] *= inv
	}
	if m.normalize {
		normalizeInto(dst, acc)
		return
	}
	for d, x := range acc {
		dst[d] = float32(x)
	}
}

// row returns the embedding row of token id and its weight times its count.
func (m *Model2Vec) row(sc *m2vScratch, id int32) ([]float32, float64) {
	r := int(id)
	if m.mapping != nil {
		r = int(m.mapping[id])
	}
	w := float64(sc.count[id])
	if m.weights != nil {
		w *= m.weights[id]
	}
	return m.emb[r*m.dim : (r+1)*m.dim], w
}

// truncateRunes cuts s to its first n characters (code points, as Python
// counts them); n <= 0 means no cut.
func truncateRunes(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s // no more characters than bytes
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}
