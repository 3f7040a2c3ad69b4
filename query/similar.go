package query

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"
	"github.com/viberag/viberag/tables/vectors"
)

// Similar code, until vectors exist, is token overlap: the snippet's
// identifiers (language keywords dropped) are split like the index's and
// searched in the chunks' identifier words; the candidates are then
// re-scored by the overlap of whole identifiers (Jaccard over the chunk's
// identifiers list) blended with their bm25, so a chunk using the same
// names in the same combination ranks first. With code vectors, their
// cosine joins at a share their calibrated weight decides (similarShare).

// maxSimilarTerms bounds the words of a snippet searched.
const maxSimilarTerms = 32

// similarVecShare is the code vectors' share of a similar-code score at
// the fixed weight (Tuning.WVecCode); a calibrated weight scales it
// (similarShare).
const similarVecShare = 0.5

// similarShare is the share of a similar-code score the code vectors'
// cosine takes when their channel runs at weight: similarVecShare at the
// fixed weight, in proportion below it, so that the calibration decides
// how far a model's cosine may reorder identifier overlap as it does for
// concept searches (0: lexical). It is at most 1.
func similarShare(weight, fixed float64) float64 {
	if weight <= 0 || fixed <= 0 {
		return 0
	}
	return min(1, similarVecShare*weight/fixed)
}

var identTokenRe = lazyregexp.New(`[A-Za-z_$][A-Za-z0-9_$]*`)

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
	sc := newScoped(req.Scope)
	sc.note(req.Scope, scope.Chunks)
	pool := unitPool{}
	type cand struct {
		u       *unit
		bm25    float64
		jacc    float64
		lexical float64
		vecRank int // 1-based rank in vec_code, 0 when not found there
		cosine  float64
		score   float64
	}
	var cands []*cand
	byUnit := map[*unit]*cand{}

	// Code vectors first: they need no identifiers, so a snippet of
	// operators and literals still finds its look-alikes.
	vr, err := p.vec.runVectors(ctx, text, []vecSpec{{"vec_code", vectors.SurfaceCode, p.tune.WVecCode}}, req, sc, false)
	if err != nil {
		return err
	}
	resp.Vectors = vr.status
	resp.Notes = append(resp.Notes, vr.notes...)
	share, vecWeight := 0.0, 0.0
	for _, ch := range vr.chans {
		vecWeight = ch.weight
		share = similarShare(ch.weight, p.tune.WVecCode)
		ch.intern(pool)
		if !req.Scope.IsZero() {
			sc.note(req.Scope, scope.Chunks)
		}
		for i, u := range ch.units {
			c := &cand{u: u, vecRank: i + 1, cosine: ch.scores[i]}
			byUnit[u] = c
			cands = append(cands, c)
		}
	}
	resp.FiltersApplied = sc.applied
	if len(words) == 0 && len(cands) == 0 {
		resp.Notes = append(resp.Notes, "the snippet has no identifiers to compare")
		return nil
	}
	if len(words) > maxSimilarTerms {
		words = words[:maxSimilarTerms]
	}
	maxBM := 0.0
	if len(words) > 0 {
		if maxBM, err = p.text.similarTokens(ctx, words, idents, sc, pool, func(u *unit, bm25, jacc float64) {
			c := byUnit[u]
			if c == nil {
				c = &cand{u: u}
				byUnit[u] = c
				cands = append(cands, c)
			}
			c.bm25, c.jacc = bm25, jacc
		}); err != nil {
			return err
		}
	}
	for _, c := range cands {
		c.lexical = c.jacc
		if maxBM > 0 {
			c.lexical = 0.5*c.jacc + 0.5*c.bm25/maxBM
		}
		// Both signals on 0..1: identifier overlap and cosine.
		c.score = (1-share)*c.lexical + share*max(c.cosine, 0)
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
	order := spreadFiles(len(cands), func(i int) (string, float64) { return cands[i].u.path, cands[i].score }, p.tune.SameFileDecay)
	spread := make([]*cand, len(cands))
	for i, k := range order {
		spread[i] = cands[k]
	}
	cands = spread
	resp.Total = len(cands)
	for i, c := range cands {
		if i == req.Limit {
			break
		}
		h := Hit{ID: c.u.id, Kind: KindBlock, Path: c.u.path, StartLine: c.u.start, EndLine: c.u.end, Title: c.u.title, Score: round(c.score)}
		if req.Explain {
			w := &Why{Channels: []ChannelRank{{Channel: "similar_code", Rank: i + 1, Weight: round(1 - share)}},
				Note: fmt.Sprintf("identifier overlap %.2f, bm25 %.2f of the best", c.jacc, c.bm25/max(maxBM, 1e-9))}
			if len(vr.chans) > 0 {
				w.Note += fmt.Sprintf("; the score is %.3g of their blend and %.3g of vec_code's cosine (vec_code's weight %.3g of the fixed %.3g)", 1-share, share, vecWeight, p.tune.WVecCode)
			}
			if c.vecRank > 0 {
				w.Channels = append(w.Channels, ChannelRank{Channel: "vec_code", Rank: c.vecRank, Weight: round(share), Similarity: math.Round(c.cosine*1000) / 1000})
			}
			h.Why = w
		}
		resp.Hits = append(resp.Hits, h)
	}
	return p.page.snippets(ctx, req, resp, pool, words)
}

// similarTokens finds chunks sharing the snippet's identifier words and
// reports each with its bm25 and the Jaccard overlap of whole
// identifiers. It returns the best bm25.
func (tc *textChannels) similarTokens(ctx context.Context, words []string, idents map[string]bool, sc *scoped, pool unitPool, found func(u *unit, bm25, jacc float64)) (float64, error) {
	terms := textTerms(words, false, false)
	kept, _, _, err := tc.pruneTerms(ctx, scope.Chunks, "", terms, tc.tune.PruneShare, tc.tune.PruneBudget)
	if err != nil {
		return 0, err
	}
	rows, err := tc.db.SimilarChunks(ctx, fulltext.In([]string{"content", "ident_parts", "strings"}, orQuery(kept)), sc.scope, 200)
	if err != nil {
		return 0, err
	}
	maxBM := 0.0
	for _, r := range rows {
		inter, union := 0, len(idents)
		for _, id := range r.Identifiers {
			if idents[strings.ToLower(id)] {
				inter++
			} else {
				union++
			}
		}
		jacc := 0.0
		if union > 0 {
			jacc = float64(inter) / float64(union)
		}
		maxBM = max(maxBM, r.Score)
		found(pool.intern(chunkUnit(r)), r.Score, jacc)
	}
	return maxBM, nil
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

// spreadFiles orders n ranked items as fusion orders units (fuse.go): a
// file's n-th item competes at its score times decay^n, so with a small
// decay every file's best item comes before any file's second (the top k
// should not spend its slots on one file). It returns the new
// order as indexes; equal scores keep their order.
func spreadFiles(n int, item func(i int) (path string, score float64), decay float64) []int {
	nth := map[string]int{}
	adj := make([]float64, n)
	order := make([]int, n)
	for i := range n {
		path, score := item(i)
		adj[i] = score * math.Pow(decay, float64(nth[path]))
		nth[path]++
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return adj[order[a]] > adj[order[b]] })
	return order
}
