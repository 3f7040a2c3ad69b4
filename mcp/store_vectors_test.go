package mcp

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/viberag/viberag/embed/embedtest"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables/postgres"
)

// TestStoreVectors: a store server with an embedder searches a repository
// pushed with vectors of its model with them, and one pushed without
// lexically, saying why.
func TestStoreVectors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	m, err := embedtest.Load(dir, embedtest.Model{Rows: 4096, Dim: 32, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cat, _ := indextest.Store(t, 0)
	c, err := postgres.Open(ctx, cat)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, r := range []struct {
		name    string
		vectors bool
	}{{"acme/vec", true}, {"acme/plain", false}} {
		root := goRepo(t, "netx")
		src := postgres.NoVectors
		if r.vectors {
			db, err := indexer.Open(ctx, filepath.Join(t.TempDir(), indexer.IndexFile), indexer.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := indexer.Run(ctx, db, root, indexer.Options{Workers: 1, Embedder: m, Calibrate: query.KeepCalibrated}); err != nil {
				t.Fatal(err)
			}
			src = db.Reader()
		}
		p, err := c.BeginPush(ctx, r.name, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := indexer.Push(ctx, p, root, indexer.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if w, err := p.WriteVectors(ctx, src); err != nil || (w.Stored > 0) != r.vectors {
			t.Fatalf("%s: WriteVectors = %+v, %v", r.name, w, err)
		}
		if _, err := p.Commit(ctx, res.Commit); err != nil {
			t.Fatal(err)
		}
	}
	tok, err := c.CreateToken(ctx, []string{"**"}, "all")
	if err != nil {
		t.Fatal(err)
	}
	st, err := postgres.OpenStore(ctx, cat, postgres.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	ln, err := ListenStore("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStoreServer(st, StoreServerOptions{Embedder: m})
	serveUntilEnd(t, ln, nil, func(ctx context.Context, ln net.Listener) error { return s.ServeHTTP(ctx, ln, HTTPOptions{}) })
	cs := testkit.HTTPSession(t, "http://"+ln.Addr().String()+HTTPPath, tok)
	// list_repos shows each repository's vectors and the weights its
	// index measured, pushed with them; searches fuse by them and say so.
	var repos ListReposOut
	testkit.CallOK(t, cs, "list_repos", map[string]any{}, &repos)
	weights := map[string]*RepoVectorsInfo{}
	for _, r := range repos.Repos {
		weights[r.Name] = r.Vectors
	}
	var cal *query.Calibration
	if v := weights["acme/vec"]; v == nil || v.Model != m.ID() {
		t.Errorf("list_repos: acme/vec vectors %+v, want %s", v, m.ID())
	} else if cal = v.Weights; cal == nil || cal.Model != m.ID() {
		t.Errorf("list_repos: acme/vec weights %+v, want its index's calibration", v.Weights)
	}
	if v := weights["acme/plain"]; v != nil {
		t.Errorf("list_repos: acme/plain vectors %+v, want none", v)
	}
	for _, tc := range []struct{ repo, want string }{{"acme/vec", "on (" + m.ID() + ")"}, {"acme/plain", "off: "}} {
		var out SearchOut
		testkit.CallOK(t, cs, "codebase_search", map[string]any{"query": "connects to the server", "intent": "concept", "explain": true,
			"scope": map[string]any{"repo": tc.repo}}, &out)
		if !strings.HasPrefix(out.Vectors, tc.want) {
			t.Errorf("%s: vectors %q, want %q", tc.repo, out.Vectors, tc.want)
		}
		if cal != nil && tc.repo == "acme/vec" && !strings.Contains(out.Vectors, cal.Summary()) {
			t.Errorf("%s: vectors %q, want the weights %q", tc.repo, out.Vectors, cal.Summary())
		}
		vec := 0
		for _, h := range out.Hits {
			if h.Why == nil {
				continue
			}
			for _, ch := range h.Why.Channels {
				if strings.HasPrefix(ch.Channel, "vec_") {
					vec++
				}
			}
		}
		if (vec > 0) != strings.HasPrefix(tc.want, "on") {
			t.Errorf("%s: %d hits found by vector channels (vectors %q)", tc.repo, vec, out.Vectors)
		}
	}
}
