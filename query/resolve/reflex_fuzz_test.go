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
// TypeScript's readers have a fuzz test of their own (package typescript).
func FuzzRefReaders(f *testing.F) {
	for _, seed := range []struct{ src, name string }{
		{"from .m import f as f\nclass A(B, m.C, metaclass=M):\n    def f(self, x: T = 1) -> U:\n        self.x = T(a[1], (2,\n 3))\n", "x"},
		{"func (c *Context) Get(k string) (any, bool) {\n\treturn c.m[k]\n}\n", "Get"},
		{"x = ((((\n'\"\n}}]])", "x"},
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
		splitTop(src, ',')
		pySegments(src)
		pyLiteral(src)
		lex.ClassBases(src)
		stripTSExt(src)
		for k, line := range text {
			n := k + 1
			lex.ParamNames(line, name)
			pyParams(line, name)
			pyBindingOn(line, name)
			pyNarrowed(line, name)
			pyComprehension(line, name)
			PyReexport(line, name)
			pyBindsName(line, name)
			tsSpecifiers(line)
			tsModuleLine(line)
			pyJoin(text, n, line)
			pyBases(text, n)
			for i := range min(len(line), 8) {
				pyClose(line, i)
			}
			if name == "" {
				continue
			}
			for _, at := range lex.UseOffsets(line, name) {
				lex.ReadUse(line, at, at+len(name))
				lex.IndexedByName(line, at, name)
				pyReceiver(line, at)
				pyInText(line, at, name)
				imports.PyFromAt(line, at, name)
				imports.Aliased(line, at+len(name))
				pyKeywordAt(line, at+len(name))
				pyCallAround(text, n, at)
				lex.BlankQuoted(line)
				pySubscript(line[at:])
			}
		}
	})
}
