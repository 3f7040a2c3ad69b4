package tables

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
)

// benchTree is the source tree the tree benchmarks read:
// VIBERAG_BENCH_TREE when it is set (e.g. /usr/lib/python3.11), else this
// repository's own tree, real code every clone has.
func benchTree(b *testing.B) string {
	if root := os.Getenv("VIBERAG_BENCH_TREE"); root != "" {
		return root
	}
	return testkit.Root(b)
}

// benchIndex is the index the index benchmarks read: VIBERAG_BENCH_INDEX
// (an index.db of this schema) when it is set, else an index of benchTree
// written for the benchmark.
func benchIndex(b *testing.B) string {
	if path := os.Getenv("VIBERAG_BENCH_INDEX"); path != "" {
		return path
	}
	files, _ := extractTree(b, benchTree(b))
	path := filepath.Join(b.TempDir(), "index.db")
	db, err := Open(context.Background(), path, OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for i := 0; i < len(files); i += 200 {
		if err := db.Writer().Write(context.Background(), files[i:min(i+200, len(files))], nil); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}
