package query

import (
	"context"
	"regexp"
	"strings"

	"github.com/viberag/viberag/extract"
)

// A TypeScript or JavaScript constructor is called where its class is
// constructed: "new C(…)", a subclass's "super(…)", and (as the language
// service counts it) an export list naming the class. Those lines hold
// the class's name, not "constructor", so they are read from the class's
// references, judged as the class's, and listed under the constructor
// with the class's confidence.

// ctorLines returns the lines calling constructor def and their
// confidences: the class's references (a lookup of the class that
// declares def) that construct it, call it from a subclass's
// constructor, or export it by name. nil when def is no TypeScript or
// JavaScript class's constructor.
func (p *Planner) ctorLines(ctx context.Context, req RefsRequest, def *unit, files map[int64]*fileInfo) ([]*refLine, []string, error) {
	f := files[def.fileID]
	if def.name != "constructor" || def.symKind != extract.KindMethod || f == nil ||
		f.language != "typescript" && f.language != "tsx" && f.language != "javascript" {
		return nil, nil, nil
	}
	qual, ok := strings.CutSuffix(def.qualname, ".constructor")
	if !ok {
		return nil, nil, nil
	}
	name := qual[strings.LastIndex(qual, ".")+1:]
	us, err := p.symbols.exactDefs(ctx, name, nil)
	if err != nil {
		return nil, nil, err
	}
	var cls *unit
	for _, u := range us {
		if u.fileID == def.fileID && u.qualname == qual && u.symKind == extract.KindClass && u.start <= def.start && def.end <= u.end {
			cls = u
		}
	}
	if cls == nil {
		return nil, nil, nil
	}
	d, err := p.RankRefs(ctx, RefsRequest{ID: cls.id, Limit: MaxRefs, Scope: req.Scope})
	if err != nil {
		return nil, nil, err
	}
	src := refSource{p: p, files: files}
	construct := regexp.MustCompile(`\bnew\s+` + regexp.QuoteMeta(name) + `\s*[<(]`)
	word := regexp.MustCompile(`(?:^|[^\p{L}\p{N}_$])` + regexp.QuoteMeta(name) + `(?:$|[^\p{L}\p{N}_$])`)
	extends := regexp.MustCompile(`\bclass\s+[\p{L}_$][\p{L}\p{N}_$]*(?:\s*<[^>]*>)?\s+extends\s+` + regexp.QuoteMeta(name) + `\b`)
	var lines []*refLine
	var conf []string
	for i, r := range d.lines {
		text, err := src.Lines(ctx, r.fileID)
		if err != nil {
			return nil, nil, err
		}
		if r.line < 1 || r.line > len(text) {
			continue
		}
		l := text[r.line-1]
		switch {
		case construct.MatchString(l) || exportListed(text, r.line, word):
			lines, conf = append(lines, r), append(conf, d.conf[i])
		case extends.MatchString(l):
			if n := superCall(text, r.line); n > 0 {
				s := *r
				s.line = n
				lines, conf = append(lines, &s), append(conf, d.conf[i])
			}
		}
	}
	return lines, conf, nil
}

// exportListed reports whether line n (1-based) of text names the class in an
// export list ("export { C }", "export { C } from './c'", an entry on a
// line of its own inside one), word matching the name as a whole word:
// the language service counts the class's export as a reference of its
// constructor, not its import.
func exportListed(text []string, n int, word *regexp.Regexp) bool {
	for k := n; k >= 1 && k > n-50; k-- {
		l := strings.TrimSpace(text[k-1])
		if i := strings.IndexByte(l, '{'); i >= 0 {
			head := strings.TrimSpace(l[:i])
			return (head == "export" || head == "export type") && k == n && word.MatchString(l[i:]) || head == "export" && k < n
		}
		if k < n && (strings.Contains(l, "}") || strings.HasSuffix(l, ";")) {
			return false // another statement ends above
		}
		if k == n && !word.MatchString(l) {
			return false
		}
	}
	return false
}

// superCall returns the line (1-based) of the first "super(" call in the
// body of the class declared on line n of text, 0 when its body (up to
// 400 lines) calls none: the subclass's constructor calls the base's.
func superCall(text []string, n int) int {
	depth, opened := 0, false
	for k := n; k <= len(text) && k < n+400; k++ {
		l := text[k-1]
		if opened && strings.Contains(l, "super(") {
			return k
		}
		depth += strings.Count(l, "{") - strings.Count(l, "}")
		opened = opened || strings.Contains(l, "{")
		if opened && depth <= 0 {
			return 0
		}
	}
	return 0
}

// withCtorLines adds to the kept lines of def (and their confidences) the
// lines calling it, when def is a constructor (ctorLines), each once.
func (p *Planner) withCtorLines(ctx context.Context, req RefsRequest, def *unit, files map[int64]*fileInfo, kept []*refLine, conf []string) ([]*refLine, []string, error) {
	cl, cc, err := p.ctorLines(ctx, req, def, files)
	if err != nil || len(cl) == 0 {
		return kept, conf, err
	}
	type at struct {
		file int64
		line int
	}
	seen := map[at]bool{}
	for _, r := range kept {
		seen[at{r.fileID, r.line}] = true
	}
	for i, r := range cl {
		if k := (at{r.fileID, r.line}); !seen[k] {
			seen[k] = true
			kept, conf = append(kept, r), append(conf, cc[i])
		}
	}
	return kept, conf, nil
}
