package tables

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/tables/vectors"
)

// TestCopyEmbedCache: a new index takes the vectors and the cache of an
// old one, so a rebuild does not embed again; an old file that is not an
// index leaves the new one as it was.
func TestCopyEmbedCache(t *testing.T) {
	ctx := context.Background()
	old := openTest(t)
	vec := vectors.Encode(nil, []float32{1, 2})
	if _, err := old.w.ExecContext(ctx, `INSERT INTO vectors(owner, surface, model, dim, input_hash, vec) VALUES ('s1', 'code', 'm', 2, ?, ?)`, Hex(1), vec); err != nil {
		t.Fatal(err)
	}
	if _, err := old.w.ExecContext(ctx, `INSERT INTO embed_cache(model, key, vec) VALUES ('m', ?, ?)`, Hex(2), vec); err != nil {
		t.Fatal(err)
	}

	fresh := openTest(t)
	n, err := fresh.Vectors().CopyEmbedCache(ctx, old.Path())
	if err != nil || n != 2 {
		t.Fatalf("CopyEmbedCache = %d, %v; want 2", n, err)
	}
	got, err := fresh.Vectors().Cache().Get(ctx, "m", []uint64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] == nil || got[1] == nil || got[2] != nil || got[0][1] != 2 {
		t.Fatalf("cache after the copy: %v", got)
	}

	text := filepath.Join(t.TempDir(), "index.db")
	if err := os.WriteFile(text, []byte("not a database"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := openTest(t)
	if n, err := other.Vectors().CopyEmbedCache(ctx, text); err == nil {
		t.Fatalf("copy from a text file: %d, no error", n)
	}
	var rows int
	if err := other.SQL().QueryRow(`SELECT count(*) FROM embed_cache`).Scan(&rows); err != nil || rows != 0 {
		t.Fatalf("after a failed copy: %d rows, %v", rows, err)
	}
	// The connection is usable: the old file is detached.
	if err := other.Writer().SetMeta(ctx, map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
}

// TestHeaderProblem: what the header says about files of every kind.
func TestHeaderProblem(t *testing.T) {
	db := openTest(t)
	good := db.Path()
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		path          string
		problem, sure bool
	}{
		{good, false, false},
		{filepath.Join(dir, "missing"), false, false},
		{write("empty", nil), false, false},
		{write("text", []byte("hello, world\n")), true, true},
		{write("garbage", append([]byte("not sqlite at all"), make([]byte, 200)...)), true, true},
		{write("half", data[:len(data)/2]), true, false},
	}
	for _, tc := range cases {
		problem, suspect, err := HeaderProblem(tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if (problem != "") != tc.problem || (tc.problem && suspect == tc.sure) {
			t.Errorf("%s: problem %q, suspect %v", filepath.Base(tc.path), problem, suspect)
		}
	}
}

// TestQuickCheckWords: the quick check passes a healthy index and finds
// a garbled b-tree page of a word index.
func TestQuickCheckWords(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	f, err := extract.Extract(ctx, "a.go", []byte("package a\n\n// Foo does things.\nfunc Foo() int { return bar() }\n\nfunc Bar() {}\n"), extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, db, []*extract.File{f}, nil)
	if err := QuickCheck(ctx, db.Path()); err != nil {
		t.Fatalf("healthy index: %v", err)
	}
	page := queryInt(t, db, `SELECT rootpage FROM sqlite_schema WHERE name = 'file_words'`)
	size := queryInt(t, db, `PRAGMA page_size`)
	db.Close()
	fh, err := os.OpenFile(db.Path(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteAt(bytes.Repeat([]byte{0xA5}, int(size)), (page-1)*size); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	if err := QuickCheck(ctx, db.Path()); !IsCorrupt(err) {
		t.Fatalf("garbled word index page: QuickCheck = %v", err)
	}
}

func TestIsFull(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("write: %w", syscall.ENOSPC), true},
		{fmt.Errorf("write: %w", syscall.EFBIG), true},
		{errors.New("write batch: database or disk is full"), true},
		{syscall.EACCES, false},
		{nil, false},
	} {
		if got := IsFull(tc.err); got != tc.want {
			t.Errorf("IsFull(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
