package mcp

import (
	"context"
	"fmt"
	"strings"

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

// SearchOut is codebase_search's result (and what `viberag search
// --json` prints): the planner's response and the index state.
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
	SymbolID   string       `json:"symbol_id,omitempty" jsonschema:"symbol id (s + 16 hex digits): that definition's references, each marked resolved, likely or name_only (resolved first); lines the facts tie to another definition are left out and counted in left_out; give this or symbol_name"`
	SymbolName string       `json:"symbol_name,omitempty" jsonschema:"a name (retry, Queue.retry): a qualified name is one definition; a bare name several definitions share answers for the most used one and lists the others with their reference counts; give this or symbol_id"`
	Scope      *scope.Scope `json:"scope,omitempty" jsonschema:"optional filters on where the references are"`
	K          int          `json:"k,omitempty" jsonschema:"most reference lines to return (default 50, 1 to 1000)"`
	Offset     int          `json:"offset,omitempty" jsonschema:"skip this many lines: give the answer's next_offset for the next page"`
}

// RefsOut is find_references' result.
type RefsOut struct {
	*query.References
	Freshness
}

func (s *Server) addSearchTools(ro *sdk.ToolAnnotations) {
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "codebase_search", Description: descSearch, Annotations: ro, InputSchema: searchSchema()}, s.search)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "get_symbol_details", Description: descSymbol, Annotations: ro, InputSchema: symbolSchema[SymbolIn]()}, s.symbolDetails)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "find_references", Description: descRefs, Annotations: ro, InputSchema: refsSchema()}, s.findReferences)
}

// searchSchema, refsSchema and symbolSchema are the input schemas of
// codebase_search, find_references and get_symbol_details (whose input
// is T), for both servers: the enums and ranges their checks (args.go)
// enforce, and descriptions of the scope's fields.
func searchSchema() *jsonschema.Schema {
	sc := mustSchema[SearchIn]()
	intents := sc.Properties["intent"]
	for _, i := range query.Intents() {
		intents.Enum = append(intents.Enum, string(i))
	}
	setRange(sc.Properties["k"], 0, query.MaxLimit)
	describeScope(sc.Properties["scope"])
	return sc
}

func refsSchema() *jsonschema.Schema {
	sc := mustSchema[RefsIn]()
	setRange(sc.Properties["k"], 0, maxRefs)
	describeScope(sc.Properties["scope"])
	return sc
}

func symbolSchema[T any]() *jsonschema.Schema {
	sc := mustSchema[T]()
	setRange(sc.Properties["max_code_chars"], 0, query.MaxCodeBytes)
	return sc
}

// answers makes this server's answers.
func (s *Server) answers() *Answers {
	return &Answers{Planner: s.idx.planner, DB: s.idx.db, Live: s.live, Root: s.root}
}

func (s *Server) search(ctx context.Context, _ *sdk.CallToolRequest, in SearchIn) (*sdk.CallToolResult, *SearchOut, error) {
	out, err := s.answers().Search(ctx, in)
	return nil, out, err
}

func (s *Server) symbolDetails(ctx context.Context, _ *sdk.CallToolRequest, in SymbolIn) (*sdk.CallToolResult, *SymbolOut, error) {
	out, err := s.answers().Symbol(ctx, in)
	return nil, out, err
}

func (s *Server) findReferences(ctx context.Context, _ *sdk.CallToolRequest, in RefsIn) (*sdk.CallToolResult, *RefsOut, error) {
	out, err := s.answers().References(ctx, in)
	return nil, out, err
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
