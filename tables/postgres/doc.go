// Package postgres is the PostgreSQL engine of package tables: the store a
// team shares, holding many repositories for many agents.
//
// A store is one catalog database and one or more shard databases (one
// PostgreSQL database may be both: the small-team setup). The catalog knows
// the repositories (name, shard, head commit, snapshot, files, bytes), the
// shards, the hashes of access tokens and the schema version of each part;
// the shards hold the facts. Each repository lives on exactly one shard,
// placed when it is first pushed (on the shard holding the fewest bytes).
//
// Every fact table is keyed by repo_id first, and no constraint spans
// repositories, so the same tables can be distributed by repo_id on a
// Citus coordinator behind one URL (see adr/0008).
//
// Access is a filter, not a check at the door: a token names repository
// globs, Access.Repos resolves them to repository ids, and every query
// against the shards carries those ids in its WHERE clause, so a
// repository the caller may not read is indistinguishable from one that
// does not exist.
//
// A push (Catalog.BeginPush, then Push.Write as often as needed and
// Push.Commit) writes one repository's changed files in one shard
// transaction under the repository's advisory lock; indexer.Push drives it.
// Rows come from tables.FactBuilder, so both engines store the same facts;
// text goes through EncodeText so NUL and invalid UTF-8 round-trip.
// Push.WriteVectors, before Commit, replaces the repository's vectors
// with those of the local index of the same tree (bytea, as SQLite
// stores them; pgvector is not assumed), keeping only those of rows the
// push leaves in the store.
//
// Reading: Store holds the catalog and a bounded pool per shard;
// Store.Reader gives a Reader, the tables.Reader of one repository, over
// which the query planner runs as over an SQLite index: candidates come
// through the GIN indexes, are ranked in Go with bm25 and the
// repository's own statistics (package tables/fulltext compiles the
// planner's queries and scores them), so a repository ranks as its local
// index does (one-token phrases and prefixes counted
// from postings, postings.go); its vectors are ranked by the shard where
// pgvector holds them all (vectors_rank.go, tables.VectorRanker), else read
// whole, once per version, and scanned exactly in Go by the planner; both
// answer the same. IsUnavailable tells a shard that does
// not answer from a bad request.
//
// A call over many repositories of a shard reads them through one Batch
// (Store.Batch, WithBatch): their readers' statements are sent together,
// one pipelined round trip for each step of their planners instead of one
// per step and repository, on one connection in one read-only snapshot;
// each statement still names its own repository, so each ranks as alone.
//
// Migrations are numbered, idempotent and applied under an advisory lock
// by Init; Open refuses a store whose schema is older or newer than this
// build, naming the command that upgrades it.
package postgres
