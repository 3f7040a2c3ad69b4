package extract

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestOverloadDoc: an implementation after its overload signatures takes
// the doc above the first one; with none documented, the lookup must
// still end. It was exponential in the undocumented overloads (typeorm's
// MssqlParameter.ts has 35: 22 took 6.9 s, 35 never ended).
func TestOverloadDoc(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		overloads int
	}{
		{"documented", "Makes a parameter.", 40},
		{"undocumented", "", 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("export class P {\n")
			if tc.doc != "" {
				fmt.Fprintf(&b, "    /** %s */\n", tc.doc)
			}
			for i := 0; i < tc.overloads; i++ {
				fmt.Fprintf(&b, "    constructor(value: any, type: \"t%d\")\n", i)
			}
			b.WriteString("    constructor(public value: any, public type: string) {}\n}\n")
			f := extractWithin(t, "p.ts", b.String(), 30*time.Second)
			var last *Symbol
			for i := range f.Symbols {
				if f.Symbols[i].Name == "constructor" {
					last = &f.Symbols[i]
				}
			}
			if last == nil || last.Doc != tc.doc {
				t.Fatalf("implementation = %+v, want doc %q", last, tc.doc)
			}
		})
	}
}

// TestIndexedAccessKeys: the quoted keys of an indexed access type are
// type references of the member's name (a lookup of the member's
// references finds them); a key that is a type, and a value's
// subscript, are not.
func TestIndexedAccessKeys(t *testing.T) {
	src := "type R<T extends A> = T['_def'][\"_config\"][K][number];\n" +
		"type S = M<unknown>['result'];\n" +
		"const v = x['value'];\n"
	f := extractWithin(t, "a.ts", src, 30*time.Second)
	var got []string
	for _, r := range f.Refs {
		if r.Kind == RefType {
			got = append(got, fmt.Sprintf("%s@%d", r.Name, r.StartLine))
		}
	}
	want := "R@1 T@1 A@1 T@1 _def@1 _config@1 K@1 S@2 M@2 result@2"
	if strings.Join(got, " ") != want {
		t.Errorf("type refs = %v, want %s", got, want)
	}
}
