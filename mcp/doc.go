// Package mcp serves a repository's viberag index to AI coding agents over
// the Model Context Protocol, on stdio or streamable HTTP, and keeps the
// index fresh while it serves.
//
// # Tools
//
// Eight tools, each with typed input and output (JSON schemas inferred
// from the structs, descriptions written for the calling model):
//
//   - codebase_search: the query planner (package query), as
//     `viberag search --json` returns it.
//   - get_symbol_details, find_references: a symbol's definition, and
//     where it is used.
//   - get_surrounding_code: the enclosing symbol and nearest siblings of a
//     symbol or chunk (query.Planner.Neighbourhood), with the anchor's code
//     read from disk. The package runs no SQL of its own.
//   - read_file_lines: lines of an indexed file as it is on disk, capped
//     at 400 lines; only indexed files, so the selection rules (secrets,
//     ignored and skipped files) govern reads as they govern search, and
//     never outside the root (no "..", no absolute paths, symbolic links
//     resolved and checked).
//   - index, get_status, cancel_indexing: run, inspect and stop indexing.
//
// Bad arguments are tool errors (isError results) naming the argument and
// what it accepts, so the model can correct its call; the server keeps
// serving.
//
// # Freshness
//
// New returns at once: tools answer from the existing index while a
// catch-up run brings it up to date, and every result carries
// index_state (ready, updating, building with partial results on a first
// build, failed). The index is SQLite in WAL mode and every file's rows
// are replaced in one transaction, so a query sees the last committed
// state and never half of a file, and never waits for a run.
//
// One run at a time: a run requested while one is running is queued, and
// further requests join the queued run (see runner). A file watcher
// (fsnotify, one watch per directory the selection rules accept, pruning
// skipped and git-ignored directories and the data directory) collects
// changed paths and, after a quiet period (300ms, at most 2s under a
// steady stream), schedules one incremental run for the whole batch; the
// indexer re-parses only files whose hash changed, so a branch switch
// touching thousands of files costs one run. Editors' atomic saves
// (write a temporary file, rename it over the original) are creates and
// renames like any other. HEAD moving (commit, checkout) is noticed
// through .git/HEAD and .git/logs/HEAD. When watching fails (inotify's
// watch limit, ENOSPC) the watcher falls back to periodic rescans and
// says so in get_status's warnings.
//
// # Stdio
//
// ServeStdio reads through LineTransport rather than the SDK's stdio
// transport, which ends the session at the first line it cannot decode:
// a bad line (not JSON, not an object, no "jsonrpc", an id MCP forbids,
// longer than the cap) is answered with -32700 or -32600 and the session
// goes on; request ids come back byte for byte; no error goes out with
// code 0; and reading stops while MaxInFlight requests await their
// answers, so a client cannot queue unbounded work.
//
// # HTTP
//
// The HTTP transport listens on 127.0.0.1 unless told otherwise, checks
// Host and Origin against DNS rebinding (the server's own names with its
// port, and configured ones, case-insensitively), and requires a bearer
// token (TokenEnv) on a non-loopback address unless explicitly allowed
// not to. It sheds load instead of falling over: deadlines on headers,
// body, each write and idle connections; a cap on connections below the
// descriptor limit, so clients cannot starve the index of descriptors;
// a cap on sessions that evicts the one idle longest; and accept errors
// such as EMFILE are retried with a backoff (see HTTPOptions).
package mcp
