package extract

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// scannerFiles are the hand-written readers whose loops must always move
// forward (scan/budget.go), and the chunker and identifier splitter, which
// keep the same rule.
var scannerFiles = []string{
	"scan/c.go", "scan/csharp.go", "scan/haskell.go", "scan/swift.go", "scan/markdown.go",
	"scan/scan.go", "scan/skeleton.go", "scan/lexrefs.go", "scan/preprocessor.go",
	"chunk.go", "split.go",
}

// TestScannerLoopsAdvance enforces the scanners' progress invariant in
// their source: inside a loop, a position the loop's condition tests may
// only move by `++`, by `+=` of a positive constant or through
// budget.advance (which stops the file when a step does not move
// forward). Any other assignment — `k = skipX(k)`, `i = close` — is the
// shape of the C# loop that hung on Newtonsoft.Json's ConvertUtils.cs, so
// it fails here until it is written as `k = b.advance(k, skipX(k))`.
func TestScannerLoopsAdvance(t *testing.T) {
	fset := token.NewFileSet()
	for _, name := range scannerFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		type open struct {
			loop *ast.ForStmt
			vars map[string]bool
		}
		var loops []open    // the loops around the node being visited
		var path []ast.Node // every node around it
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				if l := len(loops); l > 0 && path[len(path)-1] == loops[l-1].loop {
					loops = loops[:l-1]
				}
				path = path[:len(path)-1]
				return true
			}
			path = append(path, n)
			if loop, ok := n.(*ast.ForStmt); ok {
				loops = append(loops, open{loop, loopVars(loop)})
				return true
			}
			as, ok := n.(*ast.AssignStmt)
			if !ok || as.Tok == token.DEFINE {
				return true
			}
			for i, l := range as.Lhs {
				id, ok := l.(*ast.Ident)
				if !ok {
					continue
				}
				// the innermost loop whose condition tests the variable
				var loop *ast.ForStmt
				for k := len(loops) - 1; k >= 0; k-- {
					if loops[k].vars[id.Name] {
						loop = loops[k].loop
						break
					}
				}
				if loop == nil || inPart(path, loop.Post) {
					continue
				}
				inc := postInc(loop, id.Name)
				if as.Tok == token.ADD_ASSIGN && positiveConst(as.Rhs[0]) {
					continue
				}
				if as.Tok == token.ASSIGN && len(as.Rhs) == len(as.Lhs) && movesOn(as.Rhs[i], id.Name, inc) {
					continue
				}
				hint := "advance"
				if inc {
					hint = "ahead"
				}
				t.Errorf("%s: loop position %s moves without %s", fset.Position(as.Pos()), id.Name, hint)
			}
			return true
		})
	}
}

// inPart reports whether post lies on path.
func inPart(path []ast.Node, post ast.Stmt) bool {
	if post == nil {
		return false
	}
	for _, n := range path {
		if n == post {
			return true
		}
	}
	return false
}

// loopVars are the plain identifiers a loop's condition tests (for a loop
// without one, those its body assigns and reads before assigning).
func loopVars(loop *ast.ForStmt) map[string]bool {
	vars := map[string]bool{}
	if loop.Cond == nil {
		// `for { … }`: every variable the body assigns with `=` counts.
		ast.Inspect(loop.Body, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && as.Tok == token.ASSIGN {
				for _, l := range as.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						vars[id.Name] = true
					}
				}
			}
			return true
		})
		return vars
	}
	if boundedByConst(loop) {
		return vars // at most a constant number of rounds: nothing to check
	}
	ast.Inspect(loop.Cond, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			for _, a := range n.Args {
				ast.Inspect(a, func(n ast.Node) bool {
					if id, ok := n.(*ast.Ident); ok {
						vars[id.Name] = true
					}
					return true
				})
			}
			return false
		case *ast.SelectorExpr:
			return false // fields are not positions we track
		case *ast.Ident:
			vars[n.Name] = true
		}
		return true
	})
	return vars
}

func positiveConst(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.INT && lit.Value != "0"
}

// movesOn reports whether `v = e` makes progress by construction:
// advance(v, …) or retreat(v, …) (function or budget method), minus one
// when the loop's post statement adds it back (inc); ahead(v, …) in such
// a loop; len(…), the end of
// an ascending scan; a slice of v that drops a constant prefix or its
// last element (a consumed string, a popped stack); append (a list grows,
// no position moves).
func movesOn(e ast.Expr, v string, inc bool) bool {
	if bin, ok := e.(*ast.BinaryExpr); ok && inc && bin.Op == token.SUB {
		if lit, ok := bin.Y.(*ast.BasicLit); ok && lit.Value == "1" {
			e = bin.X // advance(v, …) - 1, then the loop's v++
		}
	}
	switch e := e.(type) {
	case *ast.CallExpr:
		name := ""
		switch f := e.Fun.(type) {
		case *ast.Ident:
			name = f.Name
		case *ast.SelectorExpr:
			name = f.Sel.Name
		}
		switch name {
		case "len", "append":
			return true
		case "advance", "retreat", "ahead":
			if len(e.Args) != 2 || name == "ahead" && !inc {
				return false // ahead may stand still: only the loop's v++ moves on
			}
			switch a := e.Args[0].(type) {
			case *ast.Ident:
				return a.Name == v
			case *ast.BasicLit:
				return a.Value == v // v[advance(0, q):]
			}
		}
	case *ast.SliceExpr:
		if id, ok := e.X.(*ast.Ident); !ok || id.Name != v {
			return false
		}
		if e.Low != nil {
			return positiveConst(e.Low) || movesOn(e.Low, "0", false)
		}
		// v[:len(v)-1]
		if bin, ok := e.High.(*ast.BinaryExpr); ok && bin.Op == token.SUB && positiveConst(bin.Y) {
			if call, ok := bin.X.(*ast.CallExpr); ok && len(call.Args) == 1 {
				if id, ok := call.Args[0].(*ast.Ident); ok && id.Name == v {
					return true
				}
			}
		}
	}
	return false
}

// postInc reports whether loop's post statement is `v++`.
func postInc(loop *ast.ForStmt, v string) bool {
	inc, ok := loop.Post.(*ast.IncDecStmt)
	if !ok || inc.Tok != token.INC {
		return false
	}
	id, ok := inc.X.(*ast.Ident)
	return ok && id.Name == v
}

// boundedByConst reports whether loop runs at most a constant number of
// rounds: `for i := …; … && i < 16 && …; i++`.
func boundedByConst(loop *ast.ForStmt) bool {
	var terms []ast.Expr
	var flatten func(e ast.Expr)
	flatten = func(e ast.Expr) {
		if b, ok := e.(*ast.BinaryExpr); ok && b.Op == token.LAND {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		terms = append(terms, e)
	}
	flatten(loop.Cond)
	for _, e := range terms {
		b, ok := e.(*ast.BinaryExpr)
		if !ok || b.Op != token.LSS || !positiveConst(b.Y) {
			continue
		}
		if id, ok := b.X.(*ast.Ident); ok && postInc(loop, id.Name) {
			if init, ok := loop.Init.(*ast.AssignStmt); ok && init.Tok == token.DEFINE {
				if lit, ok := init.Rhs[0].(*ast.BasicLit); ok && lit.Value == "0" {
					return true
				}
			}
		}
	}
	return false
}
