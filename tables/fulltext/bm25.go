package fulltext

// BM25 as SQLite's FTS5 defines its bm25() (sqlite.org/fts5.html,
// "The bm25() function"), negated so that higher is better: for each
// phrase of the query,
//
//	idf · f · (k1 + 1) / (f + k1 · (1 - b + b · dl / avgdl))
//
// summed, where f is the phrase's instances in the row weighted by the
// column each is in, dl the row's tokens in all columns, avgdl the
// table's mean and idf = ln((N - n + 0.5) / (n + 0.5)) for a phrase found
// in n of the table's N rows, or 1e-6 where that is not positive. The
// arithmetic runs in that order, with libm's logarithm, so that scores
// equal FTS5's bit for bit.

// The constants of FTS5's bm25.
const (
	k1 = 1.2
	b  = 0.75
)

// Stats are what BM25 needs of a whole table (one repository's rows of
// it): the number of rows and the number of tokens in all their columns.
type Stats struct {
	Rows   int64
	Tokens int64
}

// IDF is the inverse document frequency of a phrase found in hits of the
// table's rows.
func (s Stats) IDF(hits int64) float64 {
	idf := ln((float64(s.Rows) - float64(hits) + 0.5) / (float64(hits) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// BM25 scores one row: freq are its phrases' weighted instances, idf their
// IDFs, dl its tokens in all columns and avgdl the table's mean.
func BM25(freq, idf []float64, dl int, avgdl float64) float64 {
	score := 0.0
	for i, f := range freq {
		score += idf[i] * ((f * (k1 + 1)) / (f + k1*(1-b+b*float64(dl)/avgdl)))
	}
	return score
}

// AvgDL is the mean tokens per row.
func (s Stats) AvgDL() float64 { return float64(s.Tokens) / float64(s.Rows) }
