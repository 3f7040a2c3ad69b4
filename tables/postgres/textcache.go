package postgres

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/viberag/viberag/tables"
)

// TextCacheBytes is StoreOptions.TextCacheBytes' default: the chunks' text
// of the repositories searched most recently, about 1.1 times their source.
const TextCacheBytes = 64 << 20

// textCache holds, for the repositories whose exact text was searched
// most recently, every chunk's text as of one version, so that a search
// of exact text in a whole repository scans memory instead of rechecking
// (and decompressing) on the shard every chunk pg_trgm's index names: the
// text is immutable per version, and a push is a new version. Its bytes
// are bounded; the least recently used repository leaves first. It is a
// cache only: a server without it answers the same.
type textCache struct {
	budget int64

	mu    sync.Mutex
	used  int64
	tick  int64
	repos map[int64]*repoText // by repository id
}

// repoText is one repository's chunks at one version, in (file, start
// line, ord) order: their text back to back, folded to ASCII lower case,
// each chunk followed by a NUL so that no match spans two chunks unseen,
// and a bit for every byte that was an upper-case letter, from which a
// chunk's text is made again (an eighth of the text where a copy as read
// would double it).
type repoText struct {
	version int64
	ready   chan struct{} // closed once loaded (or failed)
	err     error
	bytes   int64
	lastUse int64

	chunks []textChunk
	folded string
	upper  []uint64 // bit i: folded[i] was upper case
}

type textChunk struct {
	fileID    int64
	ord       int
	startLine int
	path      string
	header    string
	at, end   int // content is folded[at:end], with upper's case
}

func newTextCache(budget int64) *textCache {
	return &textCache{budget: budget, repos: map[int64]*repoText{}}
}

// get returns repository c's text at version v, loading it (once, however
// many searches ask at the same time) when the cache does not hold it;
// nil when it cannot be held (over the budget, or not read: the shard
// answers instead).
func (tc *textCache) get(ctx context.Context, c *repoConn, v int64) (*repoText, error) {
	tc.mu.Lock()
	rt := tc.repos[c.repo.ID]
	if rt == nil || rt.version != v {
		if rt != nil {
			tc.used -= rt.bytes
		}
		rt = &repoText{version: v, ready: make(chan struct{})}
		tc.repos[c.repo.ID] = rt
		tc.mu.Unlock()
		rt.err = rt.load(ctx, c, tc.budget)
		tc.mu.Lock()
		if rt.err != nil || rt.chunks == nil {
			if tc.repos[c.repo.ID] == rt {
				delete(tc.repos, c.repo.ID)
			}
		} else if tc.repos[c.repo.ID] == rt {
			tc.used += rt.bytes
			tc.evict(c.repo.ID)
		}
		close(rt.ready)
	}
	tc.tick++
	rt.lastUse = tc.tick
	tc.mu.Unlock()
	select {
	case <-rt.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if rt.err != nil || rt.chunks == nil {
		return nil, nil // the shard answers (and says what is wrong, if anything is)
	}
	return rt, nil
}

// evict drops the least recently used repositories, other than keep,
// until the cache is within its budget. tc.mu is held.
func (tc *textCache) evict(keep int64) {
	for tc.used > tc.budget {
		var victim int64 = -1
		var oldest int64
		for id, rt := range tc.repos {
			if id == keep || rt.chunks == nil {
				continue
			}
			if victim < 0 || rt.lastUse < oldest {
				victim, oldest = id, rt.lastUse
			}
		}
		if victim < 0 {
			return
		}
		tc.used -= tc.repos[victim].bytes
		delete(tc.repos, victim)
	}
}

// load reads every chunk of the repository with its file's path, unless
// they are more than budget bytes or the shard holds another version
// than rt's by now (then rt.chunks stays nil).
func (rt *repoText) load(ctx context.Context, c *repoConn, budget int64) error {
	var folded []byte
	var upper []uint64
	var chunks []textChunk
	var size int64
	err := c.query(ctx, `SELECT c.file_id, c.ord, c.start_line, c.header, c.content, f.path,
	(SELECT coalesce(max(version), 0) FROM repo_state WHERE repo_id = $1)
FROM chunks c JOIN files f ON f.repo_id = c.repo_id AND f.id = c.file_id WHERE c.repo_id = $1 ORDER BY c.file_id, c.start_line, c.ord`, c.args(),
		func(rows pgx.Rows) error {
			var k textChunk
			var content string
			var v int64
			if err := rows.Scan(&k.fileID, &k.ord, &k.startLine, &k.header, &content, &k.path, &v); err != nil {
				return err
			}
			if v != rt.version {
				return errStale
			}
			content = DecodeText(content)
			k.path, k.header = DecodeText(k.path), DecodeText(k.header)
			// The text, a bit a byte, and a chunk's fields.
			size += int64(len(content)+1)*9/8 + int64(len(k.header)+len(k.path)) + 64
			if size > budget {
				return errStop
			}
			k.at = len(folded)
			for i := 0; i < len(content); i++ {
				b := content[i]
				if len(folded)%64 == 0 {
					upper = append(upper, 0)
				}
				if 'A' <= b && b <= 'Z' {
					upper[len(folded)/64] |= 1 << (len(folded) % 64)
					b += 'a' - 'A'
				}
				folded = append(folded, b)
			}
			k.end = len(folded)
			if len(folded)%64 == 0 {
				upper = append(upper, 0)
			}
			folded = append(folded, 0)
			chunks = append(chunks, k)
			return nil
		})
	switch {
	case errors.Is(err, errStop):
		return nil // too large to hold: the shard answers
	case errors.Is(err, errStale):
		return nil // pushed since the version was read: the shard answers
	case err != nil:
		return err
	}
	rt.folded, rt.upper = string(folded), upper
	rt.bytes = size
	rt.chunks = chunks
	if rt.chunks == nil {
		rt.chunks = []textChunk{}
	}
	return nil
}

// errStale ends a load that finds the shard at another version.
var errStale = errors.New("stale version")

// containing calls fn with every chunk whose text holds text ignoring
// ASCII case, in (file, start line, ord) order, until fn returns false: a
// superset of the occurrences with or without case, as
// ChunksContaining's callers verify.
func (rt *repoText) containing(text string, fn func(*tables.ChunkText) bool) {
	needle := tables.ASCIILower(text)
	last := -1
	for off := 0; off < len(rt.folded); {
		i := strings.Index(rt.folded[off:], needle)
		if i < 0 {
			return
		}
		at := off + i
		// The chunk holding at: the last starting at or before it.
		lo, hi := max(last, 0), len(rt.chunks)
		for lo < hi {
			m := (lo + hi) / 2
			if rt.chunks[m].at <= at {
				lo = m + 1
			} else {
				hi = m
			}
		}
		k := lo - 1
		ch := rt.chunks[k]
		if at+len(needle) > ch.end {
			off = at + 1 // across a chunk's end: look on
			continue
		}
		if k != last {
			last = k
			c := tables.ChunkText{ID: rowID(ch.fileID, ch.ord), Path: ch.path, FileID: ch.fileID, StartLine: ch.startLine,
				Header: ch.header, Content: rt.content(ch)}
			if !fn(&c) {
				return
			}
		}
		// On to the next chunk: this one is passed.
		if k+1 >= len(rt.chunks) {
			return
		}
		off = rt.chunks[k+1].at
	}
}

// content makes chunk ch's text again: its folded bytes with the upper
// case letters put back.
func (rt *repoText) content(ch textChunk) string {
	b := []byte(rt.folded[ch.at:ch.end])
	for i := range b {
		at := ch.at + i
		if rt.upper[at/64]&(1<<(at%64)) != 0 {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}
