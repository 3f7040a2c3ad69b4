package mcp

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/tables"
)

// TestRunnerQueuesOnce checks the run discipline: one run at a time, one
// queued run that every further request joins (upgraded to forced when
// one asks), join returning the running run, cancel dropping both.
func TestRunnerQueuesOnce(t *testing.T) {
	root := copyFixture(t, "python")
	genTree(t, root, 300)
	ctx := context.Background()
	db, err := tables.Open(ctx, filepath.Join(t.TempDir(), "index.db"), tables.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := newRunner(ctx, db, root, indexer.Options{Workers: 1})
	ended := 0
	r.onDone = func(*run) { ended++ } // runs end one after another

	r1 := r.schedule(false)
	r2 := r.schedule(false)
	r3 := r.schedule(true)
	if r1 == r2 || r2 != r3 || !r3.force {
		t.Fatalf("queue: r1 %p r2 %p r3 %p force %v", r1, r2, r3, r3.force)
	}
	if j := r.join(false); j != r1 {
		t.Errorf("join(false) while r1 runs returned another run")
	}
	if j := r.join(true); j != r2 {
		t.Errorf("join(true) while an unforced run runs did not return the queued forced run")
	}
	<-r1.done
	<-r2.done
	r.wait()
	if _, res, err, _, _ := r2.snapshot(); err != nil || res.Parsed < 300 {
		t.Errorf("forced run: %+v %v", res, err)
	}
	if ended != 2 {
		t.Errorf("%d runs ended, want 2", ended)
	}

	// Cancel stops the running run and drops the queued one.
	r4 := r.schedule(true)
	r5 := r.schedule(false)
	if !r.cancel() {
		t.Fatal("cancel found nothing to cancel")
	}
	<-r4.done
	<-r5.done
	r.wait()
	if !r4.canceled() || !r5.canceled() {
		t.Errorf("after cancel: r4 %v r5 %v", r4.err, r5.err)
	}
	if cur, next, _ := r.state(); cur != nil || next != nil {
		t.Errorf("runner not idle after cancel")
	}
	if r.cancel() {
		t.Error("cancel on an idle runner reported a cancellation")
	}
}
