package extract

import (
	"context"
	"os"
	"strings"
	"testing"
)

// PlainReaders swaps a repair reader for the plain tree-sitter one (the
// baseline `viberag eval --plain-readers` measures against) and leaves
// other languages alone.
func TestPlainReaders(t *testing.T) {
	for _, tc := range []struct {
		path      string
		repairing bool
	}{
		{"../fixtures/c/src/queue.c", true},
		{"../fixtures/python/taskq/queue.py", false},
	} {
		src, err := os.ReadFile(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		def, err := Extract(context.Background(), tc.path, src, Options{})
		if err != nil {
			t.Fatal(err)
		}
		plain, err := Extract(context.Background(), tc.path, src, Options{PlainReaders: true})
		if err != nil {
			t.Fatal(err)
		}
		if tc.repairing {
			// The repair reader blanks dead #if branches before its
			// scanner reads the file; the plain reader parses it as is.
			if !strings.Contains(def.ParseProblem, "blanked") || strings.Contains(plain.ParseProblem, "blanked") {
				t.Errorf("%s: problem %q by default, %q with plain readers; want a repair, then none", tc.path, def.ParseProblem, plain.ParseProblem)
			}
			continue
		}
		if def.ParseStatus != plain.ParseStatus || len(def.Symbols) != len(plain.Symbols) {
			t.Errorf("%s: plain readers changed a language without a repair reader: %s/%d vs %s/%d", tc.path,
				def.ParseStatus, len(def.Symbols), plain.ParseStatus, len(plain.Symbols))
		}
	}
}
