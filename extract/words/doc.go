// Package words cuts text into the words viberag searches by: the parts of
// identifiers, compared lower-cased. Package extract's SplitIdentifier (the words
// of the index and of a query) and package embed's static model (the
// words of a vector) both cut with it, so that an index, a query and a
// vector agree on what a word is. It depends on nothing but the standard
// library.
package words
