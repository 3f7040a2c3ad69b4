package query

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/viberag/viberag/scope"
)

// Intent says what a search is for. Auto picks one of the others by the
// rules of Route.
type Intent string

// Intents.
const (
	Auto        Intent = "auto"
	Definition  Intent = "definition"   // where is this symbol defined
	Usage       Intent = "usage"        // where is this symbol used
	Concept     Intent = "concept"      // which code is about this
	ExactText   Intent = "exact_text"   // every occurrence of this literal text
	SimilarCode Intent = "similar_code" // code that looks like this snippet
)

// Intents lists the accepted intents.
func Intents() []Intent {
	return []Intent{Auto, Definition, Usage, Concept, ExactText, SimilarCode}
}

// Request is one search. Only Query is required.
type Request struct {
	Query  string      `json:"query"`
	Intent Intent      `json:"intent,omitempty"` // default auto
	Scope  scope.Scope `json:"scope,omitzero"`
	// Limit is the number of hits wanted (default 10, at most MaxLimit).
	Limit int `json:"limit,omitempty"`
	// MaxTokens and MaxBytes bound the size of the answer as JSON (a
	// token is counted as 4 bytes): explanations, snippets and extra
	// suggestions are cut first, then hits dropped from the end; the
	// response says so. 0 means no bound.
	MaxTokens int `json:"max_tokens,omitempty"`
	MaxBytes  int `json:"max_bytes,omitempty"`
	// ReserveBytes is what the caller adds to the answer after the search
	// (the index state of an MCP answer, a note): the budget keeps room
	// for it. Not part of the request's JSON.
	ReserveBytes int `json:"-"`
	// Exhaustive (exact_text only) returns every occurrence, Limit per
	// page, in path and line order; NextCursor continues.
	Exhaustive bool `json:"exhaustive,omitempty"`
	// Cursor continues an exhaustive exact_text search.
	Cursor string `json:"cursor,omitempty"`
	// IgnoreCase makes exact_text case-insensitive (ASCII letters).
	IgnoreCase bool `json:"ignore_case,omitempty"`
	// Explain adds a why to every hit, not only to demoted ones.
	Explain bool `json:"explain,omitempty"`

	draft       bool // Planner.Rank: leave the snippets to Draft.Finish
	exactChunks int  // RankOptions.ExactChunks
}

// DecodeRequest reads a Request from JSON strictly: unknown fields and
// wrong types are errors naming the field (the scope's included), so an
// agent's typo is reported rather than ignored.
func DecodeRequest(data []byte) (Request, error) {
	var r Request
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return Request{}, fmt.Errorf("search request: field %s: wrong type: got JSON %s", te.Field, te.Value)
		}
		return Request{}, fmt.Errorf("search request: %w", err)
	}
	if dec.More() {
		return Request{}, errors.New("search request: trailing data after the JSON object")
	}
	return r, nil
}

// Limits of a Request. A query may hold up to MaxQueryBytes of task text
// (auto and concept reduce it, see ReduceTaskText); other intents search
// the query as it stands, at most MaxLiteralBytes.
const (
	DefaultLimit  = 10
	MaxLimit      = 200
	MaxQueryBytes = 64 << 10
)

// Hit kinds, one per group.
const (
	KindDefinition = "definition" // a symbol: symbols.sid
	KindUsage      = "usage"      // a reference line
	KindFile       = "file"       // a whole file
	KindBlock      = "block"      // a chunk, or a text occurrence inside one
)

// Response is a search's answer: what `viberag search --json` prints and
// what the MCP server returns.
type Response struct {
	// Query is the query as sent; task text (QueryUsed set) is echoed cut
	// to its first 200 bytes, with its length.
	Query string `json:"query"`
	// QueryUsed is what was searched when the query was long task text
	// (a bug report, a stack trace, a feature request) reduced to the
	// terms that retrieve (ReduceTaskText); empty when the query was
	// searched as it stands.
	QueryUsed string `json:"query_used,omitempty"`
	// Intent is the intent that ran; Routing says which rule of Route
	// chose it when the request asked for auto.
	Intent  Intent `json:"intent"`
	Routing string `json:"routing,omitempty"`
	// Hits are the results in ranked order across kinds: the list to read
	// first.
	Hits []Hit `json:"hits"`
	// Groups index Hits by kind (positions in Hits, in ranked order).
	Groups Groups `json:"groups"`
	// Total counts what was found before Limit: candidate files for the
	// ranked intents (definition, concept), occurrences for exact_text,
	// reference lines for usage, candidate blocks for similar_code; -1
	// when not counted.
	Total int `json:"total"`
	// TotalAtLeast says Total is a lower bound: a search over many
	// repositories of a shared store counted each one's exact text only
	// as far as its first blocks (the notes say which, and how to count
	// all); never set on a search of one index.
	TotalAtLeast bool `json:"total_at_least,omitempty"`
	// Truncated is set when something found was left out: occurrences or
	// reference lines beyond Limit (exact_text, usage; the notes say how
	// to get them), or snippets and hits cut by the size budget. A ranked
	// search returning its top Limit is not truncated. Dropped counts the
	// hits the budget removed.
	Truncated bool `json:"truncated"`
	Dropped   int  `json:"dropped,omitempty"`
	// NextCursor continues an exhaustive exact_text search.
	NextCursor string `json:"next_cursor,omitempty"`
	// FiltersApplied lists the scope filters in effect.
	FiltersApplied []string `json:"filters_applied,omitempty"`
	// Notes explain fallbacks and anything else the caller should know
	// (a typo corrected, a channel with no facts for a language).
	Notes []string `json:"notes,omitempty"`
	// Vectors says whether vector channels took part: "on (model)", or
	// "off: why, and how to turn them on". Empty for intents that use no
	// vectors (exact_text, usage).
	Vectors string `json:"vectors,omitempty"`
	// SuggestedNextActions name follow-up calls with their arguments.
	SuggestedNextActions []Action `json:"suggested_next_actions,omitempty"`
	TookMS               float64  `json:"took_ms"`

	text string // what the intent searched for: the query, unquoted, or the name asked about

	// fill makes the snippets of hits (Planner.Rank's drafts; nil when
	// the intent made them already).
	fill func(ctx context.Context, hits []Hit) error
}

// Groups holds, per kind, the positions of its hits in Response.Hits.
type Groups struct {
	Definitions []int `json:"definitions"`
	Usages      []int `json:"usages"`
	Files       []int `json:"files"`
	Blocks      []int `json:"blocks"`
}

// Hit is one result: a file, a symbol, a block of code or a line.
type Hit struct {
	// ID names the hit for follow-up calls: a symbol's sid ("s…"), a
	// chunk's cid ("c…"), "f:"+path for a file, "r:"+path+":"+line for a
	// usage or a text occurrence.
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Repo names the hit's repository when a server searches several (a
	// shared store); ID then ends in "@" and the repository.
	Repo      string  `json:"repo,omitempty"`
	Path      string  `json:"path"`
	StartLine int     `json:"start_line"`
	EndLine   int     `json:"end_line"`
	Title     string  `json:"title"`
	Snippet   string  `json:"snippet,omitempty"`
	Score     float64 `json:"score"`
	// Lines lists the lines of the matches inside the hit (exact_text
	// occurrences, usage lines).
	Lines []int `json:"lines,omitempty"`
	// SnippetTruncated is set when the snippet was shortened by the size
	// budget.
	SnippetTruncated bool `json:"snippet_truncated,omitempty"`
	Why              *Why `json:"why,omitempty"`
}

// Why explains a hit's place: the channels that found it (with its rank
// in each), the priors applied to its score, and how its file's other
// hits were treated.
type Why struct {
	Channels []ChannelRank `json:"channels"`
	Priors   []Prior       `json:"priors,omitempty"`
	Note     string        `json:"note,omitempty"`
}

// ChannelRank is a hit's file's (or the hit's own) rank in one channel.
type ChannelRank struct {
	Channel string  `json:"channel"`
	Rank    int     `json:"rank"` // 1-based
	Weight  float64 `json:"weight"`
	// Similarity is the cosine between the query's vector and the hit's,
	// for vector channels (vec_code, vec_summary, vec_file).
	Similarity float64 `json:"similarity,omitempty"`
}

// Prior is a deterministic adjustment of a score, with its factor (<1
// demotes, >1 promotes).
type Prior struct {
	Name   string  `json:"name"`
	Factor float64 `json:"factor"`
}

// Action is a suggested follow-up: what to do next and with which
// arguments. The planner names the step (Step*) and its arguments as its
// own requests do; it knows no caller's vocabulary. A caller that serves
// answers presents them in its own (Options.Present: package mcp names
// its tools and their arguments), so Tool then holds the caller's name.
type Action struct {
	Tool   string         `json:"tool"`
	Args   map[string]any `json:"args"`
	Reason string         `json:"reason,omitempty"`
}

// The steps an Action suggests, with the arguments the planner gives.
const (
	// StepSearch: search again (query, intent, exhaustive, cursor).
	StepSearch = "search"
	// StepSymbol: a symbol's details (id).
	StepSymbol = "symbol"
	// StepReferences: where a symbol is used (id).
	StepReferences = "references"
	// StepSurrounding: the code around a line (path, line).
	StepSurrounding = "surrounding"
	// StepReadLines: lines of a file (path, start_line, end_line).
	StepReadLines = "read_lines"
)

// SymbolDetails is everything the index holds about one symbol, and its
// code.
type SymbolDetails struct {
	ID        string `json:"id"` // sid
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Qualname  string `json:"qualname"`
	Path      string `json:"path"`
	Language  string `json:"language"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	StartByte int    `json:"start_byte"`
	EndByte   int    `json:"end_byte"`
	Signature string `json:"signature"`
	// Doc is the symbol's docstring or doc comment, left out when Code
	// holds it (DocInCode), so it is sent once.
	Doc        string   `json:"doc,omitempty"`
	DocInCode  bool     `json:"doc_in_code,omitempty"`
	Exported   bool     `json:"exported"`
	Decorators []string `json:"decorators,omitempty"`
	Parent     *SymRef  `json:"parent,omitempty"`
	Children   []SymRef `json:"children,omitempty"`
	Calls      []string `json:"calls,omitempty"`
	Strings    []string `json:"strings,omitempty"`
	// Identifiers used inside the symbol.
	Identifiers []string `json:"identifiers,omitempty"`
	Hash        string   `json:"hash"`
	// Code is the symbol's source lines, up to MaxCodeBytes;
	// CodeTruncated says when it was cut.
	Code          string `json:"code"`
	CodeTruncated bool   `json:"code_truncated"`
	// Others lists, briefly, further symbols an ambiguous name matched
	// as well (a name, not an id, was asked for).
	Others []SymRef `json:"others,omitempty"`
	// Note says how a name was resolved when it was not simply found:
	// the member is inherited (and from where), the qualifier names no
	// type, more symbols share the name than Others lists.
	Note                 string   `json:"note,omitempty"`
	SuggestedNextActions []Action `json:"suggested_next_actions,omitempty"`
}

// SymRef names a symbol briefly.
type SymRef struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Qualname  string `json:"qualname"`
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
}

// MaxCodeBytes caps SymbolDetails.Code.
const MaxCodeBytes = 16 << 10

// References lists the references to a symbol, grouped by file.
type References struct {
	// Name is the name looked up; Symbol is set when the request gave a
	// symbol id.
	Name   string  `json:"name"`
	Symbol *SymRef `json:"symbol,omitempty"`
	// Total counts the reference lines found; Truncated is set when Files
	// holds fewer (Limit): NextOffset is then the offset of the next page
	// and Remaining the lines after this one.
	Total      int  `json:"total"`
	Truncated  bool `json:"truncated"`
	Offset     int  `json:"offset,omitempty"`
	NextOffset int  `json:"next_offset,omitempty"`
	Remaining  int  `json:"remaining,omitempty"`
	// Confidence counts the lines found by confidence: resolved (tied to
	// the definition by what is written at the use), likely (the only
	// definition the name can mean there), name_only (another definition
	// may be meant). Lines come in that order.
	Confidence map[string]int `json:"confidence,omitempty"`
	// LeftOut counts the lines holding the name that the facts tie
	// elsewhere (another case, a parameter, another package's qualifier),
	// by reason; they are not listed.
	LeftOut []RefLeftOut `json:"left_out,omitempty"`
	// SharedBy is the number of definitions of the name when several
	// have it; Definitions lists the others with their resolved and
	// likely reference counts.
	SharedBy    int             `json:"shared_by,omitempty"`
	Definitions []RefDefinition `json:"definitions,omitempty"`
	// Repos counts the lines of each repository holding some, in an
	// answer over several repositories of a shared store.
	Repos []RefRepo `json:"repos,omitempty"`
	Files []RefFile `json:"files"`
	// FiltersApplied lists the scope filters in effect.
	FiltersApplied []string `json:"filters_applied,omitempty"`
	Notes          []string `json:"notes,omitempty"`
}

// RefFile is the references in one file.
type RefFile struct {
	Repo  string   `json:"repo,omitempty"` // as Hit.Repo
	Path  string   `json:"path"`
	Count int      `json:"count"`
	Refs  []RefHit `json:"refs"`
}

// RefHit is one line referring to the name.
type RefHit struct {
	Line   int      `json:"line"`
	Kinds  []string `json:"kinds"`            // call, ident, type, import; reexport (KindReexport)
	Target string   `json:"target,omitempty"` // receiver.method or imported name
	// Symbol is the qualname of the innermost enclosing symbol, "" at top
	// level.
	Symbol  string `json:"symbol,omitempty"`
	Snippet string `json:"snippet,omitempty"`
	// Confidence is resolved, likely or name_only (References.Confidence).
	Confidence string `json:"confidence,omitempty"`
}

// RefLeftOut counts the lines left out of a definition's references for
// one reason.
type RefLeftOut struct {
	Reason string `json:"reason"`
	Lines  int    `json:"lines"`
}

// RefRepo is one repository's part of References over several
// repositories: its lines are the references of its definition SymbolID
// (none when it defines no symbol of the name).
type RefRepo struct {
	Repo       string         `json:"repo"`
	SymbolID   string         `json:"symbol_id,omitempty"`
	Total      int            `json:"total"`
	Confidence map[string]int `json:"confidence,omitempty"`
}

// RefDefinition is another definition of a shared name, with the number
// of lines resolved or likely to be its references.
type RefDefinition struct {
	SymRef
	References int `json:"references"`
}
