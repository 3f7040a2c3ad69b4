// Package extract turns the files of a repository into facts.
//
// It owns two jobs and nothing else: choosing which files to index (Select,
// with every skipped file counted by reason) and reading facts out of one
// file (Extract): symbols, chunks, refs and the file's own summary. Facts are
// things a parser can see — names, kinds, line spans, signatures, doc
// comments, identifiers, called names, string literals, imports — never
// interpretations. The package never touches storage: the tables package
// writes what it returns.
package extract
