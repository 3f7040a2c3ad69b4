package embed

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
)

// countingProvider embeds a text as (its length, 1), unnormalised so the
// values are easy to read, and records what it was asked.
type countingProvider struct {
	id    string
	dim   int
	mu    sync.Mutex
	calls [][]string
	err   error
}

func (p *countingProvider) ID() string { return p.id }
func (p *countingProvider) Dim() int   { return p.dim }

func (p *countingProvider) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	p.mu.Lock()
	p.calls = append(p.calls, slices.Clone(texts))
	p.mu.Unlock()
	if p.err != nil {
		return nil, p.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = make([]float32, p.dim)
		out[i][0] = float32(len(t))
		out[i][1] = 1
	}
	return out, nil
}

func TestCachedEmbedsOnlyNewText(t *testing.T) {
	ctx := context.Background()
	p := &countingProvider{id: "fake:a", dim: 2}
	cache := NewMemCache()
	cp := Cached(p, cache)
	if cp.ID() != "fake:a" || cp.Dim() != 2 {
		t.Fatalf("ID %q Dim %d, want the provider's", cp.ID(), cp.Dim())
	}

	steps := []struct {
		texts     []string
		wantCall  []string // nil: no call
		wantStats CacheStats
	}{
		// A repeated text is embedded once.
		{[]string{"aa", "b", "aa"}, []string{"aa", "b"}, CacheStats{Hits: 1, Misses: 2}},
		// Only the new text goes to the provider.
		{[]string{"b", "ccc", "aa"}, []string{"ccc"}, CacheStats{Hits: 3, Misses: 3}},
		// Nothing new: no call at all.
		{[]string{"ccc", "aa"}, nil, CacheStats{Hits: 5, Misses: 3}},
	}
	for i, s := range steps {
		before := len(p.calls)
		got, err := cp.Embed(ctx, s.texts)
		if err != nil {
			t.Fatal(err)
		}
		for j, text := range s.texts {
			if want := []float32{float32(len(text)), 1}; !slices.Equal(got[j], want) {
				t.Errorf("step %d: vector of %q = %v, want %v", i, text, got[j], want)
			}
		}
		switch {
		case s.wantCall == nil && len(p.calls) != before:
			t.Errorf("step %d: provider called with %q, want no call", i, p.calls[len(p.calls)-1])
		case s.wantCall != nil && (len(p.calls) != before+1 || !slices.Equal(p.calls[before], s.wantCall)):
			t.Errorf("step %d: provider calls %q, want one with %q", i, p.calls[before:], s.wantCall)
		}
		if st := cp.Stats(); st != s.wantStats {
			t.Errorf("step %d: stats %+v, want %+v", i, st, s.wantStats)
		}
	}
	if cache.Len() != 3 {
		t.Errorf("cache holds %d vectors, want 3", cache.Len())
	}
}

func TestCachedKeepsModelsApart(t *testing.T) {
	ctx := context.Background()
	cache := NewMemCache()
	a := &countingProvider{id: "fake:a", dim: 2}
	b := &countingProvider{id: "fake:b", dim: 2}
	if _, err := Cached(a, cache).Embed(ctx, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Cached(b, cache).Embed(ctx, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if len(b.calls) != 1 {
		t.Errorf("model b reused model a's vector")
	}
}

func TestCachedIgnoresWrongDimension(t *testing.T) {
	ctx := context.Background()
	cache := NewMemCache()
	cache.Put(ctx, "fake:a", []uint64{TextKey("x")}, [][]float32{{1, 2, 3}})
	p := &countingProvider{id: "fake:a", dim: 2}
	got, err := Cached(p, cache).Embed(ctx, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.calls) != 1 || !slices.Equal(got[0], []float32{1, 1}) {
		t.Errorf("stale 3-dim vector served: %v after %d calls", got[0], len(p.calls))
	}
}

func TestCachedVectorsAreNotShared(t *testing.T) {
	ctx := context.Background()
	p := &countingProvider{id: "fake:a", dim: 2}
	cp := Cached(p, NewMemCache())
	got, err := cp.Embed(ctx, []string{"x", "x"})
	if err != nil {
		t.Fatal(err)
	}
	got[0][0] = 99
	if got[1][0] == 99 {
		t.Error("two results share one slice")
	}
	again, err := cp.Embed(ctx, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if again[0][0] == 99 {
		t.Error("changing a result changed the cache")
	}
}

func TestCachedProviderError(t *testing.T) {
	boom := errors.New("boom")
	p := &countingProvider{id: "fake:a", dim: 2, err: boom}
	cache := NewMemCache()
	if _, err := Cached(p, cache).Embed(context.Background(), []string{"x"}); !errors.Is(err, boom) {
		t.Errorf("err = %v, want the provider's", err)
	}
	if cache.Len() != 0 {
		t.Error("a failed batch was cached")
	}
}

// The wrapper works with any Provider; with Model2Vec the cached vectors are
// the computed ones.
func TestCachedModel2Vec(t *testing.T) {
	m, err := LoadModel2Vec(tinyModelDir(t), Model2VecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cp := Cached(m, NewMemCache())
	texts := []string{"hello world", "x", "hello world"}
	first, err := cp.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	second, err := cp.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := m.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if !slices.Equal(first[i], direct[i]) || !slices.Equal(second[i], direct[i]) {
			t.Errorf("text %d: cached %v / %v, direct %v", i, first[i], second[i], direct[i])
		}
	}
	if st := cp.Stats(); st != (CacheStats{Hits: 4, Misses: 2}) {
		t.Errorf("stats %+v", st)
	}
}

func TestTextKey(t *testing.T) {
	// xxhash64 of "" and "hello", fixed by the algorithm.
	if got := TextKey(""); got != 0xef46db3751d8e999 {
		t.Errorf("TextKey(\"\") = %#x", got)
	}
	if TextKey("hello") == TextKey("hello ") {
		t.Error("different texts, same key")
	}
}
