package query

import (
	"context"
	"regexp"
	"sort"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/scope"
)

// Similar code, until vectors exist, is token overlap: the snippet's
// identifiers (language keywords dropped) are split like the index's and
// searched in the chunks' identifier words; the candidates are then
// re-scored by the overlap of whole identifiers (Jaccard over the chunk's
// identifiers list) blended with their bm25, so a chunk using the same
// names in the same combination ranks first.
const (
	similarSQL = `SELECT c.id, c.cid, c.file_id, c.path, c.start_line, c.end_line, c.header, c.identifiers, -bm25(chunks_fts, 0, 1, 1, 0.5) AS sc
FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
WHERE chunks_fts MATCH ?%s
ORDER BY sc DESC, c.path, c.start_line LIMIT 200`
	maxSimilarTerms = 32
)

var identTokenRe = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)

func (p *Planner) similar(ctx context.Context, req Request, text string, resp *Response) error {
	idents := map[string]bool{}
	var words []string
	seenWord := map[string]bool{}
	for _, tok := range identTokenRe.FindAllString(text, -1) {
		if codeKeywords[tok] || len(tok) < 2 {
			continue
		}
		idents[strings.ToLower(tok)] = true
		for _, w := range extract.SplitIdentifier(tok) {
			if len(w) >= 2 && !seenWord[w] && !isStopWord(w) {
				seenWord[w] = true
				words = append(words, w)
			}
		}
	}
	if len(words) == 0 {
		resp.Notes = append(resp.Notes, "the snippet has no identifiers to compare")
		return nil
	}
	if len(words) > maxSimilarTerms {
		words = words[:maxSimilarTerms]
	}
	terms := ftsTerms(words, false, false)
	kept, _, err := p.pruneTerms(ctx, chunksFTS, "", terms, p.tune.PruneShare, p.tune.PruneBudget)
	if err != nil {
		return err
	}
	sc := newScoped(req.Scope)
	sc.note(req.Scope, scope.Chunks)
	resp.FiltersApplied = sc.applied
	rows, err := p.query(ctx, sprintf(similarSQL, sc.chunk.sql), append([]any{"{content ident_parts strings} : (" + orExpr(kept) + ")"}, sc.chunk.args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	type cand struct {
		u     *unit
		bm25  float64
		jacc  float64
		score float64
	}
	var cands []*cand
	maxBM := 0.0
	pool := unitPool{}
	for rows.Next() {
		u := &unit{kind: KindBlock}
		var header, ids string
		var sc float64
		if err := rows.Scan(&u.rowid, &u.id, &u.fileID, &u.path, &u.start, &u.end, &header, &ids, &sc); err != nil {
			return err
		}
		u.title = blockTitle(header, u.path)
		inter, union := 0, len(idents)
		for _, id := range strings.Split(ids, "\n") {
			if id == "" {
				continue
			}
			if idents[strings.ToLower(id)] {
				inter++
			} else {
				union++
			}
		}
		c := &cand{u: pool.intern(u), bm25: sc}
		if union > 0 {
			c.jacc = float64(inter) / float64(union)
		}
		maxBM = max(maxBM, sc)
		cands = append(cands, c)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	for _, c := range cands {
		c.score = c.jacc
		if maxBM > 0 {
			c.score = 0.5*c.jacc + 0.5*c.bm25/maxBM
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].score != cands[j].score {
			return cands[i].score > cands[j].score
		}
		if cands[i].u.path != cands[j].u.path {
			return cands[i].u.path < cands[j].u.path
		}
		return cands[i].u.start < cands[j].u.start
	})
	resp.Total = len(cands)
	for i, c := range cands {
		if i == req.Limit {
			break
		}
		h := Hit{ID: c.u.id, Kind: KindBlock, Path: c.u.path, StartLine: c.u.start, EndLine: c.u.end, Title: c.u.title, Score: round(c.score)}
		if req.Explain {
			h.Why = &Why{Channels: []ChannelRank{{Channel: "similar_code", Rank: i + 1, Weight: 1}},
				Note: sprintf("identifier overlap %.2f, bm25 %.2f of the best", c.jacc, c.bm25/max(maxBM, 1e-9))}
		}
		resp.Hits = append(resp.Hits, h)
	}
	return p.fillSnippets(ctx, resp.Hits, pool, words)
}

// codeKeywords are the reserved words of the indexed languages that carry
// no meaning of their own in a snippet.
var codeKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`if else elif for while do return func function def fn fun class struct
		interface trait impl enum type var let const val static public private protected final abstract
		import from package module use using namespace include require new this self super nil null None
		true false True False void int string bool float double char long short byte in is not and or
		try catch except finally raise throw throws async await yield break continue switch case default
		match end begin then local lambda pass with as where mut pub crate extern go defer chan map select
		range struct typedef sizeof unsigned signed auto export extends implements override`) {
		m[w] = true
	}
	return m
}()
