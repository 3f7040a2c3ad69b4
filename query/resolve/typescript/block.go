package typescript

import (
	"strings"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// A type, an interface, a class or an enum declared inside a function is
// in scope in the block that declares it only: two blocks of one test
// may each declare a type of the same name ("{ type Source = …; }
// { type Source = …; }"), which the index names alike.

// BlockScoped reports whether declarations of d's kind are scoped to
// the block they are written in.
func BlockScoped(d *ref.Def) bool {
	switch d.Sym.Kind {
	case extract.KindType, extract.KindInterface, extract.KindClass, extract.KindEnum:
		return true
	}
	return false
}

// BlockSees reports whether the block declaring d, a declaration
// nested in a function, holds line n of d's file (text): the innermost
// '{' left open above d's first line, up to its '}'. A block the text
// does not close within 400 lines holds every line after it.
func BlockSees(text []string, d *ref.Def, n int) bool {
	start := d.Sym.Start
	if start < 1 || start > len(text) || n < 1 {
		return true
	}
	open := 0 // the line of the innermost block left open above d
	for k, depth := start-1, 0; k >= max(1, start-400) && open == 0; k-- {
		l := lex.StripComment(text[k-1])
		for i := len(l) - 1; i >= 0; i-- {
			switch l[i] {
			case '}':
				depth++
			case '{':
				if depth--; depth < 0 {
					open = k
				}
			}
			if open != 0 {
				break
			}
		}
	}
	if open == 0 || n < open {
		return open == 0
	}
	depth := 0
	for k := start; k <= len(text) && k < start+400; k++ {
		depth += strings.Count(lex.StripComment(text[k-1]), "{") - strings.Count(lex.StripComment(text[k-1]), "}")
		if depth < 0 {
			return n <= k // the block closes on line k
		}
	}
	return true
}
