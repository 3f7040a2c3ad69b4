package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// containingIDs lists the chunks rd names as holding text, in order, with
// their paths, first lines and text.
func containingIDs(t *testing.T, rd *Reader, text string) []string {
	t.Helper()
	var out []string
	err := rd.ChunksContaining(context.Background(), text, scope.Scope{}, func(c *tables.ChunkText) bool {
		if !strings.Contains(tables.ASCIILower(c.Content), tables.ASCIILower(text)) {
			return true // a superset the caller narrows: compare what it keeps
		}
		out = append(out, fmt.Sprintf("%d %s:%d %q %q", c.ID, c.Path, c.StartLine, c.Header, c.Content))
		return true
	})
	if err != nil {
		t.Fatalf("chunks containing %q: %v", text, err)
	}
	return out
}

// TestTextCache: exact text from the readers' cache of chunks' text is
// what the shard finds (ignoring ASCII case, in order, no match across
// two chunks), the cache holds no more than its budget (the repository
// searched least recently leaves), and a repository larger than the
// budget is searched on the shard.
func TestTextCache(t *testing.T) {
	cat, url := newStore(t)
	ctx := context.Background()
	for _, name := range []string{"one", "two"} {
		root := t.TempDir()
		files := map[string]string{}
		for i := range 6 {
			var b strings.Builder
			fmt.Fprintf(&b, "package p\n\n// Handshake %s %d: résumé RETRY retry.\nfunc F%d() {\n\tx := \"ConnTimeout\"\n\t_ = x\n}\n", name, i, i)
			for j := range 30 {
				fmt.Fprintf(&b, "\n// G%d%d does the handshake again.\nfunc G%d%d() int { return %d }\n", i, j, i, j, j)
			}
			files[fmt.Sprintf("f%d.go", i)] = b.String()
		}
		writeTree(t, root, files)
		push(t, cat, root, name)
	}
	_, plain := testReader(t, url, "one", StoreOptions{TextCacheBytes: -1})
	st, cached := testReader(t, url, "one", StoreOptions{})
	if st.text == nil {
		t.Fatal("no text cache by default")
	}
	needles := []string{"handshake", "HANDSHAKE one 3", "résumé", "RÉSUMÉ", "retry.\nfunc", "connTIMEOUT", "}\n\n// G", "nothing like this", "return 7 }"}
	for _, n := range needles {
		want, got := containingIDs(t, plain, n), containingIDs(t, cached, n)
		if !slices.Equal(want, got) {
			t.Errorf("%q: from the cache %q, from the shard %q", n, got, want)
		}
		if n == "handshake" && len(want) < 10 {
			t.Fatalf("%q: %d chunks; the test needs more", n, len(want))
		}
	}
	st.text.mu.Lock()
	one := st.text.repos[cached.Repo().ID]
	st.text.mu.Unlock()
	if one == nil || one.chunks == nil {
		t.Fatal("the repository's text is not in the cache after a search")
	}

	// A budget of a little more than one repository holds the one searched last.
	budget := one.bytes + one.bytes/2
	st2, one2 := testReader(t, url, "one", StoreOptions{TextCacheBytes: budget})
	two, err := st2.Catalog.Repo(ctx, All, "two")
	if err != nil {
		t.Fatal(err)
	}
	two2, err := st2.Reader(ctx, two)
	if err != nil {
		t.Fatal(err)
	}
	containingIDs(t, one2, "handshake")
	if got := containingIDs(t, two2, "handshake two"); len(got) == 0 {
		t.Error(`no chunk of two holds "handshake two"`)
	}
	st2.text.mu.Lock()
	used, n, held := st2.text.used, len(st2.text.repos), st2.text.repos[two.ID] != nil
	st2.text.mu.Unlock()
	if used > budget || n != 1 || !held {
		t.Errorf("cache of %d bytes: %d used by %d repositories (the last searched held: %v); want only it", budget, used, n, held)
	}

	// A budget smaller than the repository: nothing held, the same answers.
	st3, small := testReader(t, url, "one", StoreOptions{TextCacheBytes: one.bytes / 2})
	for _, n := range needles {
		if w, g := containingIDs(t, plain, n), containingIDs(t, small, n); !slices.Equal(w, g) {
			t.Errorf("%q over the budget: %q, from the shard %q", n, g, w)
		}
	}
	st3.text.mu.Lock()
	used = st3.text.used
	st3.text.mu.Unlock()
	if used != 0 {
		t.Errorf("a repository over the budget left %d bytes in the cache", used)
	}
}
