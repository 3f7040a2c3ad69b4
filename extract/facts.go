package extract

// FactsVersion names the facts the readers produce for given bytes. Bump it
// with any change to a reader's output (a fixed symbol, a new ref kind, a
// different chunking): an index records the version its facts were made
// with, and a run on an index of another version re-reads every file
// instead of keeping the facts of files whose content did not change.
const FactsVersion = 4

// Parse states recorded for every file; status reports counts per language.
const (
	ParseClean    = "clean"    // the parser or definition scanner read the file as it is, without errors
	ParseRepaired = "repaired" // parsed after an offset-preserving repair, or with local errors only
	ParseFallback = "fallback" // parse failed, timed out or was degraded: line-window chunks
	ParseText     = "text"     // no parser for this language: line-window or section chunks
)

// Symbol kinds. Languages map their own constructs onto these names.
const (
	KindFunction  = "function"
	KindMethod    = "method"
	KindClass     = "class"
	KindStruct    = "struct"
	KindInterface = "interface"
	KindTrait     = "trait"
	KindEnum      = "enum"
	KindType      = "type"
	KindConst     = "const"
	KindVar       = "var"
	KindModule    = "module"
	KindImpl      = "impl"
	KindSection   = "section" // a Markdown heading section
	KindMacro     = "macro"
	KindField     = "field"
	KindProperty  = "property"
	KindNamespace = "namespace"
	KindTest      = "test"
)

// Ref kinds.
const (
	RefImport = "import" // Name is the module; Target the imported name, if any
	RefCall   = "call"   // Name is the callee; Target the receiver.method form, if any
	RefIdent  = "ident"  // an identifier use
	RefString = "string" // a string literal; Name is its content without quotes
	RefType   = "type"   // a type reference
)

// File is every fact read out of one indexed file.
type File struct {
	Path     string // repo-relative, '/'-separated
	Ext      string // lower-case extension with the dot, "" when none
	Language string // "go", "python", …, "markdown", "text"
	Size     int64
	Lines    int
	Hash     uint64 // xxhash64 of the content

	Imports []string // module names, in order of first appearance, deduplicated
	Exports []string // names of exported top-level symbols
	Doc     string   // top-of-file doc comment
	Summary string   // path, doc, exports and imports as one text surface

	ParseStatus  string // one of the Parse* constants
	ParseProblem string // why the file was repaired or fell back; "" when clean

	Symbols []Symbol
	Chunks  []Chunk
	Refs    []Ref
}

// Symbol is one definition.
type Symbol struct {
	Kind     string
	Name     string
	Qualname string // Class.method, pkg.Func, Outer.Inner
	Parent   int    // index of the enclosing symbol in File.Symbols, -1 at top level (a Go method's type may come after it)

	StartLine, EndLine int // 1-based, inclusive
	StartByte, EndByte int // byte offsets, end exclusive

	Signature  string // the declaration's first line, whitespace normalised
	Doc        string
	Exported   bool
	Decorators []string // decorator / annotation / attribute names

	Identifiers []string // distinct identifiers used inside the symbol, in order
	Calls       []string // distinct called names inside the symbol
	Strings     []string // distinct string literals inside the symbol
	Hash        uint64   // xxhash64 of the symbol's source bytes
}

// Chunk is a contiguous run of whole lines. Every line of a file belongs to
// at least one chunk.
type Chunk struct {
	StartLine, EndLine int // 1-based, inclusive
	StartByte, EndByte int
	Symbol             int    // index of the smallest symbol containing the chunk, -1 when none
	Header             string // "path › Class › method"
	Text               string // the chunk's source

	Identifiers []string
	Calls       []string
	Strings     []string
	Hash        uint64
}

// Ref is one reference: an import, a call, an identifier use, a string
// literal or a type reference.
type Ref struct {
	Kind               string
	Name               string // module, callee, identifier, literal or type name
	Target             string // imported name for imports; "receiver.method" for calls
	StartLine, EndLine int
	StartByte, EndByte int
}
