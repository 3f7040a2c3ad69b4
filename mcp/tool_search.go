package mcp

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/scope"
)

// SearchIn is codebase_search's input.
type SearchIn struct {
	Query     string       `json:"query" jsonschema:"what to look for: an identifier (Queue.retry), a phrase or question (how are failed tasks retried), an error message, a code snippet, or a whole bug report or stack trace (up to 64 KiB: long task text is reduced to its stack frames, error messages, identifiers, paths and content words, shown in query_used)"`
	Intent    string       `json:"intent,omitempty" jsonschema:"auto (default: chosen from the query's shape), definition (where a symbol is defined), usage (where it is used), concept (code about a topic), exact_text (every occurrence of literal text), similar_code (code like a snippet)"`
	Scope     *scope.Scope `json:"scope,omitempty" jsonschema:"optional filters; all given fields must match"`
	K         int          `json:"k,omitempty" jsonschema:"number of hits (default 10, 1 to 200)"`
	Explain   bool         `json:"explain,omitempty" jsonschema:"add to every hit why it ranked where it did (channels, priors)"`
	MaxTokens int          `json:"max_tokens,omitempty" jsonschema:"bound on the whole result's size in tokens (about 4 bytes each): explanations, snippets and extra suggestions are cut, then hits dropped, and the result says so; 0 = no bound"`
	// The exact_text options a result suggests (suggested_next_actions):
	// every argument an answer tells the agent to set is one it can set.
	Exhaustive bool   `json:"exhaustive,omitempty" jsonschema:"exact_text: every occurrence, k per page; continue with cursor"`
	Cursor     string `json:"cursor,omitempty" jsonschema:"exact_text with exhaustive: the next_cursor of the previous page"`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema:"exact_text: match ASCII letters in either case"`
}

// SearchOut is codebase_search's result: the planner's response (the
// JSON of `viberag search --json`) and the index state.
type SearchOut struct {
	*query.Response
	Freshness
}

// SymbolIn is get_symbol_details' input.
type SymbolIn struct {
	SymbolID     string `json:"symbol_id,omitempty" jsonschema:"symbol id (s + 16 hex digits) from codebase_search, find_references or get_surrounding_code; give this or symbol_name"`
	SymbolName   string `json:"symbol_name,omitempty" jsonschema:"a name when you have no id: Queue.retry answers exactly that member (an inherited one is answered with a note naming the class that defines it); a bare name (retry) answers the best definition and lists a few equally good ones in others; give this or symbol_id"`
	IncludeCode  *bool  `json:"include_code,omitempty" jsonschema:"include the symbol's source (default true)"`
	MaxCodeChars int    `json:"max_code_chars,omitempty" jsonschema:"cut the source after this many bytes, at a line end (default 8000, at most 16384)"`
}

// SymbolOut is get_symbol_details' result.
type SymbolOut struct {
	*query.SymbolDetails
	Freshness
}

// RefsIn is find_references' input.
type RefsIn struct {
	SymbolID   string       `json:"symbol_id,omitempty" jsonschema:"symbol id (s + 16 hex digits): the references to that symbol's name, matched by name as for symbol_name (references are not resolved to definitions, so same-named symbols share them; the answer names the symbol and says so); give this or symbol_name"`
	SymbolName string       `json:"symbol_name,omitempty" jsonschema:"a name (retry, Queue.retry): references to every symbol so named; give this or symbol_id"`
	Scope      *scope.Scope `json:"scope,omitempty" jsonschema:"optional filters on where the references are"`
	K          int          `json:"k,omitempty" jsonschema:"most reference lines to return (default 50, 1 to 1000)"`
}

// RefsOut is find_references' result.
type RefsOut struct {
	*query.References
	Freshness
}

// Limits of the search tools' arguments, checked here so that errors name
// the tool's own argument (k, not the planner's limit).
const (
	defRefs         = 50
	maxRefs         = 1000
	defCodeChars    = 8000
	maxSearchTokens = 200_000
	maxNameLen      = 512
)

func (s *Server) addSearchTools(ro *sdk.ToolAnnotations) {
	searchSchema := mustSchema[SearchIn]()
	intents := searchSchema.Properties["intent"]
	for _, i := range query.Intents() {
		intents.Enum = append(intents.Enum, string(i))
	}
	setRange(searchSchema.Properties["k"], 0, query.MaxLimit)
	describeScope(searchSchema.Properties["scope"])
	refsSchema := mustSchema[RefsIn]()
	setRange(refsSchema.Properties["k"], 0, maxRefs)
	describeScope(refsSchema.Properties["scope"])
	symSchema := mustSchema[SymbolIn]()
	setRange(symSchema.Properties["max_code_chars"], 0, query.MaxCodeBytes)

	sdk.AddTool(s.mcp, &sdk.Tool{Name: "codebase_search", Description: descSearch, Annotations: ro, InputSchema: searchSchema}, s.search)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "get_symbol_details", Description: descSymbol, Annotations: ro, InputSchema: symSchema}, s.symbolDetails)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "find_references", Description: descRefs, Annotations: ro, InputSchema: refsSchema}, s.findReferences)
}

func (s *Server) search(ctx context.Context, _ *sdk.CallToolRequest, in SearchIn) (*sdk.CallToolResult, *SearchOut, error) {
	q := strings.TrimSpace(in.Query)
	switch {
	case q == "":
		return nil, nil, argErr("query", "is empty; give an identifier, a phrase, an error message or a code snippet")
	case len(in.Query) > query.MaxQueryBytes:
		return nil, nil, argErr("query", "is %d bytes, over the limit of %d; search for a distinctive line or identifier from it instead", len(in.Query), query.MaxQueryBytes)
	case !utf8.ValidString(in.Query):
		return nil, nil, argErr("query", "is not valid UTF-8")
	}
	intent := query.Intent(in.Intent)
	if in.Intent == "" {
		intent = query.Auto
	}
	if !validIntent(intent) {
		return nil, nil, argErr("intent", "%q is not an intent; give one of %s", trunc(in.Intent), intentList())
	}
	if in.K < 0 || in.K > query.MaxLimit {
		return nil, nil, argErr("k", "%d is out of range; give 1 to %d (default %d)", in.K, query.MaxLimit, query.DefaultLimit)
	}
	if in.MaxTokens < 0 || in.MaxTokens > maxSearchTokens {
		return nil, nil, argErr("max_tokens", "%d is out of range; give 0 (no bound) to %d", in.MaxTokens, maxSearchTokens)
	}
	req := query.Request{Query: in.Query, Intent: intent, Limit: in.K, MaxTokens: in.MaxTokens, Explain: in.Explain,
		Exhaustive: in.Exhaustive, Cursor: in.Cursor, IgnoreCase: in.IgnoreCase}
	if in.Scope != nil {
		req.Scope = *in.Scope
	}
	p, err := s.engine(ctx)
	if err != nil {
		return nil, nil, err
	}
	resp, err := p.Search(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	fixActions(resp.SuggestedNextActions)
	return nil, &SearchOut{Response: resp, Freshness: s.freshness()}, nil
}

func (s *Server) symbolDetails(ctx context.Context, _ *sdk.CallToolRequest, in SymbolIn) (*sdk.CallToolResult, *SymbolOut, error) {
	if err := s.checkSymbolArgs(ctx, in.SymbolID, in.SymbolName); err != nil {
		return nil, nil, err
	}
	if in.MaxCodeChars < 0 || in.MaxCodeChars > query.MaxCodeBytes {
		return nil, nil, argErr("max_code_chars", "%d is out of range; give 1 to %d (default %d)", in.MaxCodeChars, query.MaxCodeBytes, defCodeChars)
	}
	include := in.IncludeCode == nil || *in.IncludeCode
	maxCode := cmp.Or(in.MaxCodeChars, defCodeChars)
	p, err := s.engine(ctx)
	if err != nil {
		return nil, nil, err
	}
	d, err := symbolDetails(ctx, p, cmp.Or(in.SymbolID, strings.TrimSpace(in.SymbolName)), include, maxCode)
	if err != nil {
		return nil, nil, err
	}
	fixActions(d.SuggestedNextActions)
	return nil, &SymbolOut{SymbolDetails: d, Freshness: s.freshness()}, nil
}

// checkSymbolArgs validates a symbol_id / symbol_name pair: exactly one,
// an id of the right form that the index holds, a sane name.
func (s *Server) checkSymbolArgs(ctx context.Context, id, name string) error {
	switch {
	case id == "" && strings.TrimSpace(name) == "":
		return argErr("symbol_id", "missing; give symbol_id (s + 16 hex digits, from codebase_search) or symbol_name")
	case id != "" && name != "":
		return argErr("symbol_name", "give symbol_id or symbol_name, not both")
	case id != "" && (!idPattern.MatchString(id) || id[0] != 's'):
		return argErr("symbol_id", "%q is not a symbol id; give s + 16 hex digits from codebase_search or find_references, or pass a name as symbol_name", trunc(id))
	case len(name) > maxNameLen:
		return argErr("symbol_name", "is %d bytes, over the limit of %d", len(name), maxNameLen)
	case name != "" && (!utf8.ValidString(name) || strings.ContainsAny(name, "\x00\n")):
		return argErr("symbol_name", "is not a name (NUL, newline or invalid UTF-8)")
	}
	if id != "" {
		ok, err := s.symbolExists(ctx, id)
		if err != nil {
			return err
		}
		if !ok {
			return argErr("symbol_id", "%s is not in the index (ids change when a symbol is renamed or moved); search again for a current id", id)
		}
	}
	return nil
}

func (s *Server) findReferences(ctx context.Context, _ *sdk.CallToolRequest, in RefsIn) (*sdk.CallToolResult, *RefsOut, error) {
	if err := s.checkSymbolArgs(ctx, in.SymbolID, in.SymbolName); err != nil {
		return nil, nil, err
	}
	if in.K < 0 || in.K > maxRefs {
		return nil, nil, argErr("k", "%d is out of range; give 1 to %d (default %d)", in.K, maxRefs, defRefs)
	}
	k := in.K
	if k == 0 {
		k = defRefs
	}
	var sc scope.Scope
	if in.Scope != nil {
		sc = *in.Scope
	}
	p, err := s.engine(ctx)
	if err != nil {
		return nil, nil, err
	}
	refs, err := references(ctx, p, in.SymbolID, strings.TrimSpace(in.SymbolName), sc, k)
	if err != nil {
		return nil, nil, err
	}
	return nil, &RefsOut{References: refs, Freshness: s.freshness()}, nil
}

// fixActions makes the planner's suggested follow-up calls callable as
// they stand: this server's tool names and argument names (the planner
// says "search" and "id" where the tools take codebase_search and
// symbol_id).
func fixActions(as []query.Action) {
	for i := range as {
		a := &as[i]
		switch a.Tool {
		case query.ToolSearch:
			a.Tool = "codebase_search"
		case query.ToolSymbolDetails, query.ToolFindReferences:
			if id, ok := a.Args["id"]; ok && a.Args["symbol_id"] == nil {
				a.Args["symbol_id"] = id
				delete(a.Args, "id")
			}
		}
	}
}

func validIntent(i query.Intent) bool {
	for _, k := range query.Intents() {
		if i == k {
			return true
		}
	}
	return false
}

func intentList() string {
	var b strings.Builder
	for n, i := range query.Intents() {
		if n > 0 {
			b.WriteString(", ")
		}
		b.WriteString(string(i))
	}
	return b.String()
}

// mustSchema infers T's input schema; the types are this package's own,
// so a failure is a programming error.
func mustSchema[T any]() *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema for %T: %v", *new(T), err))
	}
	return sc
}

func setRange(sc *jsonschema.Schema, lo, hi float64) {
	if sc != nil {
		sc.Minimum, sc.Maximum = &lo, &hi
	}
}

// describeScope documents scope.Scope's fields for the model: the scope
// package carries Go docs, not schema tags.
func describeScope(sc *jsonschema.Schema) {
	if sc == nil {
		return
	}
	desc := map[string]string{
		scope.FieldPathPrefix:      "keep paths starting with one of these (src/, pkg/api)",
		scope.FieldPathContains:    "keep paths containing one of these substrings",
		scope.FieldPathNotContains: "drop paths containing any of these substrings (test, _mock)",
		scope.FieldExtension:       "keep files with one of these extensions (.go, py)",
		scope.FieldSymbolKind:      "keep symbols of these kinds: " + strings.Join(scope.Kinds(), ", "),
		scope.FieldIsExported:      "keep exported (true) or unexported (false) symbols",
		scope.FieldDecorator:       "keep symbols with one of these decorators or annotations, without @ (app.route, Override)",
	}
	for name, p := range sc.Properties {
		if d, ok := desc[name]; ok {
			p.Description = d
		}
	}
	if k := sc.Properties[scope.FieldSymbolKind]; k != nil && k.Items != nil {
		for _, kind := range scope.Kinds() {
			k.Items.Enum = append(k.Items.Enum, kind)
		}
	}
}
