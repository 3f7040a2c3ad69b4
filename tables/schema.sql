-- viberag index schema, version 3.
--
-- This file is private to package tables, which holds the writer and every
-- reader (read_*.go). It is executed once, inside one transaction, when an
-- index file is created; Open stores schema_version=3 in meta afterwards. Changing anything here means bumping the schema
-- version and adding a migration (see migrate.go).
--
-- Conventions:
--   * Every text column is NOT NULL; "no value" is ''.
--   * Hashes are 16 lower-case hex digits of xxhash64.
--   * List columns of symbols and chunks (decorators, identifiers, calls,
--     strings) are '\n'-joined WITH a leading and a trailing '\n', so an
--     exact membership test is
--         instr(calls, char(10) || ?1 || char(10)) > 0
--     An empty list is ''. A '\n' inside an item is stored as a space.
--   * files.imports and files.exports are plain '\n'-joined (no leading or
--     trailing '\n'); use refs (kind='import') for membership questions.
--   * symbols, chunks and refs name their file by file_id only: path, ext
--     and language are read from files (a join on its primary key; version 2
--     copied them onto every row).
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
	summary       TEXT NOT NULL,
	parse_status  TEXT NOT NULL,        -- clean | repaired | fallback | text
	parse_problem TEXT NOT NULL,
	indexed_at    TEXT NOT NULL         -- RFC3339, UTC
) STRICT;

CREATE TABLE symbols(
	id          INTEGER PRIMARY KEY,   -- changes on every re-write; use sid
	sid         TEXT NOT NULL UNIQUE,  -- see SymbolID
	file_id     INTEGER NOT NULL REFERENCES files(id),
	kind        TEXT NOT NULL,
	name        TEXT NOT NULL,
	qualname    TEXT NOT NULL,
	parent_sid  TEXT NOT NULL,         -- '' at top level
	start_line  INTEGER NOT NULL,
	end_line    INTEGER NOT NULL,
	start_byte  INTEGER NOT NULL,
	end_byte    INTEGER NOT NULL,
	signature   TEXT NOT NULL,
	doc         TEXT NOT NULL,
	is_exported INTEGER NOT NULL,      -- 0 or 1
	decorators  TEXT NOT NULL,         -- list column
	identifiers TEXT NOT NULL,         -- list column
	ident_parts TEXT NOT NULL,         -- space-joined SplitIdentifier words of name and identifiers
	calls       TEXT NOT NULL,         -- list column
	strings     TEXT NOT NULL,         -- list column
	hash        TEXT NOT NULL          -- xxhash64 of the symbol's source bytes
) STRICT;

-- Indexes, each for a lookup that needs it: names (definitions, ignoring
-- case) and a file's symbols (re-writes, references, neighbours,
-- children: a symbol's parent is in its file).
CREATE INDEX symbols_name ON symbols(name COLLATE NOCASE);
CREATE INDEX symbols_file ON symbols(file_id, start_line);

CREATE TABLE chunks(
	id          INTEGER PRIMARY KEY,   -- changes on every re-write; use cid
	cid         TEXT NOT NULL UNIQUE,  -- see ChunkID
	file_id     INTEGER NOT NULL REFERENCES files(id),
	start_line  INTEGER NOT NULL,
	end_line    INTEGER NOT NULL,
	start_byte  INTEGER NOT NULL,
	end_byte    INTEGER NOT NULL,
	symbol_sid  TEXT NOT NULL,         -- smallest symbol containing the chunk, '' when none
	header      TEXT NOT NULL,         -- "path › Class › method"
	content     TEXT NOT NULL,         -- the chunk's source text
	identifiers TEXT NOT NULL,         -- list column
	ident_parts TEXT NOT NULL,         -- space-joined SplitIdentifier words of identifiers
	calls       TEXT NOT NULL,         -- list column
	strings     TEXT NOT NULL,         -- list column
	hash        TEXT NOT NULL
) STRICT;

CREATE INDEX chunks_file ON chunks(file_id, start_line);

-- References: imports, calls, identifier uses, string literals and type
-- references, one row per (file, kind, name, target) with its uses packed
-- (version 3; version 2 had one row per use, 5x the rows and 8x the bytes).
-- uses is a BLOB of unsigned varints, two per use in line order:
--     line - previous use's line (the first: line itself),
--     1 + the ordinal of the innermost enclosing symbol among the file's
--         symbols in rowid order (0 at top level).
-- An identifier is stored once per (name, line); other kinds once per use.
CREATE TABLE refs(
	id         INTEGER PRIMARY KEY,    -- file_id << 32 | row: a file's refs are one rowid range
	file_id    INTEGER NOT NULL REFERENCES files(id),
	kind       TEXT NOT NULL,          -- import | call | ident | string | type
	name       TEXT NOT NULL,
	name_lower TEXT NOT NULL,          -- strings.ToLower(name), for case-insensitive lookups
	target     TEXT NOT NULL,          -- imported name, or receiver.method for calls
	n          INTEGER NOT NULL,       -- number of uses
	uses       BLOB NOT NULL
) STRICT;

CREATE INDEX refs_name   ON refs(name_lower);
CREATE INDEX refs_import ON refs(target) WHERE kind = 'import';

-- Files the last run chose not to index, replaced wholesale each run.
CREATE TABLE skipped(
	path   TEXT PRIMARY KEY,
	reason TEXT NOT NULL,
	detail TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- Embeddings, written by the indexer's embedding stage (tables.DB.WriteVectors).
-- owner is a symbol sid, a chunk cid, or 'f' || files.id; surface is code,
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
-- oldest are pruned past a bound by tables.DB.PruneEmbedCache.
CREATE TABLE embed_cache(
	id    INTEGER PRIMARY KEY,         -- insertion order, for pruning
	model TEXT NOT NULL,
	key   TEXT NOT NULL,               -- the input_hash
	vec   BLOB NOT NULL,
	UNIQUE(model, key)
) STRICT;

-- Full-text search. All FTS tables are external-content tables: they store
-- only the index, and read column values back from the base table by rowid
-- (so snippet() and highlight() work). There are no triggers: the writer
-- (tables.DB.Write) updates them explicitly, once per batch, which is
-- several times faster than per-row triggers (see batch.go). Anything
-- else that changes symbols, chunks or files must do the same.
-- unicode61 splits on '_' and punctuation, which suits code words;
-- camelCase is handled by ident_parts.
CREATE VIRTUAL TABLE symbols_fts USING fts5(
	name, qualname, signature, doc, ident_parts,
	content='symbols', content_rowid='id',
	tokenize='unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE chunks_fts USING fts5(
	header, content, ident_parts, strings,
	content='chunks', content_rowid='id',
	tokenize='unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE files_fts USING fts5(
	path, summary,
	content='files', content_rowid='id',
	tokenize='unicode61 remove_diacritics 2'
);

-- Literal substring search over chunk text. detail=none keeps only which
-- chunks hold each trigram (a fifth of the full index): a search ANDs the
-- trigrams of its text and verifies the candidates, e.g. for "reset":
--     SELECT rowid FROM chunks_tri WHERE chunks_tri MATCH '"res" AND "ese" AND "set"'
-- Case-insensitive; text needs at least 3 characters to use the index.
-- Maintained only while meta trigram = '1' (tables.OpenOptions.NoTrigram);
-- empty otherwise.
CREATE VIRTUAL TABLE chunks_tri USING fts5(
	content,
	content='chunks', content_rowid='id',
	tokenize='trigram', detail=none
);
