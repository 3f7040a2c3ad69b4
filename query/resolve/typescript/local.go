package typescript

import (
	"context"
	"strconv"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// tsBindsLocal reports whether the bare name at u is the variable a
// const, let, var or using declaration binds ("const name: T = …",
// "for (let name of …)"): a new variable, never a use of a property
// however its annotation's colon makes it read like a literal's key.
// A destructuring pattern ("const { name } = …") is left to the
// literal rules: there the name is a property's too.
func tsBindsLocal(line string, u lex.Use) bool {
	if len(u.Chain) > 0 || u.Expr || u.At > len(line) {
		return false
	}
	switch lex.LastWord(strings.TrimRight(line[:u.At], " \t")) {
	case "const", "let", "var", "using":
		return true
	}
	return false
}

// ModuleSpecifier reports whether offset at of a TypeScript line lies
// inside a module specifier: the string after "from" or "import", or the
// argument of import(…) or require(…) ("from '../observable'"). A module
// specifier is a path, never a name the code uses, whatever word of it
// matches a definition's.
func ModuleSpecifier(line string, at int) bool {
	var quote byte
	start := 0
	for i := 0; i < at && i < len(line); i++ {
		c := line[i]
		switch {
		case quote == 0 && c == '/' && i+1 < len(line) && line[i+1] == '/':
			return false // a comment
		case quote == 0 && c == '`':
			return false // a template: its substitutions are code
		case quote == 0 && (c == '\'' || c == '"'):
			quote, start = c, i
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		}
	}
	if quote == 0 {
		return false
	}
	before := strings.TrimRight(line[:start], " \t")
	if strings.HasSuffix(before, "(") {
		before = strings.TrimRight(strings.TrimSuffix(before, "("), " \t")
		w := lex.LastWord(before)
		return (w == "import" || w == "require") && !strings.HasSuffix(strings.TrimSuffix(before, w), ".")
	}
	switch lex.LastWord(before) {
	case "from", "import":
		return true
	}
	return false
}

// Locals reads what a TypeScript line's bare name is from the lines
// around it: a parameter or variable of an enclosing function, an
// element of a list wrapped over lines.
type Locals struct {
	rr Host
	// bound: per function (file, qualname), the lines declaring the
	// name as its parameter or its variable.
	bound map[ref.Key][]int
	elems map[ref.Key]bool // Wrapped's answers, per file, line and offset
}

// NewLocals returns the readers of a lookup's locals over h.
func NewLocals(h Host) *Locals {
	return &Locals{rr: h, bound: map[ref.Key][]int{}, elems: map[ref.Key]bool{}}
}

// Note notes r's line when it declares the name as a parameter (param)
// or a variable of its enclosing TypeScript function, for the functions
// nested in that one (Outer).
func (tl *Locals) Note(r *ref.Line, line string, uses []lex.Use, param bool) {
	if f := tl.rr.File(r.FileID); f == nil || !IsLang(f.Language) || r.Symbol == "" {
		return
	}
	bound := param
	for _, u := range uses {
		bound = bound || tsBindsLocal(line, u)
	}
	if bound {
		k := ref.Key{File: r.FileID, Name: r.Symbol}
		tl.bound[k] = append(tl.bound[k], r.Line)
	}
}

// Outer reports whether a bare use of the name at r, inside a
// function nested in another, is the Outer function's parameter or
// variable: a closure sees its enclosing functions' locals before the
// module's names ("delete lazy[key]" in a helper of a function declaring
// "const lazy = {}" is not the module's function lazy). A variable counts
// only when its block holds the use; d declared inside the Outer
// function itself is left to the other rules.
func (tl *Locals) Outer(ctx context.Context, r *ref.Line, d *ref.Def) bool {
	q := r.Symbol
	for {
		i := strings.LastIndex(q, ".")
		if i < 0 {
			return false
		}
		q = q[:i]
		lines := tl.bound[ref.Key{File: r.FileID, Name: q}]
		if len(lines) == 0 {
			continue
		}
		if d.Sym.FileID == r.FileID && strings.HasPrefix(d.Sym.Qualname, q+".") {
			return false
		}
		text, err := tl.rr.Text(ctx, r.FileID)
		if err != nil {
			return false
		}
		for _, n := range lines {
			if n > len(text) {
				continue
			}
			l := text[n-1]
			local := false
			for _, u := range lex.FindUses(l, tl.rr.Name()) {
				local = local || tsBindsLocal(l, u)
			}
			if local && strings.HasPrefix(strings.TrimSpace(l), "for") {
				continue // a loop's variable: its scope is the loop's, not read here
			}
			// A parameter's function holds every use nested in it.
			if !local || BlockSees(text, &ref.Def{Sym: &ref.Symbol{Start: n}}, r.Line) {
				return true
			}
		}
	}
}

// Wrapped reports whether the name at u stands alone on r's
// line ("name," under "yield [") inside a '[' or a '(' opened on a line
// above: an element of an array, a tuple or an argument list Wrapped
// over lines, which no import or export list is.
func (tl *Locals) Wrapped(ctx context.Context, r *ref.Line, u lex.Use) bool {
	if !u.Shorthand {
		return false
	}
	return ref.Memo(tl.elems, ref.Key{File: r.FileID, Line: r.Line, Name: strconv.Itoa(u.At)}, func() bool { return tl.readWrapped(ctx, r, u) })
}

// readWrapped is wrapped, read from the lines above r.
func (tl *Locals) readWrapped(ctx context.Context, r *ref.Line, u lex.Use) bool {
	text, err := tl.rr.Text(ctx, r.FileID)
	if err != nil || r.Line > len(text) || innermostBracket(text[r.Line-1], u.At) != 0 {
		return false
	}
	depth := 0 // brackets closed between the line and the one read
	for k := r.Line - 1; k >= 1 && k > r.Line-wrappedLines; k-- {
		open, closed := lineBrackets(lex.StripComment(text[k-1]))
		if len(open) > depth {
			return open[len(open)-1-depth] != '{'
		}
		depth += closed - len(open)
	}
	return false
}

// wrappedLines bounds the lines read above a wrapped element for the
// bracket it is in.
const wrappedLines = 100

// tsIterated returns the type of the values a for-of loop takes from a
// value of type t: an array's element, or the first type argument of the
// library's iterables (Iterable<T>, AsyncIterable<T>, a generator's)
// when runtime reports the name the runtime's (no type of the file's
// own); "" for any other type.
func tsIterated(t string, runtime func(name string) bool) string {
	if e := tsElement(t); e != "" {
		return e
	}
	name, args := tsTypeArgs(tsUnwrap(strings.TrimSpace(t)))
	if len(args) == 0 || !tsIterables[name] || !runtime(name) {
		return ""
	}
	return args[0]
}

// tsIndexedOrArray reports whether type t is an indexed access or an
// array of the type it starts with ("T['data']", "T[]"): a value of it
// has the members of that member's or element's type, not T's.
func tsIndexedOrArray(t string) bool {
	t = strings.TrimSpace(t)
	return strings.HasPrefix(skipTypeArgs(strings.TrimSpace(t[len(leadingTypeName(t)):])), "[")
}

// tsTypedConst matches a const declaration stating a type, its name and
// the type the groups ("const v: T = …").
var tsTypedConst = lazyregexp.New(`^\s*const\s+([\p{L}_$][\p{L}\p{N}_$]*)\s*:\s*([^=;]+?)\s*=`)

// tsFarConstType returns the type a const declaration of v states ("const
// v: T = …") further above r in its enclosing function than the readers
// of nearer bindings look (a long function's local), when its block
// holds r and no line between declares v again; "" otherwise. A const is
// never assigned again: its stated type holds wherever it is in scope.
func tsFarConstType(text []string, r *ref.Line, v string) string {
	if r.EnclStart < 1 || r.Line > len(text) {
		return ""
	}
	for n := r.Line - 1; n >= r.EnclStart && n > r.Line-tsScanLines; n-- {
		l := lex.StripComment(text[n-1])
		if m := tsTypedConst.FindStringSubmatch(l); m != nil && m[1] == v {
			if !BlockSees(text, &ref.Def{Sym: &ref.Symbol{Start: n}}, r.Line) {
				return ""
			}
			return strings.TrimSpace(m[2])
		}
		if declaresName(l, v) {
			return "" // bound otherwise nearer r
		}
	}
	return ""
}
