package scan

import "github.com/viberag/viberag/extract/internal/source"

// Outline is what a scan read from one file. Package extract turns it into
// facts: it derives each symbol's and chunk's identifiers, calls, strings
// and hashes from Refs and the source, and chunks the file along Units.
type Outline struct {
	// Symbols in source order; a symbol's Parent precedes it.
	Symbols []Symbol
	// Refs in source order: imports, calls, identifier uses, string
	// literals and type references, each with its span.
	Refs []Ref
	// Doc is the top-of-file doc comment, if the file has one.
	Doc string
	// Units are the top-level syntactic items in source order, for chunk
	// boundaries; see Read for which carry Children.
	Units []Unit
	// Repair says what an offset-preserving repair blanked before the
	// scan (dead #if branches, macro lines), "" when the file was read as
	// it is.
	Repair string

	// symbols counts the symbols' bytes against the file's budget
	// (addSymbol).
	symbols source.SymbolBudget
}

// Symbol is one definition.
type Symbol struct {
	Kind     Kind
	Name     string
	Qualname string // Class.method, Outer.Inner
	Parent   int    // index of the enclosing symbol in Outline.Symbols, -1 at top level

	StartLine, EndLine int // 1-based, inclusive
	StartByte, EndByte int // byte offsets, end exclusive

	Signature  string // the declaration's head
	Doc        string
	Exported   bool
	Decorators []string // attribute names
}

// Ref is one reference.
type Ref struct {
	Kind               RefKind
	Name               string // module, callee, identifier, literal or type name
	Target             string // imported name for imports; "receiver.method" for calls
	StartLine, EndLine int
	StartByte, EndByte int
}

// Unit is a syntactic item: a line range and, for long items, its
// members.
type Unit struct {
	StartLine, EndLine int // 1-based, inclusive
	Children           []Unit
}

// Kind is the kind of a definition. Each names one of extract's symbol
// kinds.
type Kind uint8

// The kinds the scanners find.
const (
	KindFunction Kind = iota + 1
	KindMethod
	KindClass
	KindStruct
	KindInterface
	KindTrait
	KindEnum
	KindType
	KindConst
	KindVar
	KindModule
	KindImpl
	KindSection // a Markdown heading section
	KindMacro
	KindField
	KindProperty
	KindNamespace
)

// RefKind is the kind of a reference.
type RefKind uint8

// The references the scanners find.
const (
	RefImport RefKind = iota + 1 // Name is the module; Target the imported name, if any
	RefCall                      // Name is the callee; Target the receiver.method form, if any
	RefIdent                     // an identifier use
	RefString                    // a string literal; Name is its content without quotes
	RefType                      // a type reference
)
