// Package imports reads what a file's import statements bind, from its
// text, per language (Go, Python, TypeScript and JavaScript): the names
// bound to whole modules, the names imported or re-exported from one,
// star imports and a TypeScript file's default export; and which indexed
// files a module names. The resolver (package resolve) and the language
// rules under it read a file's imports through it.
package imports
