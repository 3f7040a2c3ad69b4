package tables

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/extract"
)

func TestScratchStats(t *testing.T) {
	root := os.Getenv("VIBERAG_BENCH_TREE")
	if root == "" {
		t.Skip()
	}
	var files, syms, chunks, refs, idents, rows int
	kinds := map[string]int{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		src, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		f, err := extract.Extract(context.Background(), rel, src, extract.Options{})
		if err != nil || f == nil {
			return nil
		}
		files++
		syms += len(f.Symbols)
		chunks += len(f.Chunks)
		refs += len(f.Refs)
		for _, r := range f.Refs {
			kinds[r.Kind]++
			if r.Kind == "ident" {
				idents++
			}
		}
		rows += rowCount(f)
		return nil
	})
	t.Logf("files %d symbols %d chunks %d refs %d (kinds %v) rows after dedupe %d", files, syms, chunks, refs, kinds, rows)
}
