package query

import (
	"math"
	"path"
)

// Directory evidence. The answer to "how does X work" is usually a
// directory's files, not one file: a package, a module, a plugin. When
// the first fusion's best files gather in one directory, that directory
// is the likely answer, and its other files (which may share few words
// with the question: the helpers, the exceptions, the encoder beside the
// decoder) should rank near the files that named it. The directory
// channel passes the fused scores of a directory's leading files on to
// the directory's other files; the fusion adds it to the files it scores
// (refuse).

// dirLending is how the directory channel lends for one search.
type dirLending struct {
	weight float64 // 0: no directory evidence
	top    int     // the leading files of the first fusion that lend
	// lendOnly: the leading files take nothing; the evidence is for
	// the files behind them.
	lendOnly bool
	// repoPow: a directory holding a share of the searched module files
	// lends × (1 − share)^repoPow.
	repoPow float64
}

// dirEvidence returns how the directory channel lends for a search: a
// question's, a task-shaped text's, or not at all (weight 0) for other
// text. A task's lending is already held behind its leading files, and
// is not lowered for a directory's share of the repository (measured:
// task localization falls with it).
func dirEvidence(t *Tuning, question, task bool) dirLending {
	switch {
	case question:
		return dirLending{weight: t.WDir, top: t.DirTop, repoPow: t.DirRepoPow}
	case task:
		return dirLending{weight: t.TaskWDir, top: t.TaskDirTop, lendOnly: true}
	}
	return dirLending{}
}

// dirChannel scores the module files of the directories holding the
// first top candidates of a fusion, at weight. A directory's evidence is
// the sum of its candidates' final scores relative to the best
// candidate's; each of its files, and the file beside it that names it
// (entriesBeside), gets weight × the evidence of its directory's other
// leading candidates (a file's own score is not passed back to it) × its
// size share, (size / the directory's largest size)^sizePow, divided by
// the directory's number of module files^countPow, times (1 − its share
// of the searched module files)^repoPow. A file's size is the
// definitions it holds (dirIndex.sizer). Files out of the search's scope
// (inScope, when not nil) get nothing. With lendOnly, the leading
// candidates take nothing: the evidence is for the files behind them.
// It is an absolute, file-level channel.
func dirChannel(t *Tuning, l dirLending, f *fused, dirs dirIndex, inScope map[int64]bool, files map[int64]*fileInfo, pool unitPool) *channel {
	sizePow, countPow := t.DirSizePow, t.DirCountPow
	weight, top, lendOnly := l.weight, l.top, l.lendOnly
	ch := &channel{name: "directory", weight: weight, absolute: true}
	if weight == 0 || top <= 0 || len(f.cands) == 0 || len(dirs) == 0 || f.cands[0].final <= 0 {
		return ch
	}
	best := f.cands[0].final
	evidence := map[string]float64{} // directory → sum of its leading candidates' shares
	own := map[int64]float64{}       // a leading candidate's own share
	for _, fc := range f.cands[:min(top, len(f.cands))] {
		if fc.info == nil || fc.final <= 0 {
			continue
		}
		s := fc.final / best
		evidence[path.Dir(fc.info.path)] += s
		own[fc.info.id] = s
	}
	searched := 0 // module files in scope, when a directory's share of them counts
	if l.repoPow != 0 {
		for _, members := range dirs {
			searched += countIn(members, inScope)
		}
	}
	score := map[int64]float64{}
	for dir, e := range evidence {
		members := dirs[dir]
		size, largest := dirs.sizer(dir)
		if largest == 0 {
			continue
		}
		// A directory of many files holds many of the leading ones by
		// chance (a repository's root, a flat source directory): its
		// evidence says less about it.
		damp := math.Pow(float64(len(members)), -countPow)
		if searched > 0 {
			// A directory holding most of the repository (its one flat
			// package) holds the leading files by chance as well: that
			// they gather there says little about its other files. The
			// one added keeps a repository of one directory lending.
			damp *= math.Pow(1-float64(countIn(members, inScope))/float64(searched+1), l.repoPow)
		}
		lend := func(m *fileInfo, rest float64) {
			if inScope != nil && !inScope[m.id] || rest <= 0 {
				return
			}
			share := 1.0
			if sizePow != 0 {
				share = math.Pow(min(float64(size(m))/float64(largest), 1), sizePow)
			}
			if v := rest * share * damp; v > score[m.id] {
				score[m.id] = v
			}
		}
		for _, m := range members {
			if _, lead := own[m.id]; lead && lendOnly {
				continue
			}
			lend(m, e-own[m.id])
		}
		// The file beside the directory that names it (lib/tesla.ex for
		// lib/tesla/, src/net.rs for src/net/) is the module the
		// directory's files implement: their evidence is its too.
		for _, m := range dirs.entriesBeside(dir) {
			if _, lead := own[m.id]; lead && lendOnly {
				continue
			}
			lend(m, e)
		}
	}
	addFiles(ch, score, files, pool)
	return ch
}

// countIn counts the files in scope (inScope; all when nil).
func countIn(fs []*fileInfo, inScope map[int64]bool) int {
	if inScope == nil {
		return len(fs)
	}
	n := 0
	for _, f := range fs {
		if inScope[f.id] {
			n++
		}
	}
	return n
}
