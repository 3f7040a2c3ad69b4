// Package indexer runs an index: it selects a repository's files, extracts
// facts from the ones whose content changed, and writes them to the tables,
// a batch of whole files per transaction. It is the only package that joins
// extract (files → facts) and tables (facts → storage); the CLI and the MCP
// server both run indexes through it.
//
// A run is incremental: a file is re-parsed only when its content hash
// differs from the stored one; rows of files that disappeared or became
// skipped are deleted. Every file's rows are replaced atomically, so a run
// killed at any moment leaves an index that answers, and the next run
// completes it.
package indexer
