// Package query is the search planner: it answers an agent's questions
// over an index (see tables/schema.sql) with ranked, explained,
// size-bounded results. It reads the index through the typed read methods
// of tables.Reader (full-text channels, name lookups, references, chunk text;
// tables.DB.Reader for an index file, tables/postgres for a shared store)
// and never writes; it holds no SQL.
//
// # API
//
// New returns a Planner over a tables.Reader; it is safe for concurrent use
// (the MCP server runs many clients at once). Planner.Search runs a Request and returns a Response: hits in
// ranked order (Response.Hits, what `viberag search` prints and what the
// benchmark scores), the same hits indexed by kind (Groups: definitions,
// usages, files, blocks), the filters applied, notes, and suggested next
// calls. Planner.Symbol returns everything the index holds about a
// symbol and its code; Planner.References lists the lines referring to
// a name or symbol, grouped by file; FileLines and Surrounding read code
// back from the index. Planner.Rank runs a search up to its ranking only
// (a Draft: hits without snippets, no size budget), for a caller that
// merges many indexes' drafts and finishes (Draft.Finish) only the hits
// that survive the merge.
//
// Inside, the Planner routes and fuses (planner.go, ranked.go, fuse.go)
// and holds the parts that keep state: vectorChannels (the embedder and
// the index's vectors, vectors.go), textChannels (the bm25 channels and
// their term counts, textchannels.go, prune.go), symbolFinder (names to
// definitions and references, definition.go, resolve.go), pageFinisher
// (snippets, groups, suggestions and the size budget, finish.go,
// snippet.go) and the file cache (paths.go).
//
// References are judged when they are read (references.go): each line
// holding a definition's name is checked against every definition of
// that exact name by what is written at the use, per language — the
// qualifier, the file's imports, the scopes, stated types and class
// bases, Python's and TypeScript's stated types, Go's type checker (a
// server keeps its checks) — and listed as resolved, likely or name
// only, never dropped unsaid. The judging is package resolve's (ADR 0020
// and 0022); query lists the lines, pages and ranks the answer.
//
// Vector weights are measured per repository (calibrate.go, ADR 0021):
// KeepCalibrated, the indexer's calibration step, runs each vector
// surface alone on the repository's own pseudo-queries (pseudo.go) and
// keeps a surface's weight only when it beats chance there — for
// questions about how something works, on module pseudo-queries
// (pseudomodule.go); the planner reads the result from the index's meta.
//
// # Intents and the auto rules
//
// A Request names an intent, or auto (the default), which Decide resolves
// from the query's shape alone, the first matching rule winning. Before
// the rules, long task text — over MaxLiteralBytes (4 KiB), or holding a
// stack frame, or 40 words or more of prose — is reduced by
// ReduceTaskText (for auto and concept; up to MaxQueryBytes, 64 KiB) to
// its own code's stack frames, error types and messages, code spans,
// quoted strings, identifiers, paths and most repeated content words;
// the reduction is searched as concept (as a definition when it is one
// identifier) and returned in Response.QueryUsed. Other intents search
// at most MaxLiteralBytes as they stand. The rules:
//
//  1. quoted: the whole query in "…", '…' or `…` → exact_text of the inside;
//  2. usage question: "where is X used|called|referenced", "callers of X",
//     "usages of X", "references to X", "who calls X", "X callers" → usage of X;
//  3. identifier: one token, maybe qualified (a.b, A::B, a->b, A\B, A#b) →
//     definition, fused with concept results (below);
//  4. error message: starts "Error:", "panic:", "ValueError:", "fatal:" … →
//     exact_text of the message after that prefix (code raises the
//     message, not "Type: message"; the message alone finds the docs that
//     quote both too), or holds a printf verb (%s, %d, %v) among words →
//     exact_text;
//  5. code: several lines, or ; { } => := == != && || and the like, or a
//     call with arguments and no English word, or a definition line
//     ("def f(x):") → similar_code; but not a sentence that writes a
//     snippet (readsAsProse), nor a one-line change request or a question
//     opened by how, what or why ("Rename `Push()` to `PushAll()`; add an
//     overload": proseAboutCode), which are prose about code;
//  6. anything else → concept.
//
// # Channels
//
//   - definition: symbols by name. Tiers, best first: the qualified name as
//     written, the name as written, the name ignoring case (including the
//     last part of names stored qualified, like Elixir's Plug.Conn), a name
//     prefix, a name holding every word of the query, and, only when
//     nothing else matched, names within one typo (two for names of eight
//     runes or more) from an in-memory list of distinct names, cached until
//     the symbols table changes. Within a tier: type-like kinds, then
//     functions, methods, variables; exported first; outside tests first.
//   - concept: the query split into words with extract.SplitIdentifier (as
//     the index was), English stop words dropped, inflected words widened
//     to their stem's family with a prefix query ("registered" →
//     register*), snake_case and kebab-case also joined (maxretries).
//     Channels: blocks (bm25 of chunks, header weighted 2, content 1,
//     identifier words 1, strings 0.5), blocks_sum (each file's sum of its
//     block scores: files with many matching blocks), files (bm25 of
//     files: path 2, summary 1), path (the share of the query's words in the
//     file's name and directories, over every file, see pathMatcher), and
//     embedded_names (definitions of identifiers written inside a
//     sentence, "how does res.send set the ETag"), and symbols
//     (bm25 of symbols over the doc comment column only: what a file's
//     definitions say they do; not for identifier queries, where the
//     definitions channel decides, nor for a task text's reduction, which
//     is names and paths). Over all of the symbols' columns it cost the
//     dev split 0.008; over docs alone it gains on both benchmarks
//     (BENCHMARKS.md).
//     For questions about how something works ("how does …", "explain
//     how", "architecture", "overview"), the module channel (module.go):
//     when a module entry — doc.go, __init__.py, mod.rs, lib.rs, index.js,
//     package-info.java, init.lua, a README, or the file beside a
//     directory that names it (foo.rs for foo/) — is the first file of
//     the blocks, files or symbols channel, its score there passes to the
//     module directory's other files (not tests, examples or prose), the
//     larger ones more: the files that do the work rank with the one
//     describing them (BENCHMARKS.md, "Quality"). For the same questions
//     the directory channel (directory.go) runs after a first fusion: the
//     directories its first five files are in lend those files' scores
//     (relative to the best) to their other files, the larger ones more
//     (√ of the size share) and those of large directories a little less
//     (÷ files^¼), and a second fusion adds it (weight 3): "how does X
//     work" is answered by a directory's files, many of which share no
//     word with the question (broad architecture 0.725 → 0.812).
//     The doc-match channel (docmatch.go) scores the doc comments
//     channel's first three definitions by Dice's coefficient between
//     their doc and the query (weight 2, from 0.5; not for task-shaped
//     text nor questions): a query that is a doc comment ranks its
//     definition. It reads a doc only until it cannot reach 0.5,
//     and the decls it read are the snippets of the hits it lifts.
//     Words held by over half the chunks are not searched in blocks: bm25
//     gives them no weight, yet they make it score every chunk. The
//     symbols channel searches the query's rarest terms (by their chunk
//     counts) while those counts sum to at most 2,000, two at least: a
//     long text's common words cost it the most, since their postings in
//     every column are read to find the doc comment's, and weigh the
//     least (a fifth less query CPU on the slowest queries, same NDCG@10).
//   - usage: the refs table by name (calls, identifier uses, types,
//     imports), one hit per line, grouped by file, definition lines left
//     out; a qualified query lists its receiver.method matches first.
//     Without reference facts it falls back to whole-word text matches and
//     says so.
//   - exact_text: the trigram index finds the files that may hold the
//     text, and their chunks holding it are searched in Go, so hits are
//     real occurrences with their lines.
//     Exhaustive mode pages through all with a cursor; otherwise the total
//     is reported and truncation is flagged.
//   - similar_code: token overlap (identifier Jaccard blended with bm25 of
//     the identifier words), and, with vectors, the snippet's cosine to
//     every chunk (vec_code); a chunk's score is the mean of the two.
//   - vectors (when the index has them and Options.Embedder is the model
//     that made them): the query is embedded and every in-scope vector of
//     a surface is scanned exactly (vectors.Set; the scope becomes a bitset
//     before the scan, so a scoped search never loses an in-scope hit).
//     concept adds vec_code (chunks), vec_summary (symbols) and vec_file
//     (files, file level); definition adds vec_summary. Their weights
//     (Tuning.WVec*) are not tuned on the benchmark: the real model's
//     weights could not be downloaded where this was built. A search maps
//     the index's vector file (vectors.File) and reads back from the
//     index only the rows that can rank; without a usable file it loads
//     the vectors table into memory and says why in a note. A planner with
//     Options.ResidentVectors (a server) loads the table in the background
//     and then scans memory. Response.Vectors says "on
//     (model)" (and how many rows have no vector, when some lack one) or
//     why they are off; a hit's why gives its vector rank and cosine
//     (ChannelRank.Similarity). The query is embedded under a deadline and
//     a circuit breaker (Options.QueryEmbed, embed.Guard): a provider that
//     does not answer leaves the search lexical, with a note saying why.
//
// # Fusion
//
// Channels rank different things; fusion works on files, then units. A
// file's score is the weighted sum over channels of its best unit's
// max-normalised score (the path and module channels' scores are used as
// they are; weights: definition 3, blocks 1, blocks_sum 1, path 1,
// embedded_names 1, symbols 1, files 0.7, module 3 and directory 3 for how-questions); it is then multiplied by 1 + the path share (path words) and by
// the priors: test files ×0.5, examples/docs/benchmarks/vendored code
// ×0.7, re-export barrels ×0.8, prose and data files ×0.8. A statement
// in prose that is not a question asks for the code it describes, so it
// takes the task priors instead (task.go: tests ×0.1, prose and data
// ×0.2); a task-shaped one (a commit subject or change
// request, by its verb of change or commit prefix, or reduced task text)
// also weighs doc comments 0.5 and does not search its verb, and lifts
// the files it names (a path, a file or directory name, named.go) and
// the files holding the identifiers it writes (quoted.go), or, when it
// writes none the index holds, its rarest words (rarewords.go), and, after
// a first fusion, its best files by how close together their blocks write
// its words (proximity.go). Priors
// demote, never remove, and a demoted hit always carries a why saying so. Each
// file is represented by its best unit (definitions win ties over
// blocks); its further non-overlapping units compete at the file's score
// ×0.3 per hit already listed, which spreads the list over files. Ties are
// broken by path, then line.
//
// Measured on the benchmark (macro NDCG@10 over 24 repositories, 479
// queries; Tuning names the knobs): score fusion 0.886 against weighted
// reciprocal rank fusion 0.876 (k=10) and 0.852 (k=60); without the path
// channel 0.865, without the path boost 0.860, without either 0.838;
// without blocks_sum 0.865, without files 0.875, without the test prior
// 0.879, without prefix expansion 0.861, with path precision off 0.874,
// with the symbols channel on (all columns) 0.878. A file-length prior and an
// inbound-reference (centrality) prior were tried and lowered the score;
// they are not in.
//
// # Budget
//
// MaxTokens (4 bytes each) and MaxBytes bound the answer's JSON: the why
// of each hit goes first, then snippets are cut to one line and removed
// from the last hit up, then a long vectors explanation is cut to its
// first clause and suggestions to one; only then are hits dropped from
// the end (one is always kept). The response says truncated and how many
// were dropped.
package query
