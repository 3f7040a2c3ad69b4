// Package indexer runs an index: it selects a repository's files, extracts
// facts from the ones whose content changed, and writes them to the tables,
// a batch of whole files per transaction. The workers that extract a file
// also prepare its rows (tables.Preparer), so the one goroutine that
// writes, which every file passes through, only executes SQL. It is the only package that joins
// extract (files → facts) and tables (facts → storage) for writing; the CLI
// and the MCP server both run, watch and report on indexes through it.
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
// Run records the selection settings (Settings) in the index: a later run
// not given them (SettingsFlags.Resolve) selects files as the index was
// built. A forced rebuild (Rebuild) writes a new file beside the index and
// installs it once complete; one that is stopped is marked in that file's
// meta and continued by the next Rebuild, and every run asked of a caller
// checks for one (PendingRebuild). A cancelled run commits what it had
// extracted.
//
// # Background indexing
//
// A process that serves an index keeps it fresh with StartBackground: a
// Runner does one run at a time (a run asked for while one runs is
// queued, and further requests join the queued one), and a Watcher
// (fsnotify, one watch per directory the selection rules accept, pruning
// skipped and git-ignored directories and the data directory) collects
// changed paths and, after a quiet period (300ms, at most 2s under a
// steady stream), schedules one incremental run for the batch. HEAD
// moving is noticed through .git/HEAD and .git/logs/HEAD. When watching
// fails (inotify's watch limit, running out of descriptors) the watcher
// rescans periodically, says why, and tries events again.
//
// # Status
//
// ReadStatus builds the one status answer (Status) that `viberag status`
// prints and the MCP tool get_status returns, and Freshness the index
// state every answer carries, by one rule (activity.freshness): a serving
// process knows its runs (Live); any other reads the index's meta table
// and the locks beside it — a writer at work, a server maintaining the
// index — so it never reports a live run or a download of a process that
// has exited.
//
// Open is the one way to open an index: for writing (under the write
// lock, AcquireLock) it finds damage — a file that is not an index, a
// corrupt header or schema, a failed quick check after an unclean run or a
// query's corruption error (NoteCorruption) — moves the damaged file aside
// (MoveAside) and opens an empty index to rebuild. OpenFresh and
// InstallFresh build a forced rebuild in a new file and swap it in.
package indexer
