package tables

// CacheStats reports what a DB's read caches hold. Each is bounded (the
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

// CacheStats reports what db's read caches hold now.
func (db *DB) CacheStats() CacheStats {
	var s CacheStats
	db.words.mu.Lock()
	s.WordSegments, s.WordBlockBytes = len(db.words.segs), db.words.blockBytes
	db.words.mu.Unlock()
	db.texts.mu.Lock()
	s.Texts, s.TextBytes = len(db.texts.texts), db.texts.size
	db.texts.mu.Unlock()
	db.stmts.mu.Lock()
	s.Statements = len(db.stmts.stmts)
	db.stmts.mu.Unlock()
	return s
}
