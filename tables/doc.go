// Package tables stores the facts read by package extract in one SQLite
// file (C SQLite through github.com/mattn/go-sqlite3; ADR 10) and keeps it
// consistent, with word indexes of its own for full-text search, which
// tokenize, match and rank as package tables/fulltext defines.
//
// Data flows files → extract → tables ← query. This package owns the
// schema, the writes, the migrations and every statement that reads the
// index: no other package writes SQL. It knows nothing about ranking, and
// the bytes of its posting lists are package tables/postings' to encode.
//
// Open returns a DB, the open file: its state for `viberag status`
// (Meta, Counts, FileStates, Skipped, ParseProblems, Check) and three
// sides, each a type of its own:
//
//   - DB.Reader, an IndexReader: the Reader package query reads through.
//     Its typed methods (read_*.go: SearchChunks, SearchSymbols,
//     SearchFiles, SymbolsNamed, RefsNamed, ChunksContaining,
//     Neighbours, SymbolInfo, FileLines, …) take a scope.Scope and render
//     it into SQL themselves (filter.go), so the dialect stays here and
//     another engine (tables/postgres) can sit behind the same interface.
//   - DB.Writer, a Writer: the batches an index run writes (Write,
//     WritePrepared), the indexes it defers and builds, the merges of the
//     full-text segments, and the index's own records (SetMeta,
//     ReplaceSkipped).
//   - DB.Vectors, a VectorStore: embeddings and their cache.
//
// schema.sql defines the tables, and this comment is their guide. DB.SQL
// exposes the read pool for tests and diagnostics only.
//
// # Tables
//
//	meta(key, value)       schema_version, tool_version, settings (JSON),
//	                       last_commit, last_indexed_at, last_run_complete,
//	                       embedding_model; see the Meta* constants.
//	files                  one row per indexed file; id is stable while the
//	                       path stays indexed (a re-write updates the row),
//	                       word_row its row in the file word index (new on
//	                       every write). Its summary (path, doc, exports,
//	                       imports) is derived by the view files_summary.
//	symbols                definitions; sid is the stable id (see SymbolID),
//	                       parent_sid the enclosing symbol's sid. Their
//	                       signature and doc are in sources.decls.
//	chunks                 runs of whole lines covering every file; cid is
//	                       the stable id (see ChunkID), symbol_sid the
//	                       smallest enclosing symbol. A chunk's text is
//	                       its file's text [start_byte, end_byte).
//	trigrams, trigram_segs,
//	trigram_files          the trigram index of exact text (see Exact text).
//	symbol_words, chunk_words,
//	file_words,
//	…_word_segs, …_word_live
//	                       the word indexes of full-text search (see
//	                       Full-text search).
//	sources                per file, its text, the identifier, call and
//	                       string lists of its symbols and chunks, and its
//	                       symbols' signatures and docs (decls), text and
//	                       lists zstd-compressed (sources.go), decls in
//	                       zstd blocks of 16 symbols (decls.go); readers decode
//	                       them inside one read transaction (or statement)
//	                       with the rows they belong to.
//	refs                   imports, calls, identifier uses and type
//	                       references: one row per file (id = files.id)
//	                       holding n, its number of uses, and its groups
//	                       (one per kind, name and target, with the uses
//	                       packed: varint line deltas and the ordinal of
//	                       each use's innermost enclosing symbol), one
//	                       zstd frame (refs_pack.go). Identifier uses
//	                       are stored once per (file, name, line); string
//	                       literals are not refs.
//	ref_keys, ref_imports  per lower-cased name, and per imported name of
//	                       an import, the posting list of the files whose
//	                       refs hold it (refkeys.go).
//	skipped                files the last run left out, with the reason.
//	vectors, embed_cache   embeddings per chunk, symbol and file, and vectors of
//	                       replaced text, through DB.Vectors (VectorStore,
//	                       vectors.go: Pending, Write, Cache, Drop, Counts).
//	                       All vectors have one dimension, meta
//	                       embedding_dim: Write refuses another, and NaN or
//	                       infinite components. Searches read them from the
//	                       vector file beside the index (vectorfile.go:
//	                       SyncFile writes it, OpenFile maps it; package
//	                       tables/vectors has its format and the scan).
//
// Only files hold path, ext and language; symbols, chunks, sources and
// refs name their file by its id (a refs row's id is its file's),
// and readers join files on its primary key (ADR 9). Each fact is stored
// once: a file's text is not kept again per chunk, and text only
// full-text search reads (identifier words, string literals) is only in
// the word index.
// symbols.id and chunks.id change whenever their file is
// re-written; use sid and cid to refer to symbols and chunks across runs.
// sid, cid, parent_sid, symbol_sid and the hashes of symbols and chunks
// are INTEGERs: the 64 bits their strings spell in hex. The
// readers take and return the strings ("s" or "c" and 16 hex digits;
// ids.go), and SQL renders them with printf('s%016x', sid) where it
// compares them with text (vectors.owner).
//
// A symbol row has no signature or doc: searches rank many
// symbols and show a few, so SymbolDecls reads those two for the hits
// shown, from sources.decls (decls.go: per symbol in rowid order, in
// blocks of 16; a symbol's row id less its file's first finds it).
//
// Indexes, each for a lookup a reader or the writer makes:
// symbols(name COLLATE NOCASE), symbols(file_id, start_line), UNIQUE
// symbols(sid); chunks(file_id, start_line), UNIQUE chunks(cid);
// files(path), UNIQUE files(word_row). References have no index: ref_keys
// and ref_imports are keyed by name (WITHOUT ROWID), and a usage lookup
// reads the refs rows of the files they list (ADR 9). A run writing a whole index
// drops symbols(name), symbols(sid) and chunks(cid) while it writes and
// builds them at its end (DeferIndexes, BuildIndexes; ADR 14, ADR 16);
// readers meanwhile get the same answers from a scan. A case-insensitive name
// lookup must say COLLATE NOCASE to use its index:
//
//	SELECT printf('s%016x', sid) FROM symbols WHERE name = ?1 COLLATE NOCASE
//
// # List columns
//
// symbols.decorators is '\n'-joined with a leading and a trailing '\n', so
// exact membership is
//
//	instr(decorators, char(10) || ?1 || char(10)) > 0
//
// An empty list is the empty string. files.imports and files.exports are
// plain '\n'-joined. The identifiers, calls and strings of symbols and the
// identifiers of chunks are in sources.lists (SymbolInfo, SimilarChunks
// and VectorStore.Pending read them).
//
// # Full-text search
//
// Symbols, chunks and files are searched through word indexes built in Go
// (words.go, words_read.go; ADR 13) over the columns TextColumns names:
//
//	symbols  name, qualname, signature, doc, ident_parts
//	chunks   header, content, ident_parts, strings
//	files    path, summary (files_summary's)
//
// ident_parts is the space-joined, deduplicated extract.SplitIdentifier
// words of the symbol's name and its identifiers (of the identifiers, for
// chunks): the surface that makes camelCase and snake_case words
// searchable; strings the string literals. SearchSymbols, SearchChunks,
// SimilarChunks, SearchFiles, SymbolsMatching, MatchCounts and ChunkFiles
// take a fulltext.Query, compile it against the index's columns and
// answer as an FTS5 table of the same rows would, ranked exactly as FTS5's
// bm25, scores bit for bit (TestWordsRankAsFTS5, with FTS5 from a
// test-only module as the oracle).
//
// A Preparer tokenizes each row (fulltext.Tokenizer) and groups the
// file's tokens per term; a Write adds one segment per index: per term a
// posting of the rows holding it with, per column, the count and the
// positions (for phrases of several tokens, such as "max_retries"), in
// blocks of terms (P_words), the segment's row range, block directory and
// row lengths (P_word_segs), and its live rows, tokens and dead rows
// (P_word_live). A row is a symbol's or chunk's id, or a file's word_row
// (a file keeps its id across re-writes; its word row is new each time):
// each is given above any given before, so segments cover disjoint
// ranges. A re-written or deleted row is added to its segment's dead rows
// and taken off its live totals, so bm25's row count, mean length and
// document frequencies count live rows only. Segments merge after a Write
// once four qualify (dropping dead rows, under a new number), and all into
// one in CompactFTS; readers cache a segment's directory and lengths, and
// its blocks, each with a mark every 16 terms (postings.BlockIndex), up to
// 32 MB, by number. There are no triggers: nothing but
// Write may change symbols, chunks, sources or files. Check verifies the
// word indexes against the rows and the stored text (checkWords).
//
// # Exact text
//
// trigrams, trigram_segs and trigram_files are the trigram index behind
// case-insensitive literal substring search (trigram.go). A Preparer
// computes each file's distinct trigrams in Go (three bytes, ASCII
// letters lower-cased, as in containsFold) and stores per Write one
// segment: per trigram the ascending ids of the files holding it, in
// blocks of consecutive trigrams (rowid seg << 24 | first trigram).
// trigram_files names each file's segment; an id found in another segment
// is stale (the file was re-written or deleted) and ignored, so a re-write
// never reads the old text. Segments merge after a Write once four of
// them qualify (trigram.go), and all into one in CompactFTS. A search of three bytes or more
// ANDs its trigrams' postings per segment; a two-byte one ORs the trigrams
// it starts. ChunksContaining then reads the chunks of the files found and
// keeps those holding the text. The index is maintained only when meta
// key trigram is "1"; otherwise it is empty and substring search reads
// every file's text, with the same answers. The setting is sticky: a small
// tree's index starts without it (OpenOptions.NoTrigram,
// TrigramFor), BuildTrigrams builds it from every stored file once the
// tree grows (GrowTrigrams), and nothing removes it. Writers and searches
// read the setting in their own transaction, since another process may
// have built the index since they opened it.
//
// # Writes, reads and crashes
//
// The file is in WAL mode. A DB holds one writer connection and a pool of
// read-only connections (SQL). Writer.Write stores a batch of files in one
// transaction, each file replacing all rows of its path, so a reader
// always sees whole batches and a crash or kill -9 at any moment leaves
// the last committed batch. What a write derives without the database
// (ids, list columns, word postings per file, compressed sources and
// refs, trigrams) a Preparer derives first, on any goroutine (prepare.go):
// WritePrepared takes prepared files and only executes statements, so an
// index run prepares files in its parsing workers and its one writer
// goroutine is left the SQL. Readers are never blocked by a write in
// progress. synchronous=NORMAL: a committed batch survives a process
// crash; an OS crash or power loss can lose the batches committed since
// the last checkpoint, never consistency. Check verifies an index fully;
// QuickCheck (SQLite's quick_check) only its structure, as fast as the
// file reads; HeaderProblem looks at the first 100 bytes. IsCorrupt tells
// a damaged file's errors (SQLITE_CORRUPT, SQLITE_NOTADB, ErrDamaged)
// from others.
//
// # Read-only files and other writers
//
// A read-only Open reads through SQLite's WAL protocol (mode=ro) when it
// can, and, when the directory does not let this user create the WAL's
// shared memory and no WAL holds changes, opens the file as immutable
// (DB.Immutable, DB.Changed; ADR 18). Opening for writing checks first
// that the user may write the directory and the file (CheckWritable,
// ErrNotWritable), gives back a writable mode to a -shm or -wal a reader
// of a read-only file left, and needs no write transaction when the
// schema is current, so another program's write transaction does not
// stop it; WriteLocked says whether one is in progress and, on Linux,
// which process holds it. IsFull tells a write that found no room.
//
// # Schema versions
//
// Open creates the schema in a new file and stores SchemaVersion. An
// older index is migrated in place when a migration exists, otherwise
// Open returns ErrRebuildNeeded (every version before 12: migrate.go); a
// newer one gives ErrNewerSchema, and a file that is not a viberag index
// ErrNotIndex. A new index is
// auto_vacuum = INCREMENTAL, so that CompactFTS can return the pages its
// merge frees to the file system, and has the page size
// OpenOptions.PageSize asks for: 1 KiB for a small tree (PageSizeFor),
// whose index is mostly the fixed page of each b-tree. Remove deletes an
// index with its WAL files, for `viberag index --force`.
package tables
