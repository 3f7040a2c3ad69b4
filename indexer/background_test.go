package indexer

import (
	"context"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
)

// TestRunnerQueuesOnce checks the run discipline: one run at a time, one
// queued run that every further request joins (upgraded to forced when
// one asks), Join returning the running run, Cancel dropping both.
func TestRunnerQueuesOnce(t *testing.T) {
	root := testkit.Fixture(t, "python")
	genTree(t, root, 300)
	ctx := context.Background()
	db := openDB(t, t.TempDir())
	r := NewRunner(ctx, db, root, Options{Workers: 1})
	ended := 0
	r.OnDone = func(*Job) { ended++ } // runs end one after another

	r1 := r.Schedule(false)
	r2 := r.Schedule(false)
	r3 := r.Schedule(true)
	if r1 == r2 || r2 != r3 || !r3.Snapshot().Force {
		t.Fatalf("queue: r1 %p r2 %p r3 %p force %v", r1, r2, r3, r3.Snapshot().Force)
	}
	if j := r.Join(false); j != r1 {
		t.Errorf("Join(false) while r1 runs returned another run")
	}
	if j := r.Join(true); j != r2 {
		t.Errorf("Join(true) while an unforced run runs did not return the queued forced run")
	}
	<-r1.Done()
	<-r2.Done()
	r.Wait()
	if st := r2.Snapshot(); st.Err != nil || st.Result.Parsed < 300 {
		t.Errorf("forced run: %+v %v", st.Result, st.Err)
	}
	if ended != 2 {
		t.Errorf("%d runs ended, want 2", ended)
	}

	// Cancel stops the running run and drops the queued one.
	r4 := r.Schedule(true)
	r5 := r.Schedule(false)
	if !r.Cancel() {
		t.Fatal("Cancel found nothing to cancel")
	}
	<-r4.Done()
	<-r5.Done()
	r.Wait()
	if !r4.Canceled() || !r5.Canceled() {
		t.Errorf("after Cancel: r4 %v r5 %v", r4.Snapshot().Err, r5.Snapshot().Err)
	}
	if cur, next, _ := r.State(); cur != nil || next != nil {
		t.Errorf("runner not idle after Cancel")
	}
	if r.Cancel() {
		t.Error("Cancel on an idle runner reported a cancellation")
	}
}
