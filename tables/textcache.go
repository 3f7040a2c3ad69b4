package tables

import (
	"sync"

	"github.com/cespare/xxhash/v2"
)

// textCache keeps the decompressed texts of recently read files across
// searches. Each file's text is stored once, compressed (sources):
// a search's snippets decompress whole files, which took a sixth of the
// query CPU of the broad benchmark; an agent's searches keep returning to
// the same files. An entry is used only while the compressed blob it was
// made from is the one stored (its xxhash), so a re-written file is never
// served stale. Bounded by bytes; the oldest entries go first.
type textCache struct {
	mu    sync.Mutex
	max   int
	size  int
	seq   uint64
	texts map[int64]*cachedText
}

type cachedText struct {
	sum  uint64 // xxhash of the compressed blob
	hash string // files.hash of the content, when the reader knew it
	text string
	used uint64
}

// maxCachedTextBytes bounds a DB's textCache: the largest repositories'
// most searched files, and small beside a server's other memory.
const maxCachedTextBytes = 16 << 20

func newTextCache(max int) *textCache {
	return &textCache{max: max, texts: map[int64]*cachedText{}}
}

// get returns file id's text if it was made from blob.
func (c *textCache) get(id int64, blob []byte) (string, uint64, bool) {
	sum := xxhash.Sum64(blob)
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.texts[id]
	if e == nil || e.sum != sum {
		return "", sum, false
	}
	c.seq++
	e.used = c.seq
	return e.text, sum, true
}

// getByHash returns file id's text if it was made from the content of
// hash hash (files.hash, read in the same transaction as the chunks the
// text is for): the check without reading the compressed blob, which
// cost a twentieth of a warm search's CPU.
func (c *textCache) getByHash(id int64, hash string) (string, bool) {
	if hash == "" {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.texts[id]
	if e == nil || e.hash != hash {
		return "", false
	}
	c.seq++
	e.used = c.seq
	return e.text, true
}

// put keeps text, made from the blob of checksum sum (of content of hash
// hash, "" when unknown), as file id's.
func (c *textCache) put(id int64, sum uint64, hash, text string) {
	if len(text) > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.texts[id]; old != nil {
		c.size -= len(old.text)
	}
	c.seq++
	c.texts[id] = &cachedText{sum: sum, hash: hash, text: text, used: c.seq}
	c.size += len(text)
	for c.size > c.max {
		var oldest int64
		var least uint64 = ^uint64(0)
		for k, e := range c.texts {
			if e.used < least {
				oldest, least = k, e.used
			}
		}
		c.size -= len(c.texts[oldest].text)
		delete(c.texts, oldest)
	}
}
