// Package lex reads one source line as written: the whole-word uses of a
// name on it and what is written around each (the qualifier before it, a
// declaring keyword, a key's colon, a call's parenthesis), the words and
// parameters of a declaration, comments and quoted strings, and the text
// of a declaration's parameter list across lines. It only reads text, so
// it serves every language that writes qualifiers with '.', '::' or '->';
// the resolver (package resolve) and the language rules under it tie what
// it reads to definitions.
package lex
