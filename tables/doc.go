// Package tables stores the facts read by package extract in one SQLite
// file (modernc.org/sqlite, pure Go) and keeps it consistent.
//
// Data flows files → extract → tables ← query. This package owns the
// schema, the writes, the migrations and every statement that reads the
// index: no other package writes SQL. It knows nothing about ranking.
// Readers call typed methods (read_*.go: SearchChunks, SearchSymbols,
// SearchFiles, SymbolsNamed, RefsNamed, ChunksContaining, Neighbours,
// SymbolInfo, FileLines, ScanVectors, …) that take a scope.Scope and
// render it into SQL themselves (filter.go), so the dialect stays here and
// another engine can sit behind the same methods. schema.sql defines the
// tables, and this comment is their guide. DB.SQL exposes the read pool
// for tests and diagnostics only.
//
// # Tables
//
//	meta(key, value)       schema_version, tool_version, settings (JSON),
//	                       last_commit, last_indexed_at, last_run_complete,
//	                       embedding_model; see the Meta* constants.
//	files                  one row per indexed file; id is stable while the
//	                       path stays indexed (a re-write updates the row).
//	symbols                definitions; sid is the stable id (see SymbolID),
//	                       parent_sid the enclosing symbol's sid.
//	chunks                 runs of whole lines covering every file; cid is
//	                       the stable id (see ChunkID), symbol_sid the
//	                       smallest enclosing symbol.
//	refs                   imports, calls, identifier uses, string literals,
//	                       type references: one row per (file, kind, name,
//	                       target) with n uses packed in a BLOB (varint line
//	                       deltas and the ordinal of each use's innermost
//	                       enclosing symbol; refs_pack.go). Identifier uses
//	                       are stored once per (file, name, line).
//	skipped                files the last run left out, with the reason.
//	vectors, embed_cache   embeddings per chunk, symbol and file, and vectors of
//	                       replaced text; see vectors.go (PendingVectors,
//	                       WriteVectors, EmbedCache, DropVectors, VectorCounts,
//	                       VectorDims, DropZeroVectors). All vectors have one
//	                       dimension, meta embedding_dim: WriteVectors refuses
//	                       another, and NaN or infinite components.
//
// Only files hold path, ext and language; symbols, chunks and refs name
// their file by file_id, and readers join files on its primary key
// (version 2 copied the three onto every row; ADR 9). symbols.id,
// chunks.id and refs.id change whenever their file is re-written; use sid
// and cid to refer to symbols and chunks across runs.
//
// Indexes, each for a lookup a reader or the writer makes:
// symbols(name COLLATE NOCASE), symbols(file_id, start_line), symbols(sid);
// chunks(file_id, start_line), chunks(cid); refs(name_lower),
// refs(target) for imports only (a file's refs are one rowid range:
// refRowID); files(path). A
// case-insensitive name lookup must say COLLATE NOCASE to use its index:
//
//	SELECT sid FROM symbols WHERE name = ?1 COLLATE NOCASE
//
// # List columns
//
// decorators, identifiers, calls and strings (on symbols and chunks) are
// '\n'-joined with a leading and a trailing '\n', so exact membership is
//
//	instr(decorators, char(10) || ?1 || char(10)) > 0
//
// An empty list is the empty string. ident_parts is the space-joined,
// deduplicated extract.SplitIdentifier words of the symbol's name and its
// identifiers (of the identifiers, for chunks): the surface that makes
// camelCase and snake_case words searchable. files.imports and
// files.exports are plain '\n'-joined.
//
// # Full-text search
//
// symbols_fts(name, qualname, signature, doc, ident_parts),
// chunks_fts(header, content, ident_parts, strings) and
// files_fts(path, summary) are FTS5 external-content tables (tokenizer
// unicode61 remove_diacritics 2) whose rowid is the id of the base row:
//
//	SELECT s.sid, bm25(symbols_fts) FROM symbols_fts
//	JOIN symbols s ON s.id = symbols_fts.rowid
//	WHERE symbols_fts MATCH 'ident_parts:user AND ident_parts:id' ORDER BY rank
//
// chunks_tri(content) indexes chunk text with the trigram tokenizer and
// detail=none: for each trigram, which chunks hold it, without positions
// (a fifth of the size). It answers case-insensitive literal substring
// search of at least 3 characters as an AND of the text's trigrams, a
// superset that ChunksContaining's caller verifies:
//
//	SELECT rowid FROM chunks_tri WHERE chunks_tri MATCH '"res" AND "ese" AND "set"'
//
// It is maintained only when meta key trigram is "1" (see
// OpenOptions.NoTrigram); otherwise it is empty and substring search
// scans chunks.content.
//
// There are no triggers: Write updates the FTS tables itself, once per
// batch (see batch.go for why that is several times faster). Nothing but
// Write may change symbols, chunks or files.
//
// # Writes, reads and crashes
//
// The file is in WAL mode. A DB holds one writer connection and a pool of
// read-only connections (SQL). Write stores a batch of files in one
// transaction, each file replacing all rows of its path, so a reader
// always sees whole batches and a crash or kill -9 at any moment leaves
// the last committed batch. Readers are never blocked by a write in
// progress. synchronous=NORMAL: a committed batch survives a process
// crash; an OS crash or power loss can lose the batches committed since
// the last checkpoint, never consistency. Check verifies an index fully;
// QuickCheck (SQLite's quick_check) only its structure, as fast as the
// file reads; HeaderProblem looks at the first 100 bytes. IsCorrupt tells
// a damaged file's errors (SQLITE_CORRUPT, SQLITE_NOTADB, ErrDamaged)
// from others.
//
// # Schema versions
//
// Open creates the schema in a new file and stores SchemaVersion. An
// older index is migrated in place when a migration exists, otherwise
// Open returns ErrRebuildNeeded; a newer one gives ErrNewerSchema, and a
// file that is not a viberag index ErrNotIndex. Remove deletes an index
// with its WAL files, for `viberag index --force`.
package tables
