-- viberag index schema, version 12.
--
-- This file is private to package tables, which holds the writer and every
-- reader (read_*.go). It is executed once, inside one transaction, when an
-- index file is created; Open stores schema_version=12 in meta afterwards.
-- Changing anything here means bumping the schema version and adding a
-- migration, or making older versions rebuild (see migrate.go).
--
-- Conventions:
--   * Every text column is NOT NULL; "no value" is ''.
--   * Hashes are 16 lower-case hex digits of xxhash64 in files; in
--     symbols and chunks the sid, cid, hash, parent_sid and
--     symbol_sid are the INTEGER those digits spell (the 64 bits, signed:
--     printf('%016x', x) gives the digits back), NULL for no parent or
--     symbol. Readers take and return the strings ("s" or "c" and 16 hex
--     digits; ids.go); 8 bytes against 17 in the row and in each index.
--   * symbols.decorators is '\n'-joined WITH a leading and a trailing
--     '\n', so an exact membership test is
--         instr(decorators, char(10) || ?1 || char(10)) > 0
--     An empty list is ''. A '\n' inside an item is stored as a space.
--   * files.imports and files.exports are plain '\n'-joined (no leading or
--     trailing '\n'); use ref_imports for membership questions.
--   * symbols, chunks, sources and refs name their file by its id only:
--     path, ext and language are read from files (a join on its primary
--     key).
--   * Each fact is stored once (ADR 9): a file's text in sources,
--     compressed, and not again in chunks; text that only full-text search
--     reads (identifier words, string literals) only in the word index.
--   * Lines are 1-based and inclusive; byte offsets are 0-based, end
--     exclusive.

CREATE TABLE meta(
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE files(
	id            INTEGER PRIMARY KEY, -- stable while the path stays indexed
	path          TEXT NOT NULL UNIQUE, -- repo-relative, '/'-separated
	ext           TEXT NOT NULL,        -- lower-case, with the dot; '' when none
	language      TEXT NOT NULL,
	size          INTEGER NOT NULL,
	lines         INTEGER NOT NULL,
	hash          TEXT NOT NULL,        -- xxhash64 of the content
	imports       TEXT NOT NULL,        -- '\n'-joined module names
	exports       TEXT NOT NULL,        -- '\n'-joined exported top-level names
	doc           TEXT NOT NULL,
	parse_status  TEXT NOT NULL,        -- clean | repaired | fallback | text
	parse_problem TEXT NOT NULL,
	indexed_at    TEXT NOT NULL,        -- RFC3339, UTC
	word_row      INTEGER NOT NULL      -- the file's row in the file word index; new on every write
) STRICT;

-- Full-text search finds files by their row in the file word index.
CREATE UNIQUE INDEX files_word_row ON files(word_row);

CREATE TABLE symbols(
	id          INTEGER PRIMARY KEY,   -- changes on every re-write; use sid
	sid         INTEGER NOT NULL,      -- see SymbolID; the integer its hex spells; unique (symbols_sid)
	file_id     INTEGER NOT NULL REFERENCES files(id),
	kind        TEXT NOT NULL,
	name        TEXT NOT NULL,
	qualname    TEXT NOT NULL,
	parent_sid  INTEGER,               -- NULL at top level
	start_line  INTEGER NOT NULL,
	end_line    INTEGER NOT NULL,
	start_byte  INTEGER NOT NULL,
	end_byte    INTEGER NOT NULL,
	is_exported INTEGER NOT NULL,      -- 0 or 1
	decorators  TEXT NOT NULL,         -- list column
	hash        INTEGER NOT NULL       -- xxhash64 of the symbol's source bytes
) STRICT;
-- A symbol's identifiers, calls and strings are in sources.lists, its
-- signature and doc in sources.decls (they would be two thirds of the
-- row's bytes, and a search reads them only for the hits it shows).

-- Indexes, each for a lookup that needs it: names (definitions, ignoring
-- case), a file's symbols (re-writes, references, neighbours,
-- children: a symbol's parent is in its file) and sids. sid's uniqueness
-- is an index of its own, not a column constraint, so that a first build
-- can drop it and build it at its end (tables/indexes.go).
CREATE INDEX symbols_name ON symbols(name COLLATE NOCASE);
CREATE INDEX symbols_file ON symbols(file_id, start_line);
CREATE UNIQUE INDEX symbols_sid ON symbols(sid);

CREATE TABLE chunks(
	id          INTEGER PRIMARY KEY,   -- changes on every re-write; use cid
	cid         INTEGER NOT NULL,      -- see ChunkID; the integer its hex spells; unique (chunks_cid)
	file_id     INTEGER NOT NULL REFERENCES files(id),
	start_line  INTEGER NOT NULL,
	end_line    INTEGER NOT NULL,
	start_byte  INTEGER NOT NULL,      -- the chunk's text is the file's text
	end_byte    INTEGER NOT NULL,      -- [start_byte, end_byte) (sources.text)
	symbol_sid  INTEGER,               -- smallest symbol containing the chunk, NULL when none
	header      TEXT NOT NULL,         -- "path › Class › method"
	hash        INTEGER NOT NULL       -- xxhash64 of the chunk's text
) STRICT;
-- A chunk's identifiers are in sources.lists.

CREATE INDEX chunks_file ON chunks(file_id, start_line);
CREATE UNIQUE INDEX chunks_cid ON chunks(cid);

-- The text of every file, once, and the lists of names the readers show
-- (kept per chunk and symbol, they would be 1.3x the source before any
-- index). text and lists are zstd frames (RFC 8878; tables/sources.go),
-- one per file (a file compresses 3-4x where a chunk alone compresses 2x).
--   text   the file's bytes, as the chunks cover them.
--   lists  per symbol of the file in rowid order, three lists (identifiers,
--          calls, strings), then per chunk in rowid order one (identifiers);
--          each list is uvarint(length) and its items '\n'-joined.
--   decls  per symbol of the file in rowid order, its signature and its
--          doc, each uvarint(length) and the bytes as extracted, in blocks
--          of 16 symbols, each block a zstd frame of its own, led by the
--          row id of the file's first symbol (a file's symbols are
--          consecutive rows) and the blocks' lengths (tables/decls.go).
CREATE TABLE sources(
	id    INTEGER PRIMARY KEY,         -- files.id
	lists BLOB NOT NULL,               -- first: reading it skips the rest
	decls BLOB NOT NULL,
	text  BLOB NOT NULL
) STRICT;

-- References: imports, calls, identifier uses and type references. One
-- row per file (id = files.id): n, its number of uses, and groups, one
-- group per (kind, name, target), in the order the groups first appear,
-- stored by column as one zstd frame (like sources; the encoding
-- is in refs_pack.go):
--     uvarint G (groups); G × uvarint kind (1 import, 2 call, 3 ident,
--     4 type); G × (uvarint len(name), name); G × (uvarint len(target),
--     target); G × uvarint n (uses); then per group n line varints; then
--     per group n enclosing-symbol varints.
-- The two varints of a use, in line order within its group:
--     line - previous use's line (the first: line itself),
--     1 + the ordinal of the innermost enclosing symbol among the file's
--         symbols in rowid order (0 at top level).
-- An identifier is stored once per (name, line); other kinds once per use.
-- String literals are not references: symbols, chunks and the chunks'
-- word index hold them. ref_keys lists the files that use a name, per strings.ToLower of
-- the name (a usage lookup ignores case); ref_imports the files importing
-- a name, per imported name (target, exact). files is a posting list: the
-- file ids ascending, each the uvarint of its difference to the previous
-- one (refkeys.go). A reader decodes the groups of the files listed and
-- keeps those of the name. A re-write reads the file's old groups for the
-- lists to take it out of. (A row per group and an index on the
-- lower-cased name took 3.3 times the bytes on GOROOT/src/net.)
CREATE TABLE refs(
	id     INTEGER PRIMARY KEY,       -- files.id
	n      INTEGER NOT NULL,          -- number of uses
	groups BLOB NOT NULL
) STRICT;

CREATE TABLE ref_keys(
	key   TEXT PRIMARY KEY,           -- strings.ToLower(name)
	files BLOB NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE ref_imports(
	target TEXT PRIMARY KEY,          -- an import's imported name
	files  BLOB NOT NULL
) STRICT, WITHOUT ROWID;

-- Files the last run chose not to index, replaced wholesale each run.
CREATE TABLE skipped(
	path   TEXT PRIMARY KEY,
	reason TEXT NOT NULL,
	detail TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- Embeddings, written by the indexer's embedding stage (tables.VectorStore.Write).
-- owner is a symbol's sid, a chunk's cid (their strings), or 'f' || files.id; surface is code,
-- summary or file. Writing a file drops the vectors of its old symbols,
-- chunks and file row, so a vector never describes text that changed.
CREATE TABLE vectors(
	id         INTEGER PRIMARY KEY,    -- rowid table: its 1 KiB rows are too big for a clustered key
	owner      TEXT NOT NULL,
	surface    TEXT NOT NULL,
	model      TEXT NOT NULL,
	dim        INTEGER NOT NULL,
	input_hash TEXT NOT NULL,          -- xxhash64 of the embedded input
	vec        BLOB NOT NULL,          -- dim little-endian float32
	UNIQUE(owner, surface)
) STRICT;

-- The embedding cache looks vectors up by input.
CREATE INDEX vectors_input ON vectors(model, input_hash);

-- Vectors of inputs no longer in the index (a file edited, a branch
-- switched), kept so that the same text is never embedded twice; the
-- oldest are pruned past a bound by tables.VectorStore.PruneCache.
CREATE TABLE embed_cache(
	id    INTEGER PRIMARY KEY,         -- insertion order, for pruning
	model TEXT NOT NULL,
	key   TEXT NOT NULL,               -- the input_hash
	vec   BLOB NOT NULL,
	UNIQUE(model, key)
) STRICT;

-- Full-text search over symbols, chunks and files: word indexes built in
-- Go (tables/words.go), whose tokens, query semantics and ranking are
-- SQLite FTS5's (unicode61 remove_diacritics 2; bm25 over live rows;
-- tables/fulltext). Their columns:
--   symbols: name, qualname, signature, doc, ident_parts
--   chunks:  header, content, ident_parts, strings
--   files:   path, summary (files_summary's)
-- ident_parts is the space-joined, deduplicated extract.SplitIdentifier
-- words of the symbol's name and identifiers (of the identifiers, for
-- chunks), which makes camelCase and snake_case words searchable; strings
-- the string literals, one per line.
-- A row of an index is a symbol's or chunk's id, or a file's word_row:
-- the writer gives each written row one above any given before, so a
-- write's rows are consecutive. Each write adds one segment per index:
-- P_words holds its blocks of terms with their posting lists (rows, per
-- column the count and the positions), id seg << 32 | block; P_word_segs
-- its row range lo..hi (segments cover disjoint ranges), the first term
-- of each block (dir) and each row's token count (docs); P_word_live its
-- live rows and tokens and the rows deleted since (dead). Segments merge,
-- dropping dead rows, and get a new number when they do.
CREATE TABLE symbol_words(
	id   INTEGER PRIMARY KEY,          -- seg << 32 | block
	data BLOB NOT NULL
) STRICT;

CREATE TABLE symbol_word_segs(
	seg   INTEGER PRIMARY KEY,
	lo    INTEGER NOT NULL,            -- the rows the segment indexes: ids lo..hi
	hi    INTEGER NOT NULL,
	bytes INTEGER NOT NULL,            -- sum of its blocks' sizes
	dir   BLOB NOT NULL,               -- per block uvarint(len) and its first term
	docs  BLOB NOT NULL                -- per id lo..hi uvarint(tokens + 1), 0: no row
) STRICT;

CREATE TABLE symbol_word_live(
	seg    INTEGER PRIMARY KEY,
	rows   INTEGER NOT NULL,           -- live rows
	tokens INTEGER NOT NULL,           -- their tokens
	dead   BLOB NOT NULL               -- ids deleted since: ascending uvarint deltas
) STRICT;

CREATE TABLE chunk_words(
	id   INTEGER PRIMARY KEY,
	data BLOB NOT NULL
) STRICT;

CREATE TABLE chunk_word_segs(
	seg   INTEGER PRIMARY KEY,
	lo    INTEGER NOT NULL,
	hi    INTEGER NOT NULL,
	bytes INTEGER NOT NULL,
	dir   BLOB NOT NULL,
	docs  BLOB NOT NULL
) STRICT;

CREATE TABLE chunk_word_live(
	seg    INTEGER PRIMARY KEY,
	rows   INTEGER NOT NULL,
	tokens INTEGER NOT NULL,
	dead   BLOB NOT NULL
) STRICT;

CREATE TABLE file_words(
	id   INTEGER PRIMARY KEY,
	data BLOB NOT NULL
) STRICT;

CREATE TABLE file_word_segs(
	seg   INTEGER PRIMARY KEY,
	lo    INTEGER NOT NULL,
	hi    INTEGER NOT NULL,
	bytes INTEGER NOT NULL,
	dir   BLOB NOT NULL,
	docs  BLOB NOT NULL
) STRICT;

CREATE TABLE file_word_live(
	seg    INTEGER PRIMARY KEY,
	rows   INTEGER NOT NULL,
	tokens INTEGER NOT NULL,
	dead   BLOB NOT NULL
) STRICT;

-- A file's summary, the text the file word index and the file vectors
-- read: its path, doc, exports and imports, as extract.File.Summary
-- spells them (a list's items are joined with a space, so an item holding
-- a '\n' reads with a space, and a list of one empty item as no list).
-- The writer tokenizes the same text (fileSummary).
CREATE VIEW files_summary(id, path, summary) AS SELECT id, path,
	path
	|| iif(doc <> '', char(10) || doc, '')
	|| iif(exports <> '', char(10) || 'exports: ' || replace(exports, char(10), ' '), '')
	|| iif(imports <> '', char(10) || 'imports: ' || replace(imports, char(10), ' '), '')
	FROM files;

-- Literal substring search. The writer computes each file's distinct trigrams (three bytes, ASCII letters
-- lower-cased, as a 24-bit integer; plus the trigrams of the last two
-- bytes padded with zero bytes) and stores, per write, one segment: for
-- each trigram the sorted ids of the files holding it (a posting: uvarint
-- deltas, or a bitset when smaller), in blocks of up to 64 consecutive
-- trigrams. trigram_files names the one segment holding each file's
-- trigrams; its ids in other segments are stale and ignored. A search ANDs
-- the postings of the text's trigrams in each segment, keeps the files
-- whose segment that is, and verifies their chunks (tables/trigram.go).
-- Maintained only while meta trigram = '1'; empty otherwise. The setting
-- is sticky: a small tree's index is created without the
-- index (tables.OpenOptions.NoTrigram, TrigramFor), which is built from
-- every file once the tree grows (tables.Writer.GrowTrigrams) and kept.
CREATE TABLE trigrams(
	id  INTEGER PRIMARY KEY,           -- seg << 24 | the block's first trigram
	ids BLOB NOT NULL                  -- the block (tables/trigram.go)
) STRICT;

CREATE TABLE trigram_segs(
	seg   INTEGER PRIMARY KEY,
	bytes INTEGER NOT NULL             -- sum of the segment's block sizes
) STRICT;

CREATE TABLE trigram_files(
	id  INTEGER PRIMARY KEY,           -- files.id
	seg INTEGER NOT NULL
) STRICT;
