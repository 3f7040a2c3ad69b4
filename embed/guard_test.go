package embed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
)

// stubProvider answers, fails or blocks (until its context ends), as set.
type stubProvider struct {
	mode  atomic.Value // "ok", "fail", "block", "deaf" (ignores its context)
	calls atomic.Int32
	deaf  chan struct{}
}

func newStub(mode string) *stubProvider {
	s := &stubProvider{deaf: make(chan struct{})}
	s.mode.Store(mode)
	return s
}

func (s *stubProvider) ID() string { return "stub" }
func (s *stubProvider) Dim() int   { return 2 }
func (s *stubProvider) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	s.calls.Add(1)
	switch s.mode.Load() {
	case "fail":
		return nil, errors.New("connection refused")
	case "block":
		<-ctx.Done()
		return nil, ctx.Err()
	case "deaf":
		<-s.deaf
		return nil, errors.New("late")
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// A provider that stops answering costs one deadline; later calls fail at
// once until the cooldown ends; then one call tries it again, and a
// success closes the circuit.
func TestGuardBreaker(t *testing.T) {
	for _, mode := range []string{"block", "deaf"} {
		t.Run(mode, func(t *testing.T) {
			s := newStub(mode)
			defer close(s.deaf)
			clock := &fakeClock{t: time.Unix(1000, 0)}
			g := Guard(s, GuardOptions{Timeout: 20 * time.Millisecond, Cooldown: 30 * time.Second, Now: clock.now})

			err := testkit.Within(t, 30*time.Second, "Embed", func() error { _, err := g.Embed(context.Background(), []string{"q"}); return err })
			if err == nil || !strings.Contains(err.Error(), "no answer within 20ms") || !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("first call: err = %v, want no answer within the deadline", err)
			}
			for range 5 {
				_, err = g.Embed(context.Background(), []string{"q"})
				if !errors.Is(err, ErrProviderDown) || !strings.Contains(err.Error(), "30s from now") {
					t.Fatalf("open circuit: err = %v, want ErrProviderDown", err)
				}
			}
			if n := s.calls.Load(); n != 1 {
				t.Fatalf("the provider was called %d times, want once", n)
			}

			// Half-open: one trial, failing again, doubles the cooldown.
			clock.add(31 * time.Second)
			err = testkit.Within(t, 30*time.Second, "Embed", func() error { _, err := g.Embed(context.Background(), []string{"q"}); return err })
			if err == nil || errors.Is(err, ErrProviderDown) || s.calls.Load() != 2 {
				t.Fatalf("trial: err = %v after %d calls, want the provider tried once more", err, s.calls.Load())
			}
			if _, err = g.Embed(context.Background(), []string{"q"}); err == nil || !strings.Contains(err.Error(), "1m0s from now") {
				t.Fatalf("after a failed trial: err = %v, want a 60s cooldown", err)
			}

			// The provider is back: the next trial closes the circuit.
			s.mode.Store("ok")
			clock.add(61 * time.Second)
			for i := range 3 {
				if _, err := g.Embed(context.Background(), []string{"q"}); err != nil {
					t.Fatalf("call %d after recovery: %v", i, err)
				}
			}
			if n := s.calls.Load(); n != 5 {
				t.Errorf("%d calls, want 5", n)
			}
		})
	}
}

// A caller that gives up does not open the circuit.
func TestGuardCallerCancel(t *testing.T) {
	s := newStub("block")
	defer close(s.deaf)
	g := Guard(s, GuardOptions{Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	if _, err := g.Embed(ctx, []string{"q"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	s.mode.Store("ok")
	if _, err := g.Embed(context.Background(), []string{"q"}); err != nil {
		t.Errorf("after a cancelled call: %v", err)
	}
}

// While a trial is in flight, other calls fail at once.
func TestGuardOneTrial(t *testing.T) {
	s := newStub("fail")
	clock := &fakeClock{t: time.Unix(1000, 0)}
	g := Guard(s, GuardOptions{Timeout: time.Minute, Cooldown: time.Second, Now: clock.now})
	if _, err := g.Embed(context.Background(), nil); err == nil {
		t.Fatal("no error")
	}
	clock.add(2 * time.Second)
	s.mode.Store("block")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.Embed(ctx, nil)
	}()
	for s.calls.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	if _, err := g.Embed(context.Background(), nil); !errors.Is(err, ErrProviderDown) || !strings.Contains(err.Error(), "the call trying it now ends") {
		t.Errorf("during the trial: err = %v", err)
	}
	cancel()
	<-done
}

// A caller that cancels because the provider made no progress (cause
// ErrStalled) opens the circuit.
func TestGuardStalledCause(t *testing.T) {
	s := newStub("block")
	defer close(s.deaf)
	g := Guard(s, GuardOptions{Timeout: -1, Cooldown: time.Hour})
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel(fmt.Errorf("budget: %w", ErrStalled)) }()
	testkit.Within(t, 30*time.Second, "Embed", func() error { _, err := g.Embed(ctx, []string{"q"}); return err })
	s.mode.Store("ok")
	if _, err := g.Embed(context.Background(), []string{"q"}); !errors.Is(err, ErrProviderDown) || s.calls.Load() != 1 {
		t.Errorf("after a stalled call: err = %v, %d calls; want the circuit open", err, s.calls.Load())
	}
}
