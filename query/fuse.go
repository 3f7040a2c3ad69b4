package query

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Fusion. Channels rank different things (chunks, symbols, files), but an
// agent's question is almost always answered by a place in a file, and the
// benchmark scores files. So fusion works in two levels:
//
//  1. Files. Each channel ranks files by their best unit (a file's rank
//     in a channel is the position of its first unit among distinct
//     files). A file's score is the weighted sum over channels of
//     1/(k+rank) (Tuning.Fusion "rrf") or of its best unit's
//     max-normalised score ("score"). Path words and priors then scale it.
//  2. Units inside a file. Each unit's score is the same sum over the
//     channels that found the unit itself; the best unit represents the
//     file. A file's further units, when they do not overlap the ones
//     already listed, compete with the other files' at the file's score
//     times SameFileDecay per hit already listed.
//
// Ties are broken by path, then start line, so the order is a function of
// the index and the query alone.

// fileCand is a file in the fusion.
type fileCand struct {
	info   *fileInfo
	path   string
	score  float64 // fused over channels
	final  float64 // after path words and priors
	ranks  []ChannelRank
	priors []Prior
	units  []*unitCand // in the order channels found them
	// byUnit indexes units once they are many; most files have a few,
	// which a scan finds faster than a map is made.
	byUnit map[*unit]*unitCand
}

// unitCand is a unit in the fusion.
type unitCand struct {
	u     *unit
	score float64
	ranks []ChannelRank
}

// fileLevel channels rank files as wholes: they add to a file's score but
// do not make a unit of it stand out.
var fileLevel = map[string]bool{"blocks_sum": true, "files": true, "path": true, "vec_file": true, "module": true, "directory": true}

// fused is the outcome of fusion: hits in order, with their explanations.
type fused struct {
	hits  []*fusedHit
	files int // candidate files
	// cands are the candidate files, best first (kept for a trace).
	cands []*fileCand
	// byFile indexes cands, for a channel added later (refuse).
	byFile map[int64]*fileCand
}

type fusedHit struct {
	u     *unit
	file  *fileCand
	unit  *unitCand
	score float64
	nth   int // 0 for a file's first hit
}

// fuse combines channels into a ranked hit list of at most limit hits.
// pm scores paths for the path prior; with source set (sourcePriors), the
// task priors replace the question priors; the files named (when not nil)
// take the named prior.
func (p *Planner) fuse(chans []*channel, pm *pathMatcher, source bool, named *namedFiles, files map[int64]*fileInfo, pool unitPool, limit int) *fused {
	byFile := map[int64]*fileCand{}
	for _, ch := range chans {
		p.gather(byFile, ch, files)
	}
	cands := make([]*fileCand, 0, len(byFile))
	for _, fc := range byFile {
		p.prior(fc, pm, source, named)
		cands = append(cands, fc)
	}
	return p.pick(byFile, cands, limit)
}

// refuse adds one more channel to a fusion. It gives the order a second
// fusion with the channel would give, but scales again only the files
// the channel scores: the other files' scores stay as they were. The
// files it scores are lifted at most to just below below, but for keep
// (nil: none), which it may lift further.
func (p *Planner) refuse(f *fused, ch *channel, below float64, keep *fileCand, pm *pathMatcher, source bool, named *namedFiles, files map[int64]*fileInfo, limit int) *fused {
	cands := f.cands
	for _, fc := range p.gather(f.byFile, ch, files) {
		if len(fc.ranks) == 1 {
			cands = append(cands, fc) // found by this channel alone
		}
		p.prior(fc, pm, source, named)
		if fc != keep && fc.final >= below {
			capped := math.Nextafter(below, math.Inf(-1))
			fc.priors = append(fc.priors, Prior{Name: "held below the files it may not pass", Factor: round(capped / fc.final)})
			fc.final = capped
		}
	}
	return p.pick(f.byFile, cands, limit)
}

// gather adds a channel's scores to the files and units of byFile and
// returns the files the channel scores.
func (p *Planner) gather(byFile map[int64]*fileCand, ch *channel, files map[int64]*fileInfo) []*fileCand {
	if len(ch.units) == 0 || ch.weight == 0 {
		return nil
	}
	t := &p.tune
	maxScore := ch.best()
	contrib := func(rank int, score float64) float64 {
		if t.Fusion == "score" {
			if ch.absolute {
				return ch.weight * score
			}
			if maxScore <= 0 {
				return 0
			}
			return ch.weight * score / maxScore
		}
		return ch.weight / (t.RRFK + float64(rank))
	}
	var scored []*fileCand
	fileRank := map[int64]int{}
	for i, u := range ch.units {
		fc, ok := byFile[u.fileID]
		if !ok {
			fc = &fileCand{info: files[u.fileID], path: u.path}
			byFile[u.fileID] = fc
		}
		if _, seen := fileRank[u.fileID]; !seen {
			r := len(fileRank) + 1
			fileRank[u.fileID] = r
			fc.score += contrib(r, ch.scores[i])
			fc.ranks = append(fc.ranks, ChannelRank{Channel: ch.name, Rank: r, Weight: ch.weight, Similarity: ch.similarity(i)})
			scored = append(scored, fc)
		}
		if fileLevel[ch.name] && u.kind == KindFile {
			uc := fc.unit(u)
			_ = uc // a file unit exists so that a file found only here can be listed
			continue
		}
		uc := fc.unit(u)
		if len(uc.ranks) > 0 && uc.ranks[len(uc.ranks)-1].Channel == ch.name {
			continue // a unit listed twice by one channel counts once
		}
		uc.score += contrib(i+1, ch.scores[i])
		uc.ranks = append(uc.ranks, ChannelRank{Channel: ch.name, Rank: i + 1, Weight: ch.weight, Similarity: ch.similarity(i)})
	}
	return scored
}

// prior sets a file's final score: its fused score scaled by path words
// and priors.
func (p *Planner) prior(fc *fileCand, pm *pathMatcher, source bool, named *namedFiles) {
	t := &p.tune
	fc.final, fc.priors = fc.score, nil
	if fc.info == nil {
		return
	}
	if t.PathBoost > 0 {
		if m := pm.share(fc.info); m > 0 {
			f := 1 + t.PathBoost*m
			fc.final *= f
			fc.priors = append(fc.priors, Prior{Name: "path words", Factor: round(f)})
		}
	}
	if source {
		fc.taskPriors(t)
	} else {
		fc.applyPrior(fc.info.test, t.TestPrior, "test file")
		fc.applyPrior(fc.info.aux, t.AuxPrior, "examples, docs, benchmarks or vendored code")
		fc.applyPrior(fc.info.reexport, t.ReexportPrior, "re-export file")
		fc.applyPrior(fc.info.prose, t.ProsePrior, "prose or data file")
	}
	fc.namedPrior(named, t)
}

// pick orders the candidate files (all of byFile's) and lists the best
// limit units.
func (p *Planner) pick(byFile map[int64]*fileCand, cands []*fileCand, limit int) *fused {
	t := &p.tune
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].final != cands[j].final {
			return cands[i].final > cands[j].final
		}
		return cands[i].path < cands[j].path
	})

	// Each file's units, best first; units overlapping a better one of
	// the same file are left out (a block inside a listed definition adds
	// nothing).
	type pick struct {
		fc    *fileCand
		uc    *unitCand
		score float64
		nth   int
		order int
	}
	var picks []pick
	listed := cands
	if t.SameFileDecay < 1 && len(listed) > limit && listed[limit-1].final >= 0 {
		// Every file has a unit, so the first limit files give limit
		// picks at their own scores; a later file's picks score at most
		// its score (or at most 0, when it is negative), no more than
		// theirs, and lose ties by order. So only the first limit files
		// can be listed: sorting the units of the others (hundreds for a
		// long query) would be wasted.
		listed = listed[:limit]
	}
	for order, fc := range listed {
		units := fc.sortedUnits()
		var taken []*unit
		for _, uc := range units {
			if uc.u.kind == KindFile && len(taken) > 0 {
				continue
			}
			if overlapsAny(uc.u, taken) {
				continue
			}
			nth := len(taken)
			if nth > 0 && (uc.score == 0 || t.SameFileDecay <= 0) {
				break
			}
			taken = append(taken, uc.u)
			picks = append(picks, pick{fc, uc, fc.final * math.Pow(t.SameFileDecay, float64(nth)), nth, order})
			if nth+1 >= limit {
				break
			}
		}
	}
	sort.SliceStable(picks, func(i, j int) bool {
		a, b := picks[i], picks[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.order != b.order {
			return a.order < b.order
		}
		return a.nth < b.nth
	})
	out := &fused{files: len(cands), cands: cands, byFile: byFile}
	for i := 0; i < len(picks) && i < limit; i++ {
		pk := picks[i]
		out.hits = append(out.hits, &fusedHit{u: pk.uc.u, file: pk.fc, unit: pk.uc, score: pk.score, nth: pk.nth})
	}
	return out
}

// maxScannedUnits is the most units a fileCand finds by a scan.
const maxScannedUnits = 16

func (fc *fileCand) unit(u *unit) *unitCand {
	if fc.byUnit != nil {
		if uc, ok := fc.byUnit[u]; ok {
			return uc
		}
	} else {
		for _, uc := range fc.units {
			if uc.u == u {
				return uc
			}
		}
	}
	uc := &unitCand{u: u}
	fc.units = append(fc.units, uc)
	if fc.byUnit != nil {
		fc.byUnit[u] = uc
	} else if len(fc.units) > maxScannedUnits {
		fc.byUnit = make(map[*unit]*unitCand, 2*len(fc.units))
		for _, x := range fc.units {
			fc.byUnit[x.u] = x
		}
	}
	return uc
}

func (fc *fileCand) applyPrior(on bool, factor float64, name string) {
	if on && factor != 1 {
		fc.final *= factor
		fc.priors = append(fc.priors, Prior{Name: name, Factor: factor})
	}
}

// sortedUnits orders a file's units: by score, then definitions before
// blocks before the file itself, then by line.
func (fc *fileCand) sortedUnits() []*unitCand {
	out := slices.Clone(fc.units)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if ka, kb := kindOrder(a.u.kind), kindOrder(b.u.kind); ka != kb {
			return ka < kb
		}
		if a.u.start != b.u.start {
			return a.u.start < b.u.start
		}
		return a.u.end < b.u.end
	})
	return out
}

func kindOrder(k string) int {
	switch k {
	case KindDefinition:
		return 0
	case KindBlock:
		return 1
	case KindUsage:
		return 2
	default:
		return 3
	}
}

func overlapsAny(u *unit, taken []*unit) bool {
	for _, t := range taken {
		if u.start <= t.end && t.start <= u.end {
			return true
		}
	}
	return false
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// why explains a fused hit.
func (h *fusedHit) why(decay float64) *Why {
	w := &Why{Priors: h.file.priors}
	seen := map[string]bool{}
	for _, r := range h.unit.ranks {
		w.Channels = append(w.Channels, r)
		seen[r.Channel] = true
	}
	for _, r := range h.file.ranks {
		if !seen[r.Channel] {
			r.Channel = "file:" + r.Channel
			w.Channels = append(w.Channels, r)
		}
	}
	if h.nth > 0 {
		w.Note = fmt.Sprintf("hit %d from this file: file score × %.2f^%d", h.nth+1, decay, h.nth)
	}
	return w
}

// demoted reports whether a prior lowered the hit's file.
func (h *fusedHit) demoted() bool {
	for _, p := range h.file.priors {
		if p.Factor < 1 {
			return true
		}
	}
	return h.nth > 0
}
