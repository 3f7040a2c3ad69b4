package ref

// Verdict is what the facts at a use say about one definition.
type Verdict int

const (
	Open     Verdict = iota // nothing ties or contradicts
	Resolved                // tied to the definition
	Contra                  // tied elsewhere, or not a use of it
	Self                    // the definition's own name: not a reference, not counted
	Related                 // may reach the definition through an interface, whatever else it reaches
	Unlikely                // not the definition's where no fact decides (TypeScript's narrowing); the others stay name only
)

// Why a line is left out of a definition's references.
const (
	WhyCase     = "the name in another case"
	WhyLocal    = "a parameter or local of the same name"
	WhyQual     = "a qualifier naming another package, module or type"
	WhyMember   = "a member of another value (x.name) or a bare use of a member's name"
	WhyScope    = "a bare name not in scope (not defined in the file or package, not imported)"
	WhyDecl     = "the declaration of another symbol"
	WhyOther    = "resolved to another definition of the name"
	WhyNoImport = "imported from another module"
	WhyForeign  = "a member of a value of another package's type"
	WhyMoved    = "the name is on a later line of the same statement, listed there"
	// WhyUnexported: a module's import or re-export names only what the
	// module exports; a declaration of the name its file keeps to itself
	// is another symbol than the one imported.
	WhyUnexported = "a declaration its module does not export, where an import names the module's export"
	// WhyIndexedKey: a heuristic's reason (TypeScript's), as the
	// narrowing's are.
	WhyIndexedKey = "an indexed access type's key whose indexed type the text does not state"
)
