package query

import (
	"context"
	"strings"
)

const (
	snippetLines    = 4
	snippetLineMax  = 160 // bytes per line; longer lines are cut with "…"
	definitionLines = 3
)

// fillSnippets gives every hit a short snippet: for a block, the lines of
// its chunk that hold the most query words; for a definition, its
// signature and the first line of its doc; for a file, its doc's first
// line or its summary's.
func (pf *pageFinisher) fillSnippets(ctx context.Context, hits []Hit, pool unitPool, words []string) error {
	stems := snippetStems(words)
	var blockIDs, declIDs []int64
	for i := range hits {
		u := pool[unitKey{hits[i].Kind, hits[i].ID}]
		switch {
		case u == nil:
		case u.kind == KindBlock && u.content == nil:
			blockIDs = append(blockIDs, u.rowid)
		case u.kind == KindDefinition && u.decl != 0 && u.shown == nil:
			declIDs = append(declIDs, u.decl)
		}
	}
	content, err := pf.db.ChunkContents(ctx, blockIDs)
	if err != nil {
		return err
	}
	decls, err := pf.db.SymbolDecls(ctx, declIDs)
	if err != nil {
		return err
	}
	for i := range hits {
		h := &hits[i]
		u := pool[unitKey{h.Kind, h.ID}]
		if u == nil {
			continue
		}
		switch u.kind {
		case KindBlock:
			if u.content != nil {
				h.Snippet = bestWindow(*u.content, stems, snippetLines)
			} else if c, ok := content[u.rowid]; ok { // missing: rewritten since the search read it
				h.Snippet = bestWindow(c, stems, snippetLines)
			}
		case KindDefinition:
			d := decls[u.decl] // missing: rewritten since the search read it
			if u.shown != nil {
				d = *u.shown
			}
			h.Snippet = definitionSnippet(d.Signature, d.Doc)
		case KindUsage:
			h.Snippet = u.signature // the line, read by importers
		case KindFile:
			doc, summary, ok, err := pf.db.FileDoc(ctx, u.fileID)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			h.Snippet = firstLines(doc, 1)
			if h.Snippet == "" {
				h.Snippet = firstLines(strings.Join(strings.Split(summary, "\n")[1:], "\n"), 2)
			}
		}
	}
	return nil
}

// snippetStems are the words a snippet line is scored by: the stems of
// the query words of three letters or more.
func snippetStems(words []string) []string {
	var out []string
	for _, w := range words {
		if len(w) >= 3 {
			out = append(out, stem(w))
		}
	}
	return out
}

func definitionSnippet(signature, doc string) string {
	s := cutLine(signature)
	if d := firstLines(doc, 1); d != "" {
		s += "\n" + d
	}
	return s
}

// bestWindow returns the n consecutive lines of text that hold the most
// query words (the first such window), trimmed of blank edges.
func bestWindow(text string, stems []string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) <= n {
		return trimLines(lines)
	}
	// The text is lower-cased once, not line by line (lowering never adds
	// or removes a newline), and a line is searched only for the words
	// the chunk holds at all: of a long query's words, a few.
	lowerText := strings.ToLower(strings.TrimRight(text, "\n"))
	var present []string
	for _, s := range stems {
		if strings.Contains(lowerText, s) {
			present = append(present, s)
		}
	}
	hits := make([]int, len(lines))
	if len(present) > 0 {
		for i, ll := range strings.Split(lowerText, "\n") {
			if i >= len(lines) {
				break
			}
			for _, s := range present {
				if strings.Contains(ll, s) {
					hits[i]++
				}
			}
		}
	}
	best, bestSum, sum := 0, -1, 0
	for i := range lines {
		sum += hits[i]
		if i >= n {
			sum -= hits[i-n]
		}
		if i >= n-1 && sum > bestSum {
			best, bestSum = i-n+1, sum
		}
	}
	if bestSum <= 0 {
		// No word on any line (a match in the header or a split part):
		// the block's first lines say what it is.
		best = 0
	}
	return trimLines(lines[best : best+n])
}

func trimLines(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	// Strip the indentation the lines share: a snippet is read out of its
	// context.
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			l = l[indent:]
		}
		out[i] = cutLine(l)
	}
	return strings.Join(out, "\n")
}

// cutLine shortens a line to snippetLineMax bytes on a rune boundary.
func cutLine(l string) string {
	l = strings.TrimRight(l, " \t\r")
	if len(l) <= snippetLineMax {
		return l
	}
	cut := snippetLineMax
	for cut > 0 && !utf8RuneStart(l[cut]) {
		cut--
	}
	return l[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// firstLines returns the first n non-blank lines of s.
func firstLines(s string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		out = append(out, cutLine(strings.TrimSpace(l)))
		if len(out) == n {
			break
		}
	}
	return strings.Join(out, "\n")
}

// fileLines rebuilds lines from..to (inclusive) of a file from its chunks.
// Lines no chunk covers (an index being rewritten) come back empty.
func (pf *pageFinisher) fileLines(ctx context.Context, fileID int64, from, to int) ([]string, error) {
	return pf.db.FileLines(ctx, fileID, from, to)
}
