package typescript

import (
	"context"
	"strings"

	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// Function types reached through generic aliases of generic aliases:
// "type Op<A, B> = Unary<Box<A>, Box<B>>; type Unary<S, R> = (source:
// S) => R" makes Op<X, Y> the function type "(source: Box<X>) =>
// Box<Y>", as the language instantiates each alias with the arguments
// it is given.

// tsAliasReader follows alias chains for the type evaluator.
type tsAliasReader struct {
	te *tsTypeEval
}

// tsAliasHops bounds how many aliases tsAliasFunc follows.
const tsAliasHops = 4

// tsAliasHop is one alias followed: the arguments it was given, written
// in file argsIn, and the file declaring it, where the rest of its
// right-hand side is written.
type tsAliasHop struct {
	args   []string
	argsIn int64
	did    int64
}

// tsAliasChain is the function type an alias chain instantiates and the
// hops followed to it.
type tsAliasChain struct {
	fn   string
	hops []tsAliasHop
}

// fileOf returns the file a type written in the chain's function type
// names its leading type in: the innermost alias's file, unless the
// name came in through an argument, then the file the argument is
// written in, followed outward.
func (c tsAliasChain) fileOf(t string) int64 {
	name := strings.Split(leadingTypeName(strings.TrimSpace(t)), ".")[0]
	for k := len(c.hops) - 1; k >= 0; k-- {
		if !tsHasWord(strings.Join(c.hops[k].args, ","), name) {
			return c.hops[k].did
		}
		if k == 0 {
			return c.hops[0].argsIn
		}
	}
	return 0
}

// tsAliasFunc returns the function type t (written in file id) stands
// for when t names a generic alias of the repository whose right-hand
// side, given t's arguments, names another such alias, on to a function
// type, every alias's parameters replaced by its arguments. ok is false
// when the chain ends elsewhere, or t is no alias given arguments.
func (ar tsAliasReader) tsAliasFunc(ctx context.Context, id int64, t string) (tsAliasChain, bool) {
	var c tsAliasChain
	cur, in := tsReturnText(t), id // a stated return read up to its body's '{'
	for range tsAliasHops {
		if strings.HasPrefix(cur, "(") {
			if funcTypeParams(cur) == nil || len(c.hops) < 2 {
				// One hop is the alias's own function type, which the
				// readers of aliases take as written.
				return tsAliasChain{}, false
			}
			c.fn = cur
			return c, true
		}
		name, args := tsTypeArgs(cur)
		if len(args) == 0 && len(c.hops) == 0 {
			return tsAliasChain{}, false
		}
		rhs, did, dname, ok := ar.te.decl.tsAliasRHS(ctx, in, name)
		if !ok {
			return tsAliasChain{}, false
		}
		c.hops = append(c.hops, tsAliasHop{args: args, argsIn: in, did: did})
		cur = strings.TrimSpace(tsSubst(rhs, ar.te.decl.tsDeclParams(ctx, did, dname), args))
		// The next alias's name is written in this alias's file unless an
		// argument brought it.
		in = c.fileOf(cur)
	}
	return tsAliasChain{}, false
}

// tsAliasFuncParams returns the parameters' types of the function type
// t's alias chain instantiates (tsAliasFunc) and the file the first
// one's type is written in; nil when t is no such alias.
func (ar tsAliasReader) tsAliasFuncParams(ctx context.Context, id int64, t string) ([]string, int64) {
	c, ok := ar.tsAliasFunc(ctx, id, tsUnwrap(t))
	if !ok {
		return nil, 0
	}
	params := funcTypeParams(c.fn)
	if len(params) == 0 {
		return nil, 0
	}
	return params, c.fileOf(params[0])
}

// tsAliasFuncReturn returns the result type of the function type t's
// alias chain instantiates (tsAliasFunc) and the file it is written in,
// "" when t is no such alias.
func (ar tsAliasReader) tsAliasFuncReturn(ctx context.Context, id int64, t string) (string, int64) {
	c, ok := ar.tsAliasFunc(ctx, id, tsUnwrap(t))
	if !ok {
		return "", 0
	}
	end := closingBracket(c.fn, 0)
	rest, found := strings.CutPrefix(strings.TrimSpace(c.fn[end+1:]), "=>")
	if !found {
		return "", 0
	}
	rest = strings.TrimSpace(rest)
	if parts := lex.SplitTop(rest, ";"); len(parts) > 0 {
		rest = strings.TrimSpace(parts[0])
	}
	return rest, c.fileOf(rest)
}

// tsCalledCallType returns the type of e when e calls what a call
// returns ("share()(source)"): the result the first call's stated type,
// a function type or an alias chain to one, gives; "" when e is no such
// call or the reader states nothing for the inner call.
func (ar tsAliasReader) tsCalledCallType(ctx context.Context, r *ref.Line, e string) (string, int64) {
	e = strings.TrimRight(strings.TrimSpace(e), "!; ")
	if !strings.HasSuffix(e, ")") || ar.te.depth > 4 {
		return "", 0
	}
	open := -1
	for i := 0; i < len(e); i++ {
		if e[i] != '(' {
			continue
		}
		end := closingBracket(e, i)
		if end < 0 {
			return "", 0
		}
		if end == len(e)-1 {
			open = i
			break
		}
		i = end
	}
	callee := strings.TrimRight(e[:max(open, 0)], " \t")
	if open <= 0 || !strings.HasSuffix(callee, ")") {
		return "", 0
	}
	ar.te.depth++
	defer func() { ar.te.depth-- }()
	t, in := ar.te.tsExprType(ctx, r, callee)
	if t == "" {
		return "", 0
	}
	return ar.te.tsFuncTypeReturn(ctx, in, t)
}

// tsCallResult returns the result type the call signature of interface
// t (written in file id) states ("interface B<R> { (o: O): Built<R>; }"),
// its type parameters given t's arguments, and the file the result's
// type is written in: calling a value of t gives it. "" when t states no
// call signature the reader cuts a result from.
func (ar tsAliasReader) tsCallResult(ctx context.Context, id int64, t string) (string, int64) {
	name, args := tsTypeArgs(tsUnwrap(strings.TrimSpace(t)))
	if name == "" || strings.Contains(name, ".") {
		return "", 0
	}
	did, dname, ok := ar.te.decl.tsDeclFile(ctx, id, name)
	if !ok {
		return "", 0
	}
	sig, end, ok := tsCallSignatureText(ctx, ar.te.decl, did, dname)
	if !ok {
		return "", 0
	}
	rest, _ := strings.CutPrefix(strings.TrimSpace(sig[end+1:]), ":")
	res := strings.TrimSpace(lex.SplitTop(rest, ";")[0])
	if res == "" || bracketDepth(res) != 0 || strings.Count(res, "<") != strings.Count(res, ">")-strings.Count(res, "=>") {
		return "", 0 // the result goes on past the lines read
	}
	res = tsSubst(res, ar.te.decl.tsDeclParams(ctx, did, dname), args)
	if tsHasWord(strings.Join(args, ","), leadingTypeName(res)) {
		return res, id
	}
	return res, did
}
