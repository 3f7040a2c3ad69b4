package typescript

import (
	"context"
	"slices"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
	"github.com/viberag/viberag/query/resolve/lex"
	"github.com/viberag/viberag/query/resolve/ref"
)

// The runtime's TransformStream<I, O> calls its transformer's
// transform(chunk, controller) with the chunks written to the stream:
// values of I. A construction stating no type arguments has I inferred
// from its context; passed to src.pipeThrough(…), whose parameter is a
// ReadableWritablePair<T, R> for src a ReadableStream<R>, I is R.

var (
	// tsTransformNew matches the construction of the runtime's
	// TransformStream up to the '(' its transformer literal follows,
	// the type arguments it states (if any) the group.
	tsTransformNew = lazyregexp.New(`\bnew\s+TransformStream\s*(<.+>)?\s*\(\s*$`)
	// tsPipeThrough matches what precedes a stream's pipeThrough(: the
	// receiver a name ("src.pipeThrough(", "x = src.pipeThrough("), or
	// nothing, the receiver ending the line above (".pipeThrough(").
	tsPipeThrough = lazyregexp.New(`(?:^|[^\p{L}\p{N}_$.?)\]]\s*)([\p{L}_$][\p{L}\p{N}_$]*)?\s*\.\s*pipeThrough\s*\(\s*$`)
	// tsChainHead matches a line ending in the name a chain below it
	// goes on from: "return src", "src", "x = src".
	tsChainHead = lazyregexp.New(`^\s*(?:return\s+|[\p{L}_$][\p{L}\p{N}_$]*\s*=\s*)?([\p{L}_$][\p{L}\p{N}_$]*)\s*$`)
	// tsBoundByCall matches a local bound from one call on its line: the
	// local, the callee, the argument list ("const src = f(g());").
	tsBoundByCall = lazyregexp.New(`^\s*(?:const|let|var)\s+([\p{L}_$][\p{L}\p{N}_$]*)\s*=\s*([\p{L}_$][\p{L}\p{N}_$]*)\s*\((.*)\)\s*;?\s*$`)
)

// tsTransformTyper reads the chunks of the runtime's TransformStream
// for the type evaluator.
type tsTransformTyper struct{ te *tsTypeEval }

// tsTransformChunkType returns the type of v at r when v is the untyped
// first parameter of the transform method of the literal a construction
// of the runtime's TransformStream is given (the nearest method enclosing
// r that binds v, tsScanLines up at most): its stated first type
// argument, or the element type of the runtime ReadableStream the
// construction is piped from; "" when the text does not say.
func (tt tsTransformTyper) tsTransformChunkType(ctx context.Context, r *ref.Line, v string) (string, int64) {
	text, err := tt.te.rr.Text(ctx, r.FileID)
	if err != nil || r.Line > len(text) {
		return "", 0
	}
	for n := r.Line; n >= 1 && n > r.Line-tsScanLines; n-- {
		l := lex.StripComment(text[n-1])
		var m []string
		if strings.Contains(l, "transform") {
			m = tsMethodHead.FindStringSubmatch(l)
		}
		if m == nil || m[1] != "transform" {
			if n < r.Line && declaresName(l, v) {
				return "", 0 // another binding of the name
			}
			continue
		}
		if strings.TrimSpace(lex.SplitTop(m[2], ",")[0]) != v {
			return "", 0 // v is not the chunk
		}
		if !openThrough(text, n, strings.LastIndexByte(l, '{')+1, r.Line) || tt.te.tsBindsBetween(text, n+1, r.Line, v) {
			return "", 0 // a method closed above r, or v bound again in it
		}
		return tt.tsTransformInput(ctx, r, text, n, strings.Index(l, "("))
	}
	return "", 0
}

// tsTransformInput returns I for the TransformStream<I, O> constructed
// with the literal holding the method whose parameter list opens at
// offset at of line n.
func (tt tsTransformTyper) tsTransformInput(ctx context.Context, r *ref.Line, text []string, n, at int) (string, int64) {
	if !tt.te.decl.tsRuntimeType(ctx, r.FileID, "TransformStream") {
		return "", 0
	}
	bl, bc, ok := openingBrace(text, n, at)
	if !ok {
		return "", 0
	}
	line, before := bl, strings.TrimRight(lex.StripComment(text[bl-1])[:bc], " \t")
	if before == "" && bl > 1 {
		line, before = bl-1, strings.TrimRight(lex.StripComment(text[bl-2]), " \t")
	}
	loc := tsTransformNew.FindStringSubmatchIndex(before)
	if loc == nil {
		return "", 0
	}
	if loc[2] >= 0 {
		if _, args := tsTypeArgs("TransformStream" + before[loc[2]:loc[3]]); len(args) > 0 {
			return tt.te.tsUtility(ctx, r.FileID, args[0])
		}
		return "", 0
	}
	pre := strings.TrimRight(before[:loc[0]], " \t")
	if pre == "" && line > 1 {
		line, pre = line-1, strings.TrimRight(lex.StripComment(text[line-2]), " \t")
	}
	p := tsPipeThrough.FindStringSubmatch(pre)
	if p == nil {
		return "", 0
	}
	src := p[1]
	if src == "" {
		if strings.TrimSpace(pre) != strings.TrimSpace(p[0]) || line < 2 {
			return "", 0 // a chain that does not start on the line above
		}
		h := tsChainHead.FindStringSubmatch(lex.StripComment(text[line-2]))
		if h == nil {
			return "", 0
		}
		src, line = h[1], line-1
	}
	pipe := *r
	pipe.Line = line // the source's names are those in scope where the pipe is written
	t, in := tt.tsStreamSource(ctx, &pipe, text, src)
	name, args := tsTypeArgs(t)
	if name != "ReadableStream" || len(args) != 1 || !tt.te.decl.tsRuntimeType(ctx, in, name) {
		return "", 0
	}
	return tt.te.tsUtility(ctx, in, args[0])
}

// tsStreamSource returns the type of src at r: when src is a local bound
// from a call of a generic function of the repository ("const src =
// f(g())"), the function's stated result with its type parameters
// inferred from the arguments (tsInferCall); the type stated for src
// otherwise.
func (tt tsTransformTyper) tsStreamSource(ctx context.Context, r *ref.Line, text []string, src string) (string, int64) {
	for n := r.Line; n >= max(r.EnclStart, 1) && n > r.Line-tsScanLines; n-- {
		l := lex.StripComment(text[n-1])
		if m := tsBoundByCall.FindStringSubmatch(l); m != nil && m[1] == src && closingBracket("("+m[3]+")", 0) == len(m[3])+1 {
			at := *r
			at.Line = n
			return tt.tsInferCall(ctx, &at, m[2], m[3])
		}
		if declaresName(l, src) {
			break // bound otherwise: its stated type
		}
	}
	return tt.te.tsTypeOf(ctx, r, src)
}

// tsInferCall returns the result function fn (a function of the
// repository) states for a call at r with argument list args, each of
// its type parameters given by an argument whose parameter states it
// alone ("v: T") or as a type argument of the generic type the
// argument's stated type instantiates ("it: AsyncIterable<T, void>" for
// an AsyncIterable<E, void>); "" when a parameter the result names is
// not given so.
func (tt tsTransformTyper) tsInferCall(ctx context.Context, r *ref.Line, fn, args string) (string, int64) {
	did, dname, ok := tt.te.decl.tsDeclFile(ctx, r.FileID, fn)
	if !ok {
		return "", 0
	}
	sig, ok := tsSignature(ctx, tt.te.decl, did, dname)
	if !ok {
		return "", 0
	}
	ret := tsStatedReturn(sig, dname)
	tparams := tt.te.decl.tsDeclParams(ctx, did, dname)
	_, rargs := tsTypeArgs(ret)
	if len(rargs) != 1 {
		return "", 0
	}
	k := slices.Index(tparams, rargs[0])
	if k < 0 {
		for _, p := range tparams {
			if tsHasWord(ret, p) {
				return "", 0
			}
		}
		return ret, did
	}
	ptypes, ok := tsParamTypes(sig, dname)
	if !ok {
		return "", 0
	}
	given := lex.SplitTop(args, ",")
	for i, pt := range ptypes {
		if i >= len(given) {
			break
		}
		at, ain := tt.tsArgType(ctx, r, strings.TrimSpace(given[i]))
		if at == "" {
			continue
		}
		if pt == rargs[0] {
			return tsSwapArg(ret, at), ain
		}
		pn, pa := tsTypeArgs(pt)
		an, aa := tsTypeArgs(at)
		if pn == "" || pn != an || len(pa) != len(aa) {
			continue
		}
		if j := slices.Index(pa, rargs[0]); j >= 0 {
			return tsSwapArg(ret, aa[j]), ain
		}
	}
	return "", 0
}

// tsSwapArg returns generic type t ("N<T>") given the one type argument a.
func tsSwapArg(t, a string) string {
	return leadingTypeName(strings.TrimSpace(t)) + "<" + a + ">"
}

// tsArgType returns the stated type of argument a at r: a call of a
// function of the repository with no arguments ("g()"), or a chain of
// names.
func (tt tsTransformTyper) tsArgType(ctx context.Context, r *ref.Line, a string) (string, int64) {
	if fn, ok := strings.CutSuffix(a, "()"); ok && leadingTypeName(fn) == fn && fn != "" {
		return tt.te.tsFuncReturn(ctx, r.FileID, fn)
	}
	if a == "" || tsChainEnd.FindString(a) != a {
		return "", 0
	}
	t, in, _ := tt.te.tsChainType(ctx, r, tsChainSep.Split(a, -1))
	return t, in
}
