package typescript

import (
	"context"
	"slices"

	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// Which definitions a member's use could be at all, when no fact decides
// it (tsRules.narrow): a value of a type reaches a file through what the
// file names or imports. A use of a member's name that several
// definitions are open to is not d's when its file names the type of
// another of those definitions and not d's (or a type declared beside
// it that names it), or imports another's file
// and neither names d's type nor imports d's file (through index files
// re-exporting it too). The line stays listed (name only) under
// the definitions it remains open to, and is counted in left_out with its
// reason under the others; a heuristic, it never makes a line likely.

// Why a line is left out by narrowing.
const (
	whyUnseen     = "a member's use in a file that neither names its type nor imports its file, where it imports another definition's"
	whyNamedOther = "a member's use in a file that names another definition's type, not this one's"
)

// narrow leaves out of the definitions an occurrence at r is open to
// (its verdicts and why, per definition)
// (two or more) the members whose type r's file does not name where it
// names another's, or neither names nor imports where it names or
// imports another's. A declaration every file sees (a script's, a
// global's) is neither left out nor evidence against the others.
func (ru *tsRules) narrow(ctx context.Context, r *ref.Line, verdict []ref.Verdict, why []string) error {
	var open []int
	for di, v := range verdict {
		if v == ref.Open {
			open = append(open, di)
		}
	}
	if len(open) < 2 {
		return nil
	}
	const (
		unseen = iota
		imported
		named
		exempt
	)
	sight := make([]int, len(open))
	best := unseen
	for k, di := range open {
		d := &ru.rr.Defs()[di]
		switch global, err := ru.rr.SeenEverywhere(ctx, d.Sym.Path); {
		case err != nil:
			return err
		case !d.Member || d.Parent == "" || !IsLang(d.Lang) || global:
			sight[k] = exempt
			continue
		case d.Sym.FileID == r.FileID || ru.namesType(ctx, r.FileID, d.Parent, d.Sym.FileID):
			sight[k] = named
		default:
			in, err := ru.imports(ctx, r.Path, d.Sym.Path)
			if err != nil {
				return err
			}
			if in {
				sight[k] = imported
			}
		}
		best = max(best, sight[k])
	}
	for k, di := range open {
		switch {
		case sight[k] == exempt || sight[k] >= best:
		case best == named:
			verdict[di], why[di] = ref.Unlikely, whyNamedOther
		default:
			verdict[di], why[di] = ref.Unlikely, whyUnseen
		}
	}
	return nil
}

// namesType reports whether file id names type t (declared in file did)
// or a type declared beside t whose declaration names it, two deep (a
// value of t reaches a file as a member of such a type too). A name the
// file declares a type of its own under, or imports from another file,
// is not t's.
func (ru *tsRules) namesType(ctx context.Context, id int64, t string, did int64) bool {
	if ru.names(ctx, id, t) && !tsOwnType(ctx, ru.decl, id, t, did) {
		return true
	}
	for _, m := range ru.mentioners(ctx, did, t) {
		if ru.names(ctx, id, m) {
			return true
		}
	}
	return false
}

// mentioners returns the classes, interfaces and aliases file id
// declares whose declarations (up to the file's next declaration) name
// type t, and those naming them.
func (ru *tsRules) mentioners(ctx context.Context, id int64, t string) []string {
	return ref.Memo(ru.mention, ref.Key{File: id, Line: 0, Name: t}, func() []string {
		text, _ := ru.rr.Text(ctx, id)
		decls := ru.decl.tsDecls(ctx, id)
		var starts []int
		for _, ds := range decls {
			for _, d := range ds {
				starts = append(starts, d.line)
			}
		}
		slices.Sort(starts)
		mentions := func(name string, w string) bool {
			for _, d := range decls[name] {
				if d.kind != "class" && d.kind != "interface" && d.kind != "type" {
					continue
				}
				end := min(len(text), d.line+200)
				if i, found := slices.BinarySearch(starts, d.line+1); i < len(starts) && (found || starts[i] > d.line) {
					end = min(end, starts[i])
				}
				for _, l := range text[d.line:end] {
					if len(lex.UseOffsets(l, w)) > 0 {
						return true
					}
				}
			}
			return false
		}
		var out []string
		seen := map[string]bool{t: true}
		level := []string{t}
		for depth := 0; depth < 2 && len(level) > 0; depth++ {
			var next []string
			for name := range decls {
				if seen[name] {
					continue
				}
				for _, w := range level {
					if mentions(name, w) {
						seen[name] = true
						next = append(next, name)
						break
					}
				}
			}
			slices.Sort(next)
			out = append(out, next...)
			level = next
		}
		return out
	})
}

// names reports whether file id's text holds name as a whole word.
func (ru *tsRules) names(ctx context.Context, id int64, name string) bool {
	return ref.Memo(ru.named, ref.Key{File: id, Line: 0, Name: name}, func() bool {
		text, _ := ru.rr.Text(ctx, id)
		for _, l := range text {
			if len(lex.UseOffsets(l, name)) > 0 {
				return true
			}
		}
		return false
	})
}

// imports reports whether file from imports file to: directly, or
// through files that declare nothing themselves (an index re-exporting
// others), four deep; true when the graph is past its bounds.
func (ru *tsRules) imports(ctx context.Context, from, to string) (bool, error) {
	seen := map[string]bool{from: true}
	next := []string{from}
	for depth := 0; depth < 4 && len(next) > 0; depth++ {
		var barrels []string
		for _, f := range next {
			es, over, err := ru.rr.Edges(ctx, f)
			if err != nil || over {
				return true, err
			}
			for _, e := range es {
				if e == to {
					return true, nil
				}
				if g := ru.rr.FileAt(e); g != nil && !seen[e] && len(ru.decl.tsDecls(ctx, g.ID)) == 0 {
					seen[e] = true
					barrels = append(barrels, e)
				}
			}
		}
		next = barrels
	}
	return false, nil
}
