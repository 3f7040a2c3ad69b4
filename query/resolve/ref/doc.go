// Package ref holds what the judgement of reference lines speaks of, below
// the resolver (package resolve) and the language rules: the index's
// files, symbols and lines holding a name; a definition of the name with
// the facts read from its symbol; the verdicts the facts at a use give
// about a definition and why a line is left out of its references; and
// the key of what the rules read once per line of a lookup.
package ref
