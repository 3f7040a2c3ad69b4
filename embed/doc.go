// Package embed turns text into vectors.
//
// It owns embedding providers and nothing else: no storage, no search. A
// Provider maps a batch of texts to unit-length float32 vectors and names
// itself with a stable ID, so callers can tell vectors of different models
// apart and never mix them.
//
// Config names a provider and the settings that change its vectors (never
// a secret), and Open builds it; an index stores its Config so searches
// embed queries with the provider that embedded the index. Package
// embedtest writes small models in the real format for tests.
//
// Three things live here:
//
//   - Model2Vec, the default provider: pure-Go inference for Model2Vec static
//     embeddings (minishlab/potion-code-16M by default) — a WordPiece
//     tokenizer read from the model's tokenizer.json, a safetensors reader,
//     and weighted mean pooling. LoadDefault finds the model in
//     $VIBERAG_MODEL_DIR or the user's cache directory and downloads it once
//     (resumable, size- and sha256-verified) when it is missing; with no model
//     and no network it returns ErrModelUnavailable.
//   - Static, an experimental provider: a static word model over identifier
//     parts (StaticWords cuts text with package extract/words, as the
//     index cuts identifiers) in a small int8 file that scripts/trainstatic trains
//     from public code; a text's vector is the weighted sum of its words'.
//     It needs no download, but measured it did not beat lexical search on
//     the broad benchmark (BENCHMARKS.md), so no model is built in.
//   - OpenAI, a client for any OpenAI-compatible /v1/embeddings endpoint
//     (OpenAI, Ollama, LM Studio, llama.cpp server, vLLM, TEI) with batching,
//     bounded concurrency, per-request timeouts, retries (reported through a
//     Trace in the context), and checks of every response: dimension, values
//     (no zero, NaN or infinite vector), body size and completeness.
//     Credentials in its URL (user info, key-like query parameters) and its
//     key are used for requests but never shown: its ID, its errors and
//     Config.Redacted carry the URL without them (redact.go).
//   - Cached, a wrapper that looks vectors up in a Cache keyed by (provider
//     ID, xxhash64 of the text) before asking the provider, so re-indexing
//     never re-embeds unchanged text. The Cache interface is storage-agnostic;
//     MemCache is the in-memory implementation. A cached vector of the wrong
//     size or value is never served.
//   - Guarded, for interactive callers: a deadline per call and a circuit
//     breaker, so that a provider that stopped answering costs one deadline
//     and is tried again after a cooldown.
package embed
