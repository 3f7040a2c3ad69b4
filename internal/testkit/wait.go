package testkit

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// Eventually polls cond until it holds, and fails the test, naming what
// it waited for, when it still does not hold after within.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Steady reports whether cond came to hold, and held for 300 ms without
// a break, within the time given: events arrive asynchronously, so one
// moment when cond holds (an idle watcher, say) proves nothing.
func Steady(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	var since time.Time
	for time.Now().Before(deadline) {
		switch {
		case !cond():
			since = time.Time{}
		case since.IsZero():
			since = time.Now()
		case time.Since(since) > 300*time.Millisecond:
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// Within returns what fn returns, and fails the test when fn has not
// returned after d: a guard against a hang, with a generous d, not a
// timing assertion. fn runs on its own goroutine, so it must report its
// failures with t.Error, not t.Fatal.
func Within[T any](t testing.TB, d time.Duration, what string, fn func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("%s: still running after %v", what, d)
		panic("unreachable")
	}
}

// Buffer is a bytes.Buffer safe for a writer and a reader at once, such
// as a child's standard error read while the child runs.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
