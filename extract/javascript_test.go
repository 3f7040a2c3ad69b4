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
