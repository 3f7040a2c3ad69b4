package embed

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
)

// Cache stores vectors by provider ID and text key (see TextKey).
// Implementations must be safe for concurrent use, and must not keep or
// change the slices they are given or return (copy them).
type Cache interface {
	// Get returns one vector per key, nil where the cache has none.
	Get(ctx context.Context, model string, keys []uint64) ([][]float32, error)

	// Put stores vecs[i] under keys[i].
	Put(ctx context.Context, model string, keys []uint64, vecs [][]float32) error
}

// TextKey is the cache key of a text: its xxhash64. A collision between two
// texts embedded by one model would give one the other's vector; at 64 bits
// that takes billions of distinct texts to become likely.
func TextKey(text string) uint64 { return xxhash.Sum64String(text) }

// CachedProvider is a Provider that asks its Cache before its provider.
type CachedProvider struct {
	p      Provider
	c      Cache
	hits   atomic.Int64
	misses atomic.Int64
}

// Cached wraps p so that vectors are looked up in c first, and the ones p
// computes are stored in c. Texts repeated within a batch are embedded once.
func Cached(p Provider, c Cache) *CachedProvider {
	return &CachedProvider{p: p, c: c}
}

// CacheStats counts texts served from the cache and texts embedded.
type CacheStats struct {
	Hits, Misses int64
}

// Stats reports the counts since Cached.
func (cp *CachedProvider) Stats() CacheStats {
	return CacheStats{Hits: cp.hits.Load(), Misses: cp.misses.Load()}
}

// ID implements Provider.
func (cp *CachedProvider) ID() string { return cp.p.ID() }

// Dim implements Provider.
func (cp *CachedProvider) Dim() int { return cp.p.Dim() }

// Embed implements Provider. A cached vector that the provider could not
// have returned — of another length than its dimension (when known), with
// a NaN or infinite component, or all zeros for a non-empty text — counts
// as missing, so a bad vector stored once is embedded again rather than
// served back for ever.
func (cp *CachedProvider) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	id := cp.p.ID()
	keys := make([]uint64, len(texts))
	for i, t := range texts {
		keys[i] = TextKey(t)
	}
	out, err := cp.c.Get(ctx, id, keys)
	if err != nil {
		return nil, fmt.Errorf("embed: cache get: %w", err)
	}
	if len(out) != len(keys) {
		return nil, fmt.Errorf("embed: cache get: %d vectors for %d keys", len(out), len(keys))
	}

	dim := cp.p.Dim()
	first := make(map[uint64]int) // key → index in missTexts
	var missTexts []string
	var missKeys []uint64
	for i, v := range out {
		if v != nil && (dim == 0 || len(v) == dim) && (texts[i] == "" || checkValues(v) == nil) {
			continue
		}
		out[i] = nil
		if _, ok := first[keys[i]]; !ok {
			first[keys[i]] = len(missTexts)
			missTexts = append(missTexts, texts[i])
			missKeys = append(missKeys, keys[i])
		}
	}
	if len(missTexts) == 0 {
		cp.hits.Add(int64(len(texts)))
		return out, nil
	}
	vecs, err := cp.p.Embed(ctx, missTexts)
	if err != nil {
		return nil, err
	}
	// Counted once the texts are embedded: a failed call embedded nothing.
	cp.hits.Add(int64(len(texts) - len(missTexts)))
	cp.misses.Add(int64(len(missTexts)))
	if len(vecs) != len(missTexts) {
		return nil, fmt.Errorf("embed: provider %s: %d vectors for %d texts", id, len(vecs), len(missTexts))
	}
	if err := cp.c.Put(ctx, id, missKeys, vecs); err != nil {
		return nil, fmt.Errorf("embed: cache put: %w", err)
	}
	used := make([]bool, len(vecs))
	for i := range out {
		if out[i] == nil {
			j := first[keys[i]]
			out[i] = vecs[j]
			if used[j] { // a repeated text gets its own copy
				out[i] = append([]float32(nil), vecs[j]...)
			}
			used[j] = true
		}
	}
	return out, nil
}

// MemCache is an in-memory Cache.
type MemCache struct {
	mu sync.Mutex
	m  map[memKey][]float32
}

type memKey struct {
	model string
	key   uint64
}

// NewMemCache returns an empty MemCache.
func NewMemCache() *MemCache {
	return &MemCache{m: make(map[memKey][]float32)}
}

// Get implements Cache.
func (c *MemCache) Get(ctx context.Context, model string, keys []uint64) ([][]float32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([][]float32, len(keys))
	for i, k := range keys {
		if v, ok := c.m[memKey{model, k}]; ok {
			out[i] = append([]float32(nil), v...)
		}
	}
	return out, nil
}

// Put implements Cache.
func (c *MemCache) Put(ctx context.Context, model string, keys []uint64, vecs [][]float32) error {
	if len(keys) != len(vecs) {
		return fmt.Errorf("embed: memcache put: %d keys, %d vectors", len(keys), len(vecs))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, k := range keys {
		c.m[memKey{model, k}] = append([]float32(nil), vecs[i]...)
	}
	return nil
}

// Len is the number of vectors stored.
func (c *MemCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
