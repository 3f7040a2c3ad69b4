// Package lazyregexp holds regular expressions that compile on their first
// use rather than when the program starts.
//
// Every package-level regexp.MustCompile of every package a binary links
// runs before main, whichever command runs: the reference rules and the
// query planner hold some 150 of them, most of a process's start-up, paid
// by a one-line `viberag refs` or a cold index of a small tree alike. A
// Regexp here is declared at package level as one from regexp would be and
// compiles on its first match, once, safely from many goroutines.
//
// The expressions are still checked before they ship: scripts/shape's tests
// compile every constant expression given to New in the module.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use. Its methods are
// those of regexp.Regexp that the module uses; Re gives the rest.
type Regexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// New returns the expression src, to be compiled on first use. Like
// regexp.MustCompile, the first use panics when src is not a valid
// expression.
func New(src string) *Regexp { return &Regexp{src: src} }

// Re returns the compiled expression, compiling it on the first call.
func (r *Regexp) Re() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.src) })
	return r.re
}

// MatchString reports whether s contains a match.
func (r *Regexp) MatchString(s string) bool { return r.Re().MatchString(s) }

// FindString returns the text of the leftmost match in s.
func (r *Regexp) FindString(s string) string { return r.Re().FindString(s) }

// FindStringIndex returns the location of the leftmost match in s.
func (r *Regexp) FindStringIndex(s string) []int { return r.Re().FindStringIndex(s) }

// FindStringSubmatch returns the leftmost match in s and its submatches.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Re().FindStringSubmatch(s) }

// FindStringSubmatchIndex returns the locations of the leftmost match in s
// and of its submatches.
func (r *Regexp) FindStringSubmatchIndex(s string) []int { return r.Re().FindStringSubmatchIndex(s) }

// FindAllString returns up to n successive matches in s (all when n < 0).
func (r *Regexp) FindAllString(s string, n int) []string { return r.Re().FindAllString(s, n) }

// FindAllStringIndex returns the locations of up to n successive matches
// in s (all when n < 0).
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int { return r.Re().FindAllStringIndex(s, n) }

// FindAllStringSubmatch returns up to n successive matches in s with their
// submatches (all when n < 0).
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Re().FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex returns the locations of up to n successive
// matches in s and of their submatches (all when n < 0).
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Re().FindAllStringSubmatchIndex(s, n)
}

// FindAllSubmatchIndex returns the locations of up to n successive
// matches in b and of their submatches (all when n < 0).
func (r *Regexp) FindAllSubmatchIndex(b []byte, n int) [][]int {
	return r.Re().FindAllSubmatchIndex(b, n)
}

// ReplaceAllString returns s with each match replaced by repl, in which $
// names a submatch.
func (r *Regexp) ReplaceAllString(s, repl string) string { return r.Re().ReplaceAllString(s, repl) }

// ReplaceAllStringFunc returns s with each match replaced by what repl
// returns for it.
func (r *Regexp) ReplaceAllStringFunc(s string, repl func(string) string) string {
	return r.Re().ReplaceAllStringFunc(s, repl)
}

// Split slices s into the substrings between matches, at most n of them
// (all when n < 0).
func (r *Regexp) Split(s string, n int) []string { return r.Re().Split(s, n) }
