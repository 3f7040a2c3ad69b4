package postgres

// shardFacts is shard schema step 2: the fact tables, mirroring the SQLite
// schema's (tables/schema.sql) per repository.
//
//   - Every table is keyed by repo_id first: primary keys, unique
//     constraints and indexes lead with it, and no constraint spans
//     repositories (no foreign keys at all), so the tables can be
//     distributed by repo_id on Citus unchanged.
//   - files.id is the file's id within its repository, stable while the
//     path stays indexed (as in SQLite); symbols, chunks and refs name
//     their file by (repo_id, file_id).
//   - Text is stored through EncodeText (text.go): NUL and invalid UTF-8
//     round-trip byte for byte.
//   - tsv is array_to_tsvector of the row's full-text tokens as
//     fulltext.Tokenize makes them, over the columns tables.TextColumns
//     names; PostgreSQL's own parser never runs, so a GIN lookup finds
//     exactly the rows whose tokens Go ranks. ntok is the row's token
//     count (BM25's document length); fts_stats keeps each repository's
//     rows and tokens per table (BM25's average length).
//   - btree_gin puts repo_id into the GIN indexes when the extension can be
//     created; without it they index tsv alone. pg_trgm indexes chunk
//     content for exact text (skipped, and exact text falls back to a
//     scan, when pg_trgm is unavailable).
const shardFacts = `
DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS pg_trgm; EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'pg_trgm unavailable: %', SQLERRM; END $$;
DO $$ BEGIN CREATE EXTENSION IF NOT EXISTS btree_gin; EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'btree_gin unavailable: %', SQLERRM; END $$;

CREATE TABLE files(
	repo_id       bigint NOT NULL,
	id            bigint NOT NULL,
	path          text NOT NULL,
	ext           text NOT NULL,
	language      text NOT NULL,
	size          bigint NOT NULL,
	lines         integer NOT NULL,
	hash          text NOT NULL,
	imports       text NOT NULL,
	exports       text NOT NULL,
	doc           text NOT NULL,
	summary       text NOT NULL,
	parse_status  text NOT NULL,
	parse_problem text NOT NULL,
	indexed_at    timestamptz NOT NULL,
	ntok          integer NOT NULL,
	tsv           tsvector NOT NULL,
	PRIMARY KEY (repo_id, id),
	UNIQUE (repo_id, path)
);

CREATE TABLE symbols(
	repo_id     bigint NOT NULL,
	sid         text NOT NULL,
	file_id     bigint NOT NULL,
	ord         integer NOT NULL,      -- position among the file's symbols (SQLite's rowid order)
	kind        text NOT NULL,
	name        text NOT NULL,
	qualname    text NOT NULL,
	parent_sid  text NOT NULL,
	start_line  integer NOT NULL,
	end_line    integer NOT NULL,
	start_byte  integer NOT NULL,
	end_byte    integer NOT NULL,
	signature   text NOT NULL,
	doc         text NOT NULL,
	is_exported boolean NOT NULL,
	decorators  text NOT NULL,
	identifiers text NOT NULL,
	ident_parts text NOT NULL,
	calls       text NOT NULL,
	strings     text NOT NULL,
	hash        text NOT NULL,
	ntok        integer NOT NULL,
	tsv         tsvector NOT NULL,
	PRIMARY KEY (repo_id, sid)
);
CREATE INDEX symbols_file ON symbols(repo_id, file_id, start_line);
CREATE INDEX symbols_name ON symbols(repo_id, lower(name));

CREATE TABLE chunks(
	repo_id     bigint NOT NULL,
	cid         text NOT NULL,
	file_id     bigint NOT NULL,
	start_line  integer NOT NULL,
	end_line    integer NOT NULL,
	start_byte  integer NOT NULL,
	end_byte    integer NOT NULL,
	symbol_sid  text NOT NULL,
	header      text NOT NULL,
	content     text NOT NULL,
	identifiers text NOT NULL,
	ident_parts text NOT NULL,
	calls       text NOT NULL,
	strings     text NOT NULL,
	hash        text NOT NULL,
	ntok        integer NOT NULL,
	tsv         tsvector NOT NULL,
	PRIMARY KEY (repo_id, cid)
);
CREATE INDEX chunks_file ON chunks(repo_id, file_id, start_line);

CREATE TABLE refs(
	repo_id    bigint NOT NULL,
	file_id    bigint NOT NULL,
	row        integer NOT NULL,
	kind       text NOT NULL,
	name       text NOT NULL,
	name_lower text NOT NULL,
	target     text NOT NULL,
	n          integer NOT NULL,
	uses       bytea NOT NULL,         -- packed as in SQLite (tables/refs_pack.go)
	PRIMARY KEY (repo_id, file_id, row)
);
CREATE INDEX refs_name ON refs(repo_id, name_lower);
CREATE INDEX refs_import ON refs(repo_id, target) WHERE kind = 'import';

CREATE TABLE fts_stats(
	repo_id bigint NOT NULL,
	tbl     text NOT NULL,             -- files | symbols | chunks
	rows    bigint NOT NULL,
	tokens  bigint NOT NULL,
	PRIMARY KEY (repo_id, tbl)
);

DO $$
DECLARE
	btree boolean := EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'btree_gin');
	trgm  boolean := EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm');
	lead  text := CASE WHEN btree THEN 'repo_id, ' ELSE '' END;
BEGIN
	EXECUTE 'CREATE INDEX files_tsv ON files USING gin(' || lead || 'tsv)';
	EXECUTE 'CREATE INDEX symbols_tsv ON symbols USING gin(' || lead || 'tsv)';
	EXECUTE 'CREATE INDEX chunks_tsv ON chunks USING gin(' || lead || 'tsv)';
	IF trgm THEN
		EXECUTE 'CREATE INDEX chunks_trgm ON chunks USING gin(' || lead || 'content gin_trgm_ops)';
	END IF;
END $$;
`

// shardReads is shard schema step 3, what readers need beyond the facts:
//
//   - chunks.ord, a chunk's position among its file's chunks (as
//     symbols.ord), so that (file_id, ord) names a chunk in a repository
//     as a row id does in SQLite: readers hand the planner
//     file_id<<24 | ord as the row id of a symbol or chunk.
//   - tf on files, symbols and chunks: each row's distinct tokens with
//     their count per full-text column (tf.go), so candidates are ranked
//     without reading their text.
//   - symbols.dtsv: the tokens of the doc comment alone, for the planner's
//     doc-only symbols channel (rows pushed before have none and are
//     found only by a search over every column).
//   - repo_state: per repository, a version every push bumps in its
//     transaction (the planner's caches key on it), the embedding
//     model and dimension of its vectors, and (step 4) the readers'
//     facts version of its rows (extract.FactsVersion).
//   - The name indexes index the first 200 characters of a name: a
//     B-tree entry must fit a third of a page, and minified code has
//     names of kilobytes. Lookups compare the prefix (the index) and then
//     the whole name.
//   - vectors: per repository, the vectors of its chunks, symbols and
//     files, as SQLite stores them (little-endian float32 in bytea),
//     scanned in Go (pgvector is not assumed; step 7, vectors_rank.go,
//     adds it where it can be created).
const shardReads = `
ALTER TABLE chunks ADD COLUMN ord integer;
UPDATE chunks c SET ord = n.rn - 1
	FROM (SELECT repo_id, cid, row_number() OVER (PARTITION BY repo_id, file_id ORDER BY start_line, end_line, cid) AS rn FROM chunks) n
	WHERE c.repo_id = n.repo_id AND c.cid = n.cid;
ALTER TABLE chunks ALTER COLUMN ord SET NOT NULL;

-- Term frequencies (tf.go); '' in rows pushed before, which readers score
-- from their text.
ALTER TABLE files ADD COLUMN tf bytea NOT NULL DEFAULT '';
ALTER TABLE symbols ADD COLUMN tf bytea NOT NULL DEFAULT '';
ALTER TABLE chunks ADD COLUMN tf bytea NOT NULL DEFAULT '';

-- The tokens of symbols' doc comments alone: the planner's symbols channel
-- searches docs only, and most symbols' other columns match its words.
ALTER TABLE symbols ADD COLUMN dtsv tsvector NOT NULL DEFAULT ''::tsvector;
DO $$ BEGIN
	IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'btree_gin') THEN
		CREATE INDEX symbols_doc ON symbols USING gin(repo_id, dtsv) WHERE doc <> '';
	ELSE
		CREATE INDEX symbols_doc ON symbols USING gin(dtsv) WHERE doc <> '';
	END IF;
END $$;

CREATE TABLE repo_state(
	repo_id         bigint PRIMARY KEY,
	version         bigint NOT NULL,
	embedding_model text NOT NULL DEFAULT '',
	embedding_dim   integer NOT NULL DEFAULT 0
);
INSERT INTO repo_state(repo_id, version) SELECT DISTINCT repo_id, 1 FROM files;

DROP INDEX refs_name;
CREATE INDEX refs_name ON refs(repo_id, left(name_lower, 200));
DROP INDEX refs_import;
CREATE INDEX refs_import ON refs(repo_id, left(target, 200)) WHERE kind = 'import';
DROP INDEX symbols_name;
CREATE INDEX symbols_name ON symbols(repo_id, left(lower(name), 200));

CREATE TABLE vectors(
	repo_id bigint NOT NULL,
	owner   text NOT NULL,             -- a sid, a cid, or f: and the path
	surface text NOT NULL,             -- code | summary | file
	model   text NOT NULL,
	dim     integer NOT NULL,
	vec     bytea NOT NULL,
	PRIMARY KEY (repo_id, owner, surface)
);
`

// shardPostings is shard schema step 6: postings (postings.go), keyed by
// repository, table (0 files, 1 symbols, 2 chunks), token, file and part,
// the rows in the key's index for index-only scans, with an index by
// file for a push's replacement of a file's rows; and
// repo_state.postings, true once a repository's postings are complete.
const shardPostings = `
CREATE TABLE postings(
	repo_id bigint NOT NULL,
	tbl     smallint NOT NULL,
	token   bytea NOT NULL,
	file_id bigint NOT NULL,
	part    smallint NOT NULL,
	rows    bytea NOT NULL,
	PRIMARY KEY (repo_id, tbl, token, file_id, part) INCLUDE (rows)
);
CREATE INDEX postings_file ON postings(repo_id, file_id);
ALTER TABLE repo_state ADD COLUMN postings boolean NOT NULL DEFAULT false;
`
