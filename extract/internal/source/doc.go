// Package source holds the small readers of source text that package
// extract's tree readers and package scan share: comment markers, literal
// quotes, a declaration's first line, white space, lines and word bytes.
// It is internal: what it exports is shared code, not API.
package source
