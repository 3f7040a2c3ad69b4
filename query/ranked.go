package query

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables/fulltext"
)

// maxEmbedded bounds the identifiers of a sentence looked up as names.
const maxEmbedded = 3

// ranked runs the ranked intents: definition (defs) and concept, alone or
// fused.
func (p *Planner) ranked(ctx context.Context, req Request, text string, resp *Response, defs, concept bool) error {
	files, vocab, filesKey, err := p.files.getKey(ctx, p.db)
	if err != nil {
		return err
	}
	sc := newScoped(req.Scope)
	// Module entries lend their score to the module's files for prose
	// only, as doc comments are searched: a name's definitions and a task
	// text's frames should lead. A question about how something works
	// takes the module evidence's weight, and its own vector weights.
	prose := concept && !defs && resp.QueryUsed == ""
	question := prose && moduleQuestion.MatchString(text)
	vectors := p.vec.startVectors(ctx, text, req, sc, defs, concept, question)
	pool := unitPool{}
	var chans []*channel
	shape, task := taskShapeOf(req.Query, resp.QueryUsed != "")
	t := analyse(text)
	if task && p.tune.TaskVerbDrop && resp.QueryUsed == "" && !defs && shape.words != "" {
		t = analyse(shape.words)
	}

	if defs {
		cands, notes, err := p.symbols.definitions(ctx, text, sc, pool, files, true)
		if err != nil {
			return err
		}
		sc.note(req.Scope, scope.Symbols)
		resp.Notes = append(resp.Notes, notes...)
		chans = append(chans, defChannel("definition", p.tune.WDef, cands))
		if len(cands) == 0 {
			q := parseDefQuery(text)
			imps, err := p.importers(ctx, q, sc, pool, files)
			if err != nil {
				return err
			}
			if len(imps) > 0 {
				ch := &channel{name: "imports", weight: p.tune.WDef}
				for i, u := range imps {
					ch.add(u, 1/float64(i+1))
				}
				chans = append(chans, ch)
				resp.Notes = append(resp.Notes, fmt.Sprintf("no symbol named %q is indexed, but %d line(s) import it by that name: its definition is outside the indexed files; the import lines come first", q.name, len(imps)))
			} else {
				resp.Notes = append(resp.Notes, "no symbol matches the name; results are from the text channels")
			}
		}
	} else if p.tune.WEmbedded > 0 && len(t.idents) > 0 {
		// Identifiers written inside a sentence ("how does res.send set
		// the ETag") are names the agent means literally: their
		// definitions join the fusion, by exact name only.
		var all []defCand
		for i, id := range t.idents {
			if i == maxEmbedded {
				break
			}
			cands, _, err := p.symbols.definitions(ctx, id, sc, pool, files, false)
			if err != nil {
				return err
			}
			all = append(all, cands...)
		}
		if len(all) > 0 {
			sc.note(req.Scope, scope.Symbols)
			chans = append(chans, defChannel("embedded_names", p.tune.WEmbedded, all))
		}
	}

	var searched []textTerm // the blocks channel's terms
	if concept {
		if terms := textTerms(t.words, p.tune.Prefix, p.tune.PrefixAll); len(terms) > 0 {
			kept, dropped, df, err := p.text.pruneTerms(ctx, scope.Chunks, "", terms, p.tune.PruneShare, p.tune.PruneBudget)
			if err != nil {
				return err
			}
			searched = kept
			if len(dropped) > 0 {
				words := make([]string, len(dropped))
				for i, d := range dropped {
					words[i] = d.text
				}
				resp.Notes = append(resp.Notes, "not searched in blocks, being the query's most common words there (bm25 gives them little or no weight; paths and names still use them): "+strings.Join(words, ", "))
			}
			blockQuery := orQuery(kept)
			if task {
				blockQuery = headQuery(kept, headOf(req.Query), p.tune.HeadBlocks)
			}
			blocks, err := p.text.chunkChannel(ctx, blockQuery, sc, pool, p.tune.ChunkCands)
			if err != nil {
				return err
			}
			// The symbols channel searches the rarest terms by their chunk
			// counts, within Tuning.SymbolBudget: a long text's common
			// words cost it the most (their postings in every column are
			// read to find the doc's) and weigh the least.
			symQuery := orQuery(rarest(terms, df, p.tune.SymbolTerms, p.tune.SymbolBudget))
			if p.tune.SymbolColumns != "" {
				symQuery = fulltext.In(strings.Fields(p.tune.SymbolColumns), symQuery)
			}
			// Doc comments are searched for prose only: for a bare name
			// the definitions channel finds its definitions (docs that
			// mention it are noise), and a task text's reduction is names
			// and paths, whose mentions in docs lead away from the frames.
			docs := p.tune.WSymbol > 0 && !defs && resp.QueryUsed == ""
			syms := &channel{name: "symbols"}
			if docs {
				if syms, err = p.text.symbolChannel(ctx, symQuery, sc, pool, p.tune.SymbolCands); err != nil {
					return err
				}
				if task {
					// A doc comment says what code does; a change request
					// says what to change, in other words.
					syms.weight = p.tune.TaskWSymbol
				}
			}
			keptFiles, _, _, err := p.text.pruneTerms(ctx, scope.Files, filesKey, terms, p.tune.PruneShare, p.tune.PruneBudget)
			if err != nil {
				return err
			}
			fl, err := p.text.fileChannel(ctx, orQuery(keptFiles), sc, pool, p.tune.FileCands)
			if err != nil {
				return err
			}
			chans = append(chans, blocks, chunkSumChannel(blocks, p.tune.WChunkSum, pool, files), syms, fl)
			wDocMatch := p.tune.WDocMatch
			if task {
				wDocMatch = p.tune.TaskWDocMatch
			}
			// A question is asked about the code, in the asker's words; a
			// doc comment is a statement.
			if docs && wDocMatch > 0 && !questionRe.MatchString(text) {
				dm, err := p.docMatchChannel(ctx, wDocMatch, p.tune.DocMatchTop, p.tune.DocMatchWords, p.tune.DocMatchMin, syms, t.words)
				if err != nil {
					return err
				}
				chans = append(chans, dm)
			}
			sc.note(req.Scope, scope.Chunks)
			if docs {
				sc.note(req.Scope, scope.Symbols)
			}
			sc.note(req.Scope, scope.Files)
		} else if !defs {
			resp.Notes = append(resp.Notes, "the query has no searchable words (only stop words or punctuation)")
		}
	}
	pm := newPathMatcher(pathWords(t.words), vocab, p.tune.PathDirShare, p.tune.PathPrecision)
	if concept && p.tune.WPath > 0 {
		ch, err := p.pathChannel(ctx, req, sc, pm, files, pool)
		if err != nil {
			return err
		}
		chans = append(chans, ch)
	}
	if w := p.tune.WModule; prose {
		if p.tune.WModuleQuestion > 0 && question {
			w = p.tune.WModuleQuestion
		}
		if w > 0 {
			chans = append(chans, moduleChannel(w, p.tune.ModuleSources, p.tune.ModuleTop, chans, files, p.files.dirIndex(), pool))
		}
	}
	vchans, err := vectors(pool, resp)
	if err != nil {
		return err
	}
	if !defs {
		chans = append(chans, vchans...)
	}
	resp.FiltersApplied = sc.applied

	source := sourcePriors(task, t.natural, defs, text)
	var named *namedFiles
	if task && !defs {
		// A change's text names the files it is made in, and writes
		// the names it changes; a merge's line names no file and
		// writes no name.
		said := mergeRe.ReplaceAllString(text, " ")
		named = readNamedFiles(said, shape.scope)
		if named == nil {
			named = &namedFiles{} // the task's priors apply all the same
		}
		named.types = namesTypes(said)
		// ... and, when it writes none the index holds, is made where its
		// rarest words are written.
		// Whether the text writes a name the index holds is known from
		// the names' counts, before their files are read: all three
		// lookups are one read.
		var quotedSet, rareSet, strSet *shareSet
		if p.tune.QuotedBoost > 0 {
			if quotedSet, err = p.text.quotedNames(ctx, said); err != nil {
				return err
			}
		}
		if p.tune.RareBoost > 0 && concept && quotedSet == nil {
			if rareSet, err = p.text.rareWords(ctx, t.words); err != nil {
				return err
			}
		}
		// ... and, names or not, where its words are said to its users.
		if p.tune.StringBoost > 0 && concept {
			if strSet, err = p.text.stringWords(ctx, t.words, p.tune.StringBlocks); err != nil {
				return err
			}
		}
		// ... and where its words are written side by side.
		var phraseSet *shareSet
		if p.tune.PhraseBoost > 0 && concept {
			if phraseSet, err = p.text.phraseWords(ctx, said); err != nil {
				return err
			}
		}
		if err := p.text.resolveShares(ctx, sc, quotedSet, rareSet, strSet, phraseSet); err != nil {
			return err
		}
		var quoted map[int64]float64
		if quotedSet != nil {
			quoted = quotedSet.found // a name held, even where no file in scope holds it
		}
		rare, strs := rareSet.shares(), strSet.shares()
		named.quoted, named.rare, named.strs, named.phrases = quoted, rare, strs, phraseSet.shares()
	} else if source && concept && !defs && p.tune.StatementPhraseBoost > 0 {
		// A statement that is not a change (a doc comment's sentence, a
		// description of what code does) is written in the words of the
		// code it describes: its phrases stand side by side there, as a
		// change's do in the file it changes.
		phraseSet, err := p.text.phraseWords(ctx, text)
		if err != nil {
			return err
		}
		if err := p.text.resolveShares(ctx, sc, phraseSet); err != nil {
			return err
		}
		named = &namedFiles{statement: true, phrases: phraseSet.shares()}
	}
	f := p.fuse(chans, pm, source, named, files, pool, req.Limit)
	if defs && len(vchans) > 0 {
		// A name's vectors reorder the files after its first but never
		// pass it: the definition channel finds the name by the name
		// itself, and where several files define it the vectors chose
		// among them worse than the lexical order did (issue 34: with
		// the static models, mostly a defining file from first to
		// second; BENCHMARKS.md).
		var keep *fileCand
		below := math.Inf(1)
		if len(f.cands) > 0 {
			keep, below = f.cands[0], f.cands[0].final
		}
		for _, ch := range vchans {
			f = p.refuse(f, ch, below, keep, pm, source, named, files, req.Limit)
		}
		chans = append(chans, vchans...)
	}
	// A text that names files by their paths (a stack trace's frames, a
	// commit's "src/x.c: …") places the change by them, not by where its
	// words stand together.
	if task && concept && !defs && len(named.paths) == 0 && p.tune.ProxBoost > 0 {
		shares, err := p.text.proxShares(ctx, f, proxWords(t.words, shape), searched)
		if err != nil {
			return err
		}
		if len(shares) > 0 {
			f = p.reprox(f, shares, pm, source, named, req.Limit)
		}
	}
	if l := dirEvidence(&p.tune, question, task); l.weight > 0 {
		// A question about how something works: the directory its best
		// files gather in lends their scores to its other files. A
		// change is often made beside the files its words match best,
		// but rarely in place of them: their directory's other files
		// are lifted at most to the place behind them.
		inScope, err := sc.filesIn(ctx, p.db)
		if err != nil {
			return err
		}
		ch := dirChannel(&p.tune, l, f, p.files.dirIndex(), inScope, files, pool)
		chans = append(chans, ch)
		below := math.Inf(1)
		if l.lendOnly && len(f.cands) > 0 {
			below = f.cands[min(l.top, len(f.cands))-1].final
		}
		f = p.refuse(f, ch, below, nil, pm, source, named, files, req.Limit)
	}
	if p.traceFn != nil {
		p.traceFn(p.trace(text, resp.Intent, chans, f))
	}
	resp.Total = f.files
	for _, fh := range f.hits {
		h := Hit{
			ID: fh.u.id, Kind: fh.u.kind, Path: fh.u.path, StartLine: fh.u.start, EndLine: fh.u.end,
			Title: fh.u.title, Score: round(fh.score),
		}
		if req.Explain || fh.demoted() {
			h.Why = fh.why(p.tune.SameFileDecay)
		}
		resp.Hits = append(resp.Hits, h)
	}
	return p.page.snippets(ctx, req, resp, pool, t.words)
}

// snippets fills the snippets of resp's hits, or, for a draft, leaves
// the making of them to Draft.Finish.
func (pf *pageFinisher) snippets(ctx context.Context, req Request, resp *Response, pool unitPool, words []string) error {
	if req.draft {
		resp.fill = func(ctx context.Context, hits []Hit) error { return pf.fillSnippets(ctx, hits, pool, words) }
		return nil
	}
	return pf.fillSnippets(ctx, resp.Hits, pool, words)
}

// defChannel ranks definitions in the order definitions returned them.
// Scores (for score fusion) fall with the match tier, and within a tier
// with the rank, by less than a tier's step, so that two definitions of
// one file keep definitions' order.
func defChannel(name string, weight float64, cands []defCand) *channel {
	ch := &channel{name: name, weight: weight}
	for i, c := range cands {
		ch.add(c.u, float64(len(tierNames)-c.tier)+0.5/float64(i+1))
	}
	return ch
}

// pathWords are the query words worth looking for in paths: the words of
// three letters or more, without whole forms (which never are path words
// on their own).
func pathWords(words []string) []string {
	var out []string
	for _, w := range words {
		if len(w) >= 3 && isASCIILetters(w) {
			out = append(out, w)
		}
	}
	return out
}

// pathChannel ranks every file in scope by the share of the query's words
// its path holds (pathMatcher), so that a file named after the query is a
// candidate even when its text says little.
func (p *Planner) pathChannel(ctx context.Context, req Request, sc *scoped, pm *pathMatcher, files map[int64]*fileInfo, pool unitPool) (*channel, error) {
	ch := &channel{name: "path", weight: p.tune.WPath, absolute: true}
	if len(pm.words) == 0 {
		return ch, nil
	}
	inScope, err := sc.filesIn(ctx, p.db)
	if err != nil {
		return nil, err
	}
	if !sc.scope.IsZero() {
		sc.note(req.Scope, scope.Files)
	}
	type scored struct {
		f *fileInfo
		m float64
	}
	var out []scored
	// Only files with a matching path word can score: the matcher lists
	// them (from the file cache that made files).
	for _, f := range pm.files() {
		if inScope != nil && !inScope[f.id] {
			continue
		}
		if m := pm.share(f); m > 0 {
			out = append(out, scored{f, m})
		}
	}
	// Best share first; then the shorter path (the more specific name),
	// then the path itself, so the order never depends on map iteration.
	sort.Slice(out, func(i, j int) bool {
		if out[i].m != out[j].m {
			return out[i].m > out[j].m
		}
		if len(out[i].f.path) != len(out[j].f.path) {
			return len(out[i].f.path) < len(out[j].f.path)
		}
		return out[i].f.path < out[j].f.path
	})
	for _, s := range out {
		ch.add(fileUnit(pool, files, s.f.id), s.m)
	}
	return ch, nil
}
