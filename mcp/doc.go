// Package mcp is viberag's side of the Model Context Protocol: the tools
// AI coding agents call (their inputs, outputs, descriptions and argument
// checks) and the transports that carry them, stdio and streamable HTTP.
// It owns the protocol only: answers come from package query (fanout for
// a shared store), index runs and their state from indexer, storage from
// tables. Server serves one repository's index; StoreServer every
// repository of a shared store a caller's token may read.
//
// # Tools
//
// Eight tools, each with typed input and output (JSON schemas inferred
// from the structs, descriptions written for the calling model):
//
//   - codebase_search: the query planner (package query).
//   - get_symbol_details, find_references: a symbol's definition, and
//     where it is used.
//
// These three answers are made by Answers, which `viberag search|symbol|
// refs --json` print too: the same value, with the planner's suggested
// steps presented as calls of these tools (PresentAction, the one
// mapping from steps to tool names and schema-valid arguments).
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
// A StoreServer offers the first five, reading what was pushed, and
// list_repos (StoreToolNames).
//
// Bad arguments are tool errors (isError results) naming the argument and
// what it accepts, so the model can correct its call; the server keeps
// serving. The checks are written once (args.go) for both servers.
//
// # Freshness
//
// New returns at once: tools answer from the existing index while the
// indexer's catch-up run brings it up to date, and every result carries
// index_state (ready, updating, building with partial results on a first
// build, failed). The index is SQLite in WAL mode and every file's rows
// are replaced in one transaction, so a query sees the last committed
// state and never half of a file, and never waits for a run.
//
// Background indexing — one run at a time, the file watcher — is the
// indexer's (indexer.StartBackground); the server gives it the run that
// takes the write lock and heals a damaged index (heal.go), and reports
// its state through indexer.ReadStatus (get_status) and Live.Freshness
// (index_state).
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
// not to. It sheds load instead of falling over: every connection's life
// is bounded whatever path its request takes (conns.go) — deadlines on
// headers, body, each write and idle connections; a refused request is
// answered at once and its connection closed; a cap on connections below
// the descriptor limit, so clients cannot starve the index of
// descriptors, where a new connection closes one that is not being
// served; a cap on sessions that evicts the one idle longest; and accept
// errors such as EMFILE are retried with a backoff (see HTTPOptions).
package mcp
