// Package indexer runs an index: it selects a repository's files, extracts
// facts from the ones whose content changed, and writes them to the tables,
// a batch of whole files per transaction. It is the only package that joins
// extract (files → facts) and tables (facts → storage); the CLI and the MCP
// server both run indexes through it.
//
// With an embedding provider (Options.Embedder or LoadEmbedder), a run
// ends with an embedding stage: every chunk, symbol and file still without
// a vector is embedded (through the index's embedding cache) and written.
// A provider failure stops that stage only; the rows stay without vectors,
// status counts them as missing, and the next run embeds them. The stage
// ends when no provider request has succeeded for Options.EmbedBudget, and
// tells Options.Notice of retries. A model change, or a dimension that
// differs from the one the index records, drops every vector (facts stay)
// and embeds again: the index never holds vectors of two sizes. The
// provider settings it stores are redacted (embed.Config.Redacted).
//
// A run is incremental: a file is re-parsed only when its content hash
// differs from the stored one; rows of files that disappeared or became
// skipped are deleted. Every file's rows are replaced atomically, so a run
// killed at any moment leaves an index that answers, and the next run
// completes it.
//
// Open is the one way to open an index: for writing (under the write
// lock, AcquireLock) it finds damage — a file that is not an index, a
// corrupt header or schema, a failed quick check after an unclean run or a
// query's corruption error (NoteCorruption) — moves the damaged file aside
// (MoveAside) and opens an empty index to rebuild. OpenFresh and
// InstallFresh build a forced rebuild in a new file and swap it in.
package indexer
