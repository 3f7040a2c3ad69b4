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

// dirEvidence returns the directory channel's weight and its count of
// leading files for a search: a question's, a task-shaped text's, or
// none (weight 0) for other text.
func dirEvidence(t *Tuning, question, task bool) (weight float64, top int) {
	switch {
	case question:
		return t.WDir, t.DirTop
	case task:
		return t.TaskWDir, t.TaskDirTop
	}
	return 0, 0
}

// dirChannel scores the module files of the directories holding the
// first top candidates of a fusion, at weight. A directory's evidence is
// the sum of its candidates' final scores relative to the best
// candidate's; each of its files, and the file beside it that names it
// (entriesBeside), gets weight × the evidence of its directory's other
// leading candidates (a file's own score is not passed back to it) × its
// size share, (size / the directory's largest size)^sizePow, divided by
// the directory's number of module files^countPow. A file's size is the
// definitions it holds (dirIndex.sizer). Files out of the search's scope
// (inScope, when not nil) get nothing. With lendOnly, the leading
// candidates take nothing: the evidence is for the files behind them.
// It is an absolute, file-level channel.
func dirChannel(t *Tuning, weight float64, top int, lendOnly bool, f *fused, dirs dirIndex, inScope map[int64]bool, files map[int64]*fileInfo, pool unitPool) *channel {
	sizePow, countPow := t.DirSizePow, t.DirCountPow
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
