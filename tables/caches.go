package tables

// CacheStats reports what an IndexReader's caches hold. Each is bounded (the
// Max fields): a server that agents keep open for days searches and
// re-indexes through them, and a cache keyed by something every write
// changes (segment numbers, file ids) must forget what the writes made
// unreachable.
type CacheStats struct {
	// WordSegments are the decoded word segments kept (words_read.go):
	// at most the segments live in the word indexes.
	WordSegments int
	// WordBlockBytes are the word blocks kept, at most MaxWordBlockBytes.
	WordBlockBytes int
	// Texts and TextBytes are the decompressed file texts kept, at most
	// MaxTextBytes.
	Texts, TextBytes int
	// Statements are the prepared read statements, at most
	// MaxStatements.
	Statements int
}

// Bounds of the read caches (CacheStats).
const (
	MaxWordBlockBytes = wordCacheBytes
	MaxTextBytes      = maxCachedTextBytes
	MaxStatements     = maxCachedStmts
)

// CacheStats reports what rd's caches hold now.
func (rd *IndexReader) CacheStats() CacheStats {
	var s CacheStats
	rd.words.mu.Lock()
	s.WordSegments, s.WordBlockBytes = len(rd.words.segs), rd.words.blockBytes
	rd.words.mu.Unlock()
	rd.texts.mu.Lock()
	s.Texts, s.TextBytes = len(rd.texts.texts), rd.texts.size
	rd.texts.mu.Unlock()
	rd.stmts.mu.Lock()
	s.Statements = len(rd.stmts.stmts)
	rd.stmts.mu.Unlock()
	return s
}
