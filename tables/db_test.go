package tables

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/extract"
)

// TestPageSize: Open creates a file with the page size asked for, an
// existing file keeps its own, and a size SQLite cannot use is refused.
func TestPageSize(t *testing.T) {
	ctx := context.Background()
	pageSize := func(db *DB) int64 { t.Helper(); return queryInt(t, db, `PRAGMA page_size`) }
	for _, tc := range []struct {
		create, reopen int
		want           int64
	}{
		{0, 0, DefaultPageSize},
		{SmallPageSize, 0, SmallPageSize},
		{SmallPageSize, DefaultPageSize, SmallPageSize},
		{0, SmallPageSize, DefaultPageSize},
	} {
		t.Run(fmt.Sprintf("%d-%d", tc.create, tc.reopen), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "index.db")
			db, err := Open(ctx, path, OpenOptions{PageSize: tc.create})
			if err != nil {
				t.Fatal(err)
			}
			mustWrite(t, db, []*extract.File{synthFile("a.go", 1, 40)}, nil)
			db.Close()
			if db, err = Open(ctx, path, OpenOptions{PageSize: tc.reopen}); err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if got := pageSize(db); got != tc.want {
				t.Errorf("page size %d, want %d", got, tc.want)
			}
			mustWrite(t, db, []*extract.File{synthFile("b.go", 2, 40)}, nil)
			checkIntegrity(t, db)
		})
	}
	for _, bad := range []int{-1, 100, 1000, 1 << 17} {
		if db, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), OpenOptions{PageSize: bad}); err == nil {
			db.Close()
			t.Errorf("page size %d: no error", bad)
		}
	}
}

func TestPageSizeFor(t *testing.T) {
	for _, tc := range []struct {
		bytes int64
		want  int
	}{
		{-1, DefaultPageSize},
		{0, SmallPageSize},
		{SmallTreeBytes, SmallPageSize},
		{SmallTreeBytes + 1, DefaultPageSize},
	} {
		if got := PageSizeFor(tc.bytes); got != tc.want {
			t.Errorf("PageSizeFor(%d) = %d, want %d", tc.bytes, got, tc.want)
		}
	}
}
