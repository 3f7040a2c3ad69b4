package query

// FusionTrace is what one ranked search fused (definition and concept
// searches, alone or together): every channel's files, each with the
// score it lends a file before the channel's weight, and every candidate
// file's multiplier from path words and priors. A file's fused score is
// Factor × Σ over channels of Weight × Score, so a trace lets a
// measurement rank the same candidates under other channel weights
// without searching again. It is for measurements (Options.Trace); the
// planner's answers do not depend on it.
type FusionTrace struct {
	// Text is the text the channels searched (after routing and task-text
	// reduction); Intent the intent it was searched as.
	Text   string
	Intent Intent
	// Fusion is Tuning.Fusion: the rule above is that of "score".
	Fusion   string
	Files    []TracedFile
	Channels []TracedChannel
}

// TracedFile is a candidate file of a traced search.
type TracedFile struct {
	Path string
	// Factor multiplies the file's fused score: path words and priors.
	Factor float64
}

// TracedChannel is one channel of a traced search: its files (indexes
// into FusionTrace.Files) in the channel's order, each with the score
// its best unit lends it before Weight (max-normalised, or absolute), and
// the channel's highest raw score (a cosine, for a vector channel), which
// the normalised scores were divided by unless Absolute.
type TracedChannel struct {
	Name     string
	Weight   float64
	Absolute bool
	Max      float64
	Files    []int
	Scores   []float64
}

// trace describes the fusion of chans into f (Tuning.Fusion "score":
// the contributions fuse adds up, before the channel weights).
func (p *Planner) trace(text string, intent Intent, chans []*channel, f *fused) FusionTrace {
	tr := FusionTrace{Text: text, Intent: intent, Fusion: p.tune.Fusion}
	index := map[string]int{}
	for _, fc := range f.cands {
		factor := 1.0
		for _, pr := range fc.priors {
			factor *= pr.Factor
		}
		index[fc.path] = len(tr.Files)
		tr.Files = append(tr.Files, TracedFile{Path: fc.path, Factor: factor})
	}
	for _, ch := range chans {
		if len(ch.units) == 0 || ch.weight == 0 {
			continue
		}
		maxScore := ch.best()
		tc := TracedChannel{Name: ch.name, Weight: ch.weight, Absolute: ch.absolute, Max: maxScore}
		seen := map[int]bool{}
		for i, u := range ch.units {
			fi, ok := index[u.path]
			if !ok || seen[fi] {
				continue
			}
			seen[fi] = true
			s := ch.scores[i]
			if !ch.absolute {
				s = 0
				if maxScore > 0 {
					s = ch.scores[i] / maxScore
				}
			}
			tc.Files = append(tc.Files, fi)
			tc.Scores = append(tc.Scores, s)
		}
		tr.Channels = append(tr.Channels, tc)
	}
	return tr
}
