// Package testtok supplies the tokenizer.json that tests of embedding code
// load: a small WordPiece tokenizer generated here, in the format of the
// Model2Vec default model's tokenizer, or that real tokenizer when a copy
// sits beside the repository clone.
package testtok

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// SkipReal is the message of a test that needs the real tokenizer when
// RealPath finds none.
const SkipReal = "real tokenizer not beside the clone: this test checks potion-code-16M's own vocabulary"

// RealPath is the real potion-code-16M tokenizer.json when it lies in
// shared/models/potion-code-16M/ in the directory that holds the module's
// clone, or "" when it does not. The module root is found by walking up
// from the working directory to go.mod.
func RealPath() string {
	return realPath()
}

var realPath = sync.OnceValue(func() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	p := filepath.Join(filepath.Dir(dir), "shared", "models", "potion-code-16M", "tokenizer.json")
	if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return p
})

// Generated returns a tokenizer.json in the real file's format — the same
// normalizer, pre-tokenizer, added tokens, truncation and WordPiece
// settings — with a small deterministic vocabulary (see Vocabulary). The
// bytes are the same on every call; callers must not modify them.
func Generated() []byte { return generated() }

var generated = sync.OnceValue(func() []byte {
	vocab := Vocabulary()
	var b bytes.Buffer
	b.WriteString(`{"version":"1.0",` +
		`"truncation":{"direction":"Right","max_length":512,"strategy":"LongestFirst","stride":0},` +
		`"padding":{"strategy":"BatchLongest","direction":"Right","pad_to_multiple_of":null,"pad_id":0,"pad_type_id":0,"pad_token":"[PAD]"},` +
		`"added_tokens":[` +
		`{"id":0,"content":"[PAD]","single_word":true,"lstrip":true,"rstrip":true,"normalized":true,"special":true},` +
		`{"id":1,"content":"[UNK]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],` +
		`"normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true},` +
		`"pre_tokenizer":{"type":"BertPreTokenizer"},` +
		`"post_processor":null,` +
		`"decoder":{"type":"WordPiece","prefix":"##","cleanup":true},` +
		`"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,"vocab":{`)
	for id, tok := range vocab {
		if id > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(tok)
		if err != nil {
			panic(err) // a string always marshals
		}
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(id))
	}
	b.WriteString(`}}}`)
	return b.Bytes()
})

// Vocabulary is the generated tokenizer's vocabulary, indexed by id:
// [PAD] and [UNK]; the printable ASCII characters but capitals, at the real
// file's ids (2–69); a few non-ASCII letters, symbols and CJK ideographs;
// the ##-continuation of every digit, lowercase letter and non-ASCII
// character; a few hundred words of code, each also as a continuation; and
// common word endings as continuations. Every lowercase ASCII word of at
// most 100 characters therefore encodes without [UNK].
func Vocabulary() []string {
	var vocab []string
	seen := map[string]bool{}
	add := func(tok string) {
		if !seen[tok] {
			seen[tok] = true
			vocab = append(vocab, tok)
		}
	}
	add("[PAD]")
	add("[UNK]")
	for c := byte('!'); c <= '~'; c++ {
		if c < 'A' || c > 'Z' {
			add(string(c))
		}
	}
	for _, r := range nonASCII {
		add(string(r))
	}
	for c := '0'; c <= '9'; c++ {
		add("##" + string(c))
	}
	for c := 'a'; c <= 'z'; c++ {
		add("##" + string(c))
	}
	for _, r := range nonASCII {
		add("##" + string(r))
	}
	for _, w := range words {
		add(w)
	}
	for _, w := range words {
		add("##" + w)
	}
	for _, s := range suffixes {
		add("##" + s)
	}
	return vocab
}

// nonASCII are single characters beyond ASCII: Latin letters without a
// decomposition (accents are stripped before lookup, so é is e), Greek
// letters, symbols the BERT pre-tokenizer splits off as punctuation or
// keeps inside words, and CJK ideographs (each one a word).
var nonASCII = []rune("¡£§©«°±²·»¿×ßæðøþ÷đłœαβγδεζηθικλμνξοπρστυφχψω–—‘’“”•…€→∞≠≤≥中文字代码")

// words are common words and identifier parts of source code, lowercase
// (the normalizer lowercases), a few hundred of them.
var words = []string{
	"a", "an", "the", "of", "to", "in", "is", "it", "on", "at", "by", "be", "as", "or", "and", "not", "no",
	"if", "else", "elif", "for", "while", "do", "then", "end", "break", "continue", "return", "yield",
	"switch", "case", "default", "goto", "try", "catch", "except", "finally", "raise", "throw", "throws",
	"func", "function", "fn", "def", "lambda", "class", "struct", "enum", "interface", "trait", "impl",
	"type", "typedef", "union", "package", "import", "from", "export", "module", "require", "use", "mod",
	"include", "namespace", "using", "public", "private", "protected", "static", "final", "const", "var",
	"let", "mut", "pub", "extends", "implements", "abstract", "override", "virtual", "async", "await",
	"go", "defer", "chan", "select", "range", "map", "make", "new", "delete", "del", "pass", "with",
	"self", "this", "super", "nil", "null", "none", "true", "false", "void", "int", "uint", "float",
	"double", "char", "byte", "bool", "boolean", "str", "string", "list", "dict", "set", "array", "slice",
	"vec", "option", "some", "ok", "err", "error", "errors", "result", "match", "where", "when", "unless",
	"get", "put", "post", "add", "remove", "update", "create", "read", "write", "open", "close", "load",
	"save", "store", "fetch", "send", "recv", "run", "start", "stop", "init", "main", "new", "reset",
	"parse", "parser", "format", "print", "printf", "println", "log", "debug", "info", "warn", "fatal",
	"test", "tests", "assert", "expect", "mock", "bench", "check", "valid", "validate", "handle",
	"handler", "request", "response", "req", "resp", "http", "https", "url", "uri", "api", "server",
	"client", "service", "router", "route", "path", "file", "files", "dir", "name", "names", "value",
	"values", "key", "keys", "data", "item", "items", "index", "id", "ids", "count", "size", "len",
	"length", "max", "min", "sum", "num", "number", "total", "first", "last", "next", "prev", "head",
	"tail", "node", "tree", "root", "leaf", "child", "parent", "graph", "edge", "queue", "stack", "heap",
	"cache", "buffer", "buf", "stream", "reader", "writer", "input", "output", "in", "out", "io", "os",
	"sys", "net", "time", "timer", "timeout", "date", "duration", "sleep", "wait", "retry", "backoff",
	"attempt", "job", "jobs", "task", "tasks", "worker", "pool", "thread", "lock", "mutex", "sync",
	"context", "ctx", "config", "conf", "option", "options", "opts", "args", "arg", "param", "params",
	"env", "user", "users", "admin", "auth", "token", "tokens", "session", "login", "password", "hash",
	"sha", "encode", "decode", "json", "xml", "yaml", "html", "css", "sql", "db", "query", "table",
	"row", "rows", "column", "field", "fields", "record", "model", "view", "controller", "component",
	"state", "props", "event", "events", "listener", "callback", "promise", "future", "hello", "world",
	"foo", "bar", "baz", "qux", "tmp", "temp", "util", "utils", "helper", "helpers", "common", "base",
	"core", "lib", "src", "pkg", "cmd", "app", "web", "render", "template", "tmpl", "page", "search",
	"find", "filter", "sort", "scan", "split", "join", "trim", "replace", "contains", "append", "push",
	"pop", "copy", "clone", "equal", "equals", "compare", "less", "greater", "before", "after", "all",
	"any", "each", "every", "other", "only", "also", "more", "most", "can", "will", "should", "must",
	"may", "has", "have", "had", "was", "were", "are", "that", "which", "what", "who", "how", "why",
	"here", "there", "up", "down", "left", "right", "top", "bottom", "line", "lines", "text", "code",
	"word", "words", "char", "chars", "symbol", "symbols", "chunk", "chunks", "vector", "vectors",
	"embed", "embedding", "delay", "render", "exponential", "failed", "cached", "caches", "retries",
}

// suffixes are word endings, which occur only as continuations.
var suffixes = []string{
	"s", "es", "ed", "er", "ers", "ing", "ion", "ions", "tion", "ly", "able", "ible", "ment", "ness",
	"ize", "ise", "ful", "less", "ity", "al", "ic", "ive", "or", "ors", "ry", "ies", "est", "en",
}
