package extract

import "sort"

// lineSpan is an inclusive 1-based line range.
type lineSpan struct{ start, end int }

func (s lineSpan) lines() int { return s.end - s.start + 1 }

// windows covers [from, to] with windows of windowLines that overlap by
// windowOverlap lines, so a match near a window edge still has context.
func windows(from, to int) []lineSpan {
	if to < from {
		return nil
	}
	var out []lineSpan
	for start := from; ; start += windowLines - windowOverlap {
		end := min(start+windowLines-1, to)
		out = append(out, lineSpan{start, end})
		if end >= to {
			return out
		}
	}
}

// packUnits turns syntax units into chunks that cover every line 1..total.
//
// Each unit is widened down to the line before the next unit, so blank
// lines and stray comments between units belong to a chunk; a unit that is
// a comment block directly above a declaration starts that declaration's
// segment (readers report doc comments inside the unit where they can).
// Consecutive segments are packed greedily up to chunkTarget lines; a
// segment over chunkMax is split at its children's boundaries, recursively,
// and by line windows when it has none.
//
// It needs no step budget (budget.go): each unit is visited once, at its
// own level, and readers nest units at most 8 deep, so the work is linear
// in units and lines; FuzzChunker checks it on arbitrary unit trees.
func packUnits(units []Unit, total int) []lineSpan {
	if total == 0 {
		return nil
	}
	units = normaliseUnits(units, 1, total)
	if len(units) == 0 {
		return windows(1, total)
	}
	var out []lineSpan
	pack(units, &out)
	return out
}

// normaliseUnits sorts units, drops empty or out-of-range ones, merges
// overlaps, and widens them so they tile [from, to] exactly.
func normaliseUnits(units []Unit, from, to int) []Unit {
	us := make([]Unit, 0, len(units))
	for _, u := range units {
		u.StartLine = max(u.StartLine, from)
		u.EndLine = min(u.EndLine, to)
		if u.EndLine >= u.StartLine {
			us = append(us, u)
		}
	}
	sort.SliceStable(us, func(i, j int) bool { return us[i].StartLine < us[j].StartLine })
	// Merge overlapping units: a unit starting inside the previous one is
	// folded into it (its children are kept for splitting).
	merged := us[:0]
	for _, u := range us {
		if n := len(merged); n > 0 && u.StartLine <= merged[n-1].EndLine {
			last := &merged[n-1]
			last.EndLine = max(last.EndLine, u.EndLine)
			last.Children = append(last.Children, u.Children...)
			continue
		}
		merged = append(merged, u)
	}
	if len(merged) == 0 {
		return nil
	}
	merged[0].StartLine = from
	for i := range merged {
		if i+1 < len(merged) {
			merged[i].EndLine = merged[i+1].StartLine - 1
		} else {
			merged[i].EndLine = to
		}
	}
	return merged
}

// pack appends chunks for tiled units to out.
func pack(units []Unit, out *[]lineSpan) {
	cur := lineSpan{start: -1}
	flush := func() {
		if cur.start >= 0 {
			*out = append(*out, cur)
			cur.start = -1
		}
	}
	for _, u := range units {
		sp := lineSpan{u.StartLine, u.EndLine}
		if sp.lines() > chunkMax {
			flush()
			split(u, out)
			continue
		}
		if cur.start >= 0 && cur.lines()+sp.lines() > chunkTarget {
			flush()
		}
		if cur.start < 0 {
			cur = sp
		} else {
			cur.end = sp.end
		}
	}
	flush()
}

// split chunks one unit longer than chunkMax at its children.
func split(u Unit, out *[]lineSpan) {
	children := normaliseUnits(u.Children, u.StartLine, u.EndLine)
	if len(children) < 2 {
		// A single child spanning the unit may have children of its own.
		if len(children) == 1 && len(children[0].Children) > 0 {
			split(Unit{StartLine: u.StartLine, EndLine: u.EndLine, Children: children[0].Children}, out)
			return
		}
		*out = append(*out, windows(u.StartLine, u.EndLine)...)
		return
	}
	pack(children, out)
}
