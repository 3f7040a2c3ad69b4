package extract

import (
	"context"
	"os"
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
		{"../fixtures/csharp/Mapping/RowReader.cs", true},
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
			if def.ParseStatus != ParseRepaired || plain.ParseStatus == ParseRepaired {
				t.Errorf("%s: status %s by default, %s with plain readers; want repaired, then not", tc.path, def.ParseStatus, plain.ParseStatus)
			}
			continue
		}
		if def.ParseStatus != plain.ParseStatus || len(def.Symbols) != len(plain.Symbols) {
			t.Errorf("%s: plain readers changed a language without a repair reader: %s/%d vs %s/%d", tc.path,
				def.ParseStatus, len(def.Symbols), plain.ParseStatus, len(plain.Symbols))
		}
	}
}
