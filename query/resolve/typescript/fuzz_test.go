package typescript

import (
	"strings"
	"testing"

	"github.com/viberag/viberag/query/resolve/lex"
)

// FuzzReaders feeds arbitrary source text to TypeScript's line and
// declaration readers (every file of a repository is untrusted input to
// them): none may panic or loop, whatever the brackets, quotes and
// offsets.
func FuzzReaders(f *testing.F) {
	for _, seed := range []struct{ src, name string }{
		{"import { a as b, type C } from './x'\nexport * from '../y'\nconst v = new C<T>({ k: 1 } as K)\nv.k", "k"},
		{"type A = { [k: string]: (x: B) => C<D['e']> } & (F | G)\nfunction f(cb: (x: A) => void): A[] {", "A"},
		{"const [, info] = await run<R<[A, B]>>(x)\nconst { a: { b } } = y\nimport('./z'); require(\"../w\")\ndeclare module 'm' {", "info"},
	} {
		f.Add(seed.src, seed.name)
	}
	f.Fuzz(func(t *testing.T, src, name string) {
		if len(src) > 4096 || len(name) > 64 {
			return
		}
		text := strings.Split(src, "\n")
		typeNames(src)
		skipTypeArgs(src)
		funcTypeParams(src)
		tsElement(src)
		tsUnwrap(src)
		literalValue(src)
		lex.SplitTop(src, ",|&")
		tsReturnText(src)
		tsAwaited(src)
		tsParamNames(src)
		if base, args := tsTypeArgs(src); base != "" {
			tsSubst(src, tsParamNames(base), args)
		}
		for i := range 3 {
			tsTupleElement(src, i)
		}
		for k, line := range text {
			n := k + 1
			propertySignature(line)
			tsPatternKey(line, name)
			declaresName(line, name)
			callOpen(line)
			readTSBases(text, k, name)
			for i := range min(len(line), 8) {
				closingBracket(line, i)
			}
			if name == "" {
				continue
			}
			for _, at := range lex.UseOffsets(line, name) {
				innermostBracket(line, at)
				PatternDefault(line, at)
				CalledAt(line, at+len(name))
				if ln, col, ok := openingBrace(text, n, at); ok {
					castAfter(text, ln, col)
				}
			}
		}
	})
}
