// Package vectors is the index's vector engine beneath SQL: the vector
// encodings (a float32 blob; an int8 quantisation with bounds on the
// error it costs), the vector file that lays an index's vectors out for a
// search to scan in place (its format, reader and writer, file.go), and
// the exact scan that finds a query's nearest vectors (Set) with its SIMD
// kernel.
//
// A search must never lose a hit to an approximation, so the scan is
// exact: the int8 pass only rules rows out, by rigorous bounds, and the
// rows it cannot rule out are scored in float32 (Dot), so the answer is
// the float32 scan's, ties broken by the lower row.
//
// The package holds no SQL: package tables reads and writes the vectors
// (and hands the file writer its rows), package query decides which of
// them a search scans and fuses the ranked lists with the text channels.
package vectors
