package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/tables/postgres/pgtest"
)

// TestShardErrorsNameTheShard: when a shard dies in the middle of a push,
// or is down before a push, a remove or a move, the error names the
// repository, the shard (its name in the catalog) and its address — a
// lost connection's own error names at most a socket — and nothing of the
// push is committed.
func TestShardErrorsNameTheShard(t *testing.T) {
	ctx := context.Background()
	a, b := pgtest.Start(t), pgtest.Start(t)
	urls := databases(t, a, "catalog", "facts")
	if err := Init(ctx, urls[0], []string{urls[1], b.URL}); err != nil {
		t.Fatal(err)
	}
	cat, err := Open(ctx, urls[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cat.Close)
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.go": goA, "b.go": goB, "c.py": pyC})
	// Placement takes the shard with the fewest bytes: one, then two.
	if _, one := push(t, cat, root, "acme/one"); one.Shard != "shard1" {
		t.Fatalf("acme/one on %s, want shard1", one.Shard)
	}
	_, two := push(t, cat, root, "acme/two")
	if two.Shard != "shard2" {
		t.Fatalf("acme/two on %s, want shard2", two.Shard)
	}
	shard2 := fmt.Sprintf("shard shard2 (127.0.0.1:%d/postgres)", b.Port)
	check := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %q", what, err, want)
		}
	}

	p, err := cat.BeginPush(ctx, "acme/two", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Push(ctx, p, root, indexer.Options{Workers: 1, Force: true}); err != nil {
		t.Fatal(err)
	}
	if err := b.Stop(); err != nil {
		t.Fatal(err)
	}
	_, err = p.Commit(ctx, "")
	check("commit after the shard died", err, "push acme/two on "+shard2+": ")
	if !IsUnavailable(err) {
		t.Errorf("commit after the shard died: %v is not IsUnavailable", err)
	}

	_, err = cat.BeginPush(ctx, "acme/two", nil)
	check("push to a stopped shard", err, "push acme/two on "+shard2+": ")
	check("remove from a stopped shard", cat.Remove(ctx, "acme/two"), "remove acme/two on "+shard2+": ")
	_, err = cat.Move(ctx, "acme/one", "shard2")
	check("move to a stopped shard", err, "move acme/one: "+shard2+": ")

	if err := b.Restart(); err != nil {
		t.Fatal(err)
	}
	if got, err := cat.Repo(ctx, All, "acme/two"); err != nil || got.Snapshot != two.Snapshot {
		t.Errorf("after the failed push: %+v %v, want snapshot %d still", got, err, two.Snapshot)
	}
}
