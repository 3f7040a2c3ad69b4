package resolve

import (
	"strings"
	"testing"

	"github.com/viberag/viberag/query/resolve/imports"
	"github.com/viberag/viberag/query/resolve/lex"
)

// FuzzRefReaders feeds arbitrary source text to the resolver's line
// readers (every file of a repository is untrusted input to them): none
// may panic or loop, whatever the brackets, quotes and offsets.
func FuzzRefReaders(f *testing.F) {
	for _, seed := range []struct{ src, name string }{
		{"import { a as b, type C } from './x'\nexport * from '../y'\nconst v = new C<T>({ k: 1 } as K)\nv.k", "k"},
		{"from .m import f as f\nclass A(B, m.C, metaclass=M):\n    def f(self, x: T = 1) -> U:\n        self.x = T(a[1], (2,\n 3))\n", "x"},
		{"func (c *Context) Get(k string) (any, bool) {\n\treturn c.m[k]\n}\n", "Get"},
		{"type A = { [k: string]: (x: B) => C<D['e']> } & (F | G)\nfunction f(cb: (x: A) => void): A[] {", "A"},
		{"x = ((((\n'\"\n}}]])", "x"},
		{"const [, info] = await run<R<[A, B]>>(x)\nconst { a: { b } } = y\nimport('./z'); require(\"../w\")\ndeclare module 'm' {", "info"},
	} {
		f.Add(seed.src, seed.name)
	}
	f.Fuzz(func(t *testing.T, src, name string) {
		if len(src) > 4096 || len(name) > 64 {
			return
		}
		text := strings.Split(src, "\n")
		for _, lang := range []string{"go", "python", "typescript"} {
			imports.Read(lang, text)
		}
		typeNames(src)
		skipTypeArgs(src)
		funcTypeParams(src)
		tsElement(src)
		tsUnwrap(src)
		literalValue(src)
		tsSplitTop(src, ",|&")
		splitTop(src, ',')
		pySegments(src)
		pyLiteral(src)
		lex.ClassBases(src)
		stripTSExt(src)
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
			lex.ParamNames(line, name)
			pyParams(line, name)
			pyBindingOn(line, name)
			pyNarrowed(line, name)
			pyComprehension(line, name)
			PyReexport(line, name)
			pyBindsName(line, name)
			propertySignature(line)
			tsSpecifiers(line)
			tsModuleLine(line)
			tsPatternKey(line, name)
			declaresName(line, name)
			callOpen(line)
			pyJoin(text, n, line)
			pyBases(text, n)
			readTSBases(text, k, name)
			for i := range min(len(line), 8) {
				closingBracket(line, i)
				pyClose(line, i)
			}
			if name == "" {
				continue
			}
			for _, at := range lex.UseOffsets(line, name) {
				lex.ReadUse(line, at, at+len(name))
				pyReceiver(line, at)
				pyInText(line, at, name)
				innermostBracket(line, at)
				calledAt(line, at+len(name))
				indexedByName(line, at, name)
				if ln, col, ok := openingBrace(text, n, at); ok {
					castAfter(text, ln, col)
				}
			}
		}
	})
}
