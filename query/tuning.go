package query

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Tuning holds the ranking constants. DefaultTuning's values were chosen
// on the benchmark (see the package documentation); each is a general
// signal, none is fitted to a query.
type Tuning struct {
	// Fusion is "rrf" (weighted reciprocal rank fusion) or "score"
	// (weighted sum of max-normalised channel scores).
	Fusion string `tune:"fusion"`
	// RRFK is the k of reciprocal rank fusion: 1/(k+rank).
	RRFK float64 `tune:"rrf_k"`

	// Channel weights.
	WChunk    float64 `tune:"w_chunk"`    // best chunk of the file (bm25 of chunks)
	WChunkSum float64 `tune:"w_chunksum"` // sum of the file's chunk scores: files with many matching blocks
	WSymbol   float64 `tune:"w_symbol"`   // best symbol of the file (bm25 of symbols)
	WFile     float64 `tune:"w_file"`     // the file's path and summary (bm25 of files)
	WDef      float64 `tune:"w_def"`      // definitions of the queried name (identifier queries)
	WEmbedded float64 `tune:"w_embedded"` // definitions of identifiers written inside a sentence
	WPath     float64 `tune:"w_path"`     // share of the query's words in the file's path (all files)

	// The module channel (module.go): a module entry's score passed to
	// its module's files. WModule is its weight for prose;
	// WModuleQuestion replaces it for questions about how something works
	// (moduleQuestion; 0 keeps WModule). ModuleSources are the channels
	// whose hits on a module entry count (comma-separated names);
	// ModuleTop, when above 0, counts an entry only among a channel's
	// first ModuleTop files.
	WModule         float64 `tune:"w_module"`
	WModuleQuestion float64 `tune:"w_module_question"`
	ModuleSources   string  `tune:"module_sources"`
	ModuleTop       int     `tune:"module_top"`

	// The directory channel (directory.go), for the same questions: the
	// first DirTop files of a first fusion lend their scores, times
	// WDir, to the other files of their directories, the larger ones
	// more ((lines / largest)^DirSizePow), directories of many files
	// less (÷ files^DirCountPow), and, for questions, directories that
	// hold much of the repository less (× (1 − files / (all files +
	// 1))^DirRepoPow).
	WDir        float64 `tune:"w_dir"`
	DirTop      int     `tune:"dir_top"`
	DirSizePow  float64 `tune:"dir_size_pow"`
	DirCountPow float64 `tune:"dir_count_pow"`
	DirRepoPow  float64 `tune:"dir_repo_pow"`

	// The doc-match channel (docmatch.go), for prose that is a statement
	// (a doc comment's sentence is one; a question is asked about code,
	// not copied from it): the first DocMatchTop definitions of the doc
	// comments channel scored by how much their doc and the query share
	// (Dice's coefficient over their words), from DocMatchMin up, times
	// WDocMatch. The decls it reads are those the snippets of the hits it
	// lifts need.
	WDocMatch   float64 `tune:"w_doc_match"`
	DocMatchTop int     `tune:"doc_match_top"`
	DocMatchMin float64 `tune:"doc_match_min"`
	// DocMatchWords is the fewest distinct query words (by stem) it
	// runs for.
	DocMatchWords int `tune:"doc_match_words"`

	// Vector channels (only when the index has vectors and the planner an
	// embedder of the same model). Not tuned on the benchmark: the real
	// model's weights were not available where it was built (BENCHMARKS.md).
	WVecCode    float64 `tune:"w_vec_code"`    // chunks by cosine to the query (concept, similar_code)
	WVecSummary float64 `tune:"w_vec_summary"` // symbols by cosine of their summaries (concept, definition)
	WVecFile    float64 `tune:"w_vec_file"`    // files by cosine of their summaries (concept)
	VecCands    int     `tune:"vec_cands"`     // rows read per vector channel

	// Column weights of full-text search, in tables.TextColumns' order.
	ChunkCols  []float64 `tune:"chunk_cols"`  // header, content, ident_parts, strings
	SymbolCols []float64 `tune:"symbol_cols"` // name, qualname, signature, doc, ident_parts
	FileCols   []float64 `tune:"file_cols"`   // path, summary

	// Prefix expands query words to their stem's family (register*):
	// words whose stem differs from them, and with PrefixAll every word
	// of five letters or more.
	Prefix    bool `tune:"prefix"`
	PrefixAll bool `tune:"prefix_all"`
	// SymbolColumns restricts the symbols channel to these columns of
	// symbols (space-separated names, such as "name qualname"); ""
	// searches them all.
	SymbolColumns string `tune:"symbol_columns"`

	// PruneShare drops query terms found in more than this share of the
	// chunks from the blocks channel (0.5 is lossless for bm25; 0 or 1
	// disables).
	PruneShare float64 `tune:"prune_share"`
	// PruneBudget bounds the rows the blocks channel scores: the most
	// common terms are dropped while the kept terms' counts sum to more
	// (0 disables).
	PruneBudget int `tune:"prune_budget"`
	// SymbolTerms bounds the terms the symbols channel searches: the
	// rarest this many in the chunks (0: all).
	SymbolTerms int `tune:"symbol_terms"`
	// SymbolBudget bounds them further: past the first two, the rarest
	// only while their chunk counts sum to at most this (0: no bound).
	SymbolBudget int `tune:"symbol_budget"`

	// Candidates read per channel.
	ChunkCands  int `tune:"chunk_cands"`
	SymbolCands int `tune:"symbol_cands"`
	FileCands   int `tune:"file_cands"`

	// PathBoost multiplies a file's score by 1 + PathBoost × (share of the
	// query's words found in its file name and directories).
	PathBoost float64 `tune:"path_boost"`
	// PathDirShare is what a word found only in a directory name counts
	// for, against 1 in the file name.
	PathDirShare float64 `tune:"path_dir_share"`
	// PathPrecision is how much a file name's uncovered words lower its
	// path score (0: not at all; 1: in proportion).
	PathPrecision float64 `tune:"path_precision"`

	// Priors (multiplicative; 1 disables).
	TestPrior     float64 `tune:"test_prior"`     // test files and test directories
	AuxPrior      float64 `tune:"aux_prior"`      // examples, docs, benchmarks, vendored code
	ReexportPrior float64 `tune:"reexport_prior"` // package barrels: __init__.py, index.js…
	ProsePrior    float64 `tune:"prose_prior"`    // prose and data files (markdown, text, json, yaml)

	// Task priors replace TestPrior and ProsePrior for statements that
	// are not questions, task-shaped or not (task.go): they ask for
	// source, not its tests, docs or changelog.
	TaskTestPrior  float64 `tune:"task_test_prior"`
	TaskProsePrior float64 `tune:"task_prose_prior"`
	// TaskVerbDrop searches a task-shaped query without its verb of change.
	TaskVerbDrop bool `tune:"task_verb_drop"`
	// TaskWSymbol replaces WSymbol (doc comments) for task-shaped queries.
	TaskWSymbol float64 `tune:"task_w_symbol"`
	// TaskDepthBoost lifts, for task-shaped queries, a source file by how
	// near the indexed root it is: × (1 + TaskDepthBoost / (1 + its
	// directories' count)).
	TaskDepthBoost float64 `tune:"task_depth_boost"`
	// TaskWDocMatch replaces WDocMatch for task-shaped queries: 0, as a
	// change request's words in a doc say what that code does, not where
	// the change goes (TaskWSymbol).
	TaskWDocMatch float64 `tune:"task_w_doc_match"`
	// TaskWDir and TaskDirTop replace WDir and DirTop for task-shaped
	// text: a change is often made beside the files its words match
	// best (the sibling that implements what they call), so their
	// directory lends its other files a little of their scores, as
	// far as the place behind them (dirChannel's lendOnly).
	TaskWDir   float64 `tune:"task_w_dir"`
	TaskDirTop int     `tune:"task_dir_top"`
	// TaskDeclPrior scales, for task-shaped queries that do not name
	// types or typings, a TypeScript declaration file (.d.ts): it
	// restates the names and doc comments of the code it types, and a
	// change is made in that code.
	TaskDeclPrior float64 `tune:"task_decl_prior"`
	// TaskErrorTypePrior scales, for task-shaped queries, a short file
	// named like an exception or error type that the text does not name
	// (named.go): a change's words name the failure ("a missing field",
	// "header validation") where the code that raises it changes, and the
	// type's file changes when the text writes its name.
	TaskErrorTypePrior float64 `tune:"task_error_type_prior"`

	// NamedPathBoost and NamedStemBoost lift, for task-shaped queries, a
	// file the text names (named.go):
	// × (1 + NamedPathBoost) by its path or its directory's,
	// × (1 + NamedStemBoost) by its name or its directory's name alone.
	NamedPathBoost float64 `tune:"named_path_boost"`
	NamedStemBoost float64 `tune:"named_stem_boost"`
	// QuotedBoost lifts, for the same queries, a file by the share of the
	// names the text writes that it holds (quoted.go): × (1 + QuotedBoost
	// × share).
	QuotedBoost float64 `tune:"quoted_boost"`
	// RareBoost lifts, for the same queries, a file by the share of the
	// text's rarest words that its blocks hold (rarewords.go):
	// × (1 + RareBoost × share).
	RareBoost float64 `tune:"rare_boost"`
	// StringBoost lifts, for the same queries, a file by the share of the
	// text's words that its blocks hold in string literals
	// (stringwords.go): × (1 + StringBoost × share). StringBlocks is the
	// most blocks a word may be written in to count.
	StringBoost  float64 `tune:"string_boost"`
	StringBlocks int     `tune:"string_blocks"`
	// PhraseBoost lifts, for the same queries, a file by the share of
	// the text's rarest word pairs that its blocks hold side by side
	// (phrases.go): × (1 + PhraseBoost × share).
	PhraseBoost float64 `tune:"phrase_boost"`
	// StatementPhraseBoost is the same lift for a statement in prose
	// that is neither task-shaped nor a question (a doc comment's
	// sentence, a description of what code does; phrases.go).
	StatementPhraseBoost float64 `tune:"statement_phrase_boost"`
	// HeadBlocks weighs, for the same queries, the words of a commit
	// message's head (head.go) in the blocks channel's bm25, against 1
	// for the words only its body says (fulltext.Weighted).
	HeadBlocks float64 `tune:"head_blocks"`
	// ProxBoost lifts, for the same queries, each of the first ProxTop
	// source files of a first fusion by the most of the text's words
	// (weighed by idf) that a window of ProxLines lines of its matched
	// blocks holds, ProxMin distinct words or more, as a share of all the
	// text's words' weight (proximity.go): × (1 + ProxBoost × share).
	ProxBoost float64 `tune:"prox_boost"`
	ProxTop   int     `tune:"prox_top"`
	ProxLines int     `tune:"prox_lines"`
	ProxMin   int     `tune:"prox_min"`

	// SameFileDecay is the factor on a file's second hit (squared on its
	// third…): below 1 it spreads the list over more files; near 0 every
	// file's best hit comes before any file's second, which then only
	// fills a list that has run out of files.
	SameFileDecay float64 `tune:"same_file_decay"`
}

// DefaultTuning returns the constants the planner uses.
func DefaultTuning() Tuning {
	return Tuning{
		Fusion:        "score",
		RRFK:          10,
		WChunk:        1,
		WChunkSum:     1,
		WSymbol:       1, // doc comments only (SymbolColumns), prose queries only: broad 0.822 -> 0.849, dev 0.8935 -> 0.8946
		WFile:         0.7,
		WDef:          3,
		WEmbedded:     1,
		WPath:         1,
		WVecCode:      1,
		WVecSummary:   0.7,
		WVecFile:      0.5,
		VecCands:      100,
		ChunkCols:     []float64{2, 1, 1, 0.5},
		SymbolCols:    []float64{3, 2, 1, 1, 0.5},
		FileCols:      []float64{2, 1},
		Prefix:        true,
		PrefixAll:     false,
		SymbolColumns: "doc",
		PruneShare:    0.5,
		PruneBudget:   600,
		SymbolBudget:  2000, // with ChunkCands 100, p95 query CPU a tenth to a fifth lower; broad NDCG@10, task Hit@5 not lower
		ChunkCands:    100,  // 150 -> 100: broad +0.0006, task Hit@5 +0.002; fewer rows to read
		SymbolCands:   100,
		FileCands:     50,
		PathBoost:     1,
		PathDirShare:  0.5,
		PathPrecision: 1,
		TestPrior:     0.5,
		AuxPrior:      0.7,
		ReexportPrior: 0.8,
		ProsePrior:    0.8,
		SameFileDecay: 0.001, // best chunk per file first (broad benchmark +0.0014, dev split +0.001 over 0.3)

		TaskTestPrior:  0.1,
		TaskProsePrior: 0.2,
		TaskWSymbol:    0.5,
		TaskDepthBoost: 0.75, // with TaskWDir 0.4, over 0.5 and 0.3: broad task Hit@5 0.842 -> 0.847, no language lower by 0.001
		TaskWDocMatch:  0,
		TaskWDir:       0.4,
		TaskDirTop:     3,
		TaskDeclPrior:  0.25, // broad task 0.7186 -> 0.7190, Hit@5 1,465 -> 1,467 (JavaScript's typings); 0.5: 0.7189, 0.1: 0.7189
		TaskVerbDrop:   true,
		NamedPathBoost: 0.5,
		NamedStemBoost: 0.25,
		QuotedBoost:    1,
		StringBoost:    1,
		StringBlocks:   100,
		RareBoost:      1, // broad 0.865 -> 0.867 (task 0.704 -> 0.707, Hit@5 0.825 -> 0.828; concept 0.929 -> 0.931); dev split unchanged
		// broad task 0.7276 -> 0.7279 per query (6 lists up, none down: C#
		// +0.0022, TypeScript +0.0027, Java +0.0015); 0.25 and 0.1: 8 up,
		// a concept list down (Java -0.0007).
		TaskErrorTypePrior: 0.5,
		// broad task 0.7200 -> 0.7236 per query, Hit@1 1,029 -> 1,042,
		// Hit@5 1,469 -> 1,469; no language lower by 0.0005.
		PhraseBoost: 0.3,
		// broad 0.8843 -> 0.8868 (concept 0.9576 -> 0.9646 per query,
		// task 0.7254 -> 0.7265), the dev split 0.8964 -> 0.8966.
		StatementPhraseBoost: 0.3,
		// broad task 0.7236 -> 0.7254 per query, Hit@1 1,042 -> 1,047,
		// Hit@5 1,469 -> 1,469 (2: 0.7261, Hit@5 1,467); dev split
		// unchanged; Go -0.0014 (one message).
		HeadBlocks: 1.5,

		// broad task 0.7285 -> 0.7316 per query, Hit@1 1,056 -> 1,072;
		// concept 0.9646 -> 0.9672; the dev split unchanged; a task
		// query's CPU ×1.02 (BENCHMARKS.md).
		ProxBoost: 1,
		ProxTop:   5, // 3: task -0.0003; 10: +0.0002, twice the read
		ProxLines: 5,
		ProxMin:   3,

		// Questions only: broad architecture 0.481 -> 0.723,
		// other kinds and the dev split unchanged (BENCHMARKS.md).
		WModule:         0,
		WModuleQuestion: 3,
		ModuleSources:   "blocks,files,symbols",
		ModuleTop:       1,
		WDir:            3.5, // 3 -> 3.5 with DirRepoPow: broad architecture 0.8343 -> 0.8382 (repositories' mean), the dev split 0.8963 -> 0.8964
		DirTop:          5,
		DirSizePow:      0.5,
		DirCountPow:     0.25,
		DirRepoPow:      1, // broad architecture 0.8325 -> 0.8343 (repositories' mean), the dev split 0.8958 -> 0.8963
		WDocMatch:       2,
		DocMatchTop:     3,
		DocMatchMin:     0.5,
		DocMatchWords:   0,
	}
}

// Set sets one constant from "name=value" (names as in the tune tags;
// lists comma-separated).
func (t *Tuning) Set(kv string) error {
	name, val, ok := strings.Cut(kv, "=")
	if !ok {
		return fmt.Errorf("tuning %q: want name=value", kv)
	}
	v := reflect.ValueOf(t).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Type().Field(i).Tag.Get("tune") != name {
			continue
		}
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(val)
		case reflect.Bool:
			b, err := strconv.ParseBool(val)
			if err != nil {
				return fmt.Errorf("tuning %s=%q: %w", name, val, err)
			}
			f.SetBool(b)
		case reflect.Int:
			n, err := strconv.Atoi(val)
			if err != nil {
				return fmt.Errorf("tuning %s=%q: %w", name, val, err)
			}
			f.SetInt(int64(n))
		case reflect.Float64:
			x, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return fmt.Errorf("tuning %s=%q: %w", name, val, err)
			}
			f.SetFloat(x)
		case reflect.Slice:
			var xs []float64
			for _, s := range strings.Split(val, ",") {
				x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil {
					return fmt.Errorf("tuning %s=%q: %w", name, val, err)
				}
				xs = append(xs, x)
			}
			if f.Len() != 0 && len(xs) != f.Len() {
				return fmt.Errorf("tuning %s=%q: want %d values", name, val, f.Len())
			}
			f.Set(reflect.ValueOf(xs))
		}
		return nil
	}
	return fmt.Errorf("tuning %q: unknown name; known: %s", name, strings.Join(tuneNames(), ", "))
}

func tuneNames() []string {
	var out []string
	ty := reflect.TypeOf(Tuning{})
	for i := 0; i < ty.NumField(); i++ {
		out = append(out, ty.Field(i).Tag.Get("tune"))
	}
	sort.Strings(out)
	return out
}
