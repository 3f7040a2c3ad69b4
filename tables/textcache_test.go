package tables

import (
	"context"
	"strings"
	"testing"

	"github.com/viberag/viberag/extract"
)

// A file re-written with text of the same length keeps its id and its
// chunks' byte ranges: its snippets must come from the new text, not
// from the decompressed old one the DB keeps for later searches.
func TestTextCacheNeverServesAnOldText(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	for i, body := range []string{"return 1", "return 2", "return 1"} {
		f, err := extract.Extract(ctx, "a.py", []byte("def one():\n    "+body+"\n"), extract.Options{})
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, db, []*extract.File{f}, nil)
		ids := queryInts(t, db, `SELECT id FROM chunks`)
		for round := 0; round < 2; round++ { // the second read comes from the cache
			contents, err := db.Reader().ChunkContents(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, c := range contents {
				all = append(all, c)
			}
			if got := strings.Join(all, ""); !strings.Contains(got, body) {
				t.Fatalf("write %d, read %d: chunks %q lack %q", i, round, got, body)
			}
		}
	}
}

func TestTextCacheBound(t *testing.T) {
	c := newTextCache(100)
	blob := func(i int) []byte { return []byte{byte(i)} }
	for i := range 5 {
		_, sum, ok := c.get(int64(i), blob(i))
		if ok {
			t.Fatalf("file %d cached before it was put", i)
		}
		c.put(int64(i), sum, "", strings.Repeat("x", 24))
	}
	if c.size > 100 {
		t.Fatalf("size %d over the bound 100", c.size)
	}
	if _, _, ok := c.get(0, blob(0)); ok {
		t.Error("the oldest text survived eviction")
	}
	if text, _, ok := c.get(4, blob(4)); !ok || len(text) != 24 {
		t.Errorf("the newest text: %q, %v", text, ok)
	}
	if _, _, ok := c.get(4, blob(9)); ok {
		t.Error("a text served for another blob")
	}
	c.put(7, 0, "", strings.Repeat("y", 26)) // over a quarter of the bound: not kept
	if _, ok := c.texts[7]; ok {
		t.Error("a text over a quarter of the bound was kept")
	}
}

// A text kept with the content hash it was made from is served for that
// hash only; a text kept without one is never served by hash.
func TestTextCacheByHash(t *testing.T) {
	c := newTextCache(1000)
	c.put(1, 11, "aaaa", "text one")
	c.put(2, 22, "", "text two")
	if got, ok := c.getByHash(1, "aaaa"); !ok || got != "text one" {
		t.Errorf("file 1 by its hash: %q, %v", got, ok)
	}
	for _, k := range []struct {
		id   int64
		hash string
	}{{1, "bbbb"}, {1, ""}, {2, ""}, {3, "aaaa"}} {
		if got, ok := c.getByHash(k.id, k.hash); ok {
			t.Errorf("file %d, hash %q: served %q", k.id, k.hash, got)
		}
	}
}
