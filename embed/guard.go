package embed

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Defaults of GuardOptions.
const (
	DefaultQueryTimeout = 2 * time.Second
	DefaultCooldown     = 30 * time.Second
	maxCooldown         = 5 * time.Minute
)

// GuardOptions configure Guard.
type GuardOptions struct {
	// Timeout bounds each Embed call; 0 means DefaultQueryTimeout, and a
	// negative value sets no deadline (only the breaker: for index runs,
	// whose calls are bounded by the provider's own timeouts).
	Timeout time.Duration
	// Cooldown is how long calls fail at once after a failure before one
	// call is let through to try the provider again; it doubles with each
	// failure in a row, up to five minutes. 0 means DefaultCooldown.
	Cooldown time.Duration
	// Now is the clock; nil means time.Now (tests move it).
	Now func() time.Time
}

// ErrProviderDown is wrapped by the error a Guarded provider returns while
// its circuit is open.
var ErrProviderDown = errors.New("embedding provider down")

// ErrStalled is the cause (context.WithCancelCause) with which a caller
// cancels a call because the provider made no progress: unlike any other
// cancellation, a Guarded provider counts it as the provider's failure.
var ErrStalled = errors.New("embedding provider made no progress")

// Guarded is a Provider for interactive callers (a search embedding its
// query), which must answer quickly whatever the provider does: each call
// has a deadline, and a circuit breaker makes a provider that failed cost
// one deadline, not one per call. After a failure calls fail at once (with
// an error wrapping ErrProviderDown) for a cooldown; then one call is let
// through (half-open), and its outcome closes the circuit or opens it for
// a longer cooldown. A long-lived server therefore notices when its
// provider comes back.
type Guarded struct {
	p        Provider
	timeout  time.Duration
	cooldown time.Duration
	now      func() time.Time

	mu       sync.Mutex
	failures int       // in a row
	until    time.Time // the circuit is open before this
	lastErr  error
	trial    bool // a half-open call is in flight
}

// Guard wraps p.
func Guard(p Provider, opts GuardOptions) *Guarded {
	g := &Guarded{p: p, timeout: opts.Timeout, cooldown: opts.Cooldown, now: opts.Now}
	if g.timeout == 0 {
		g.timeout = DefaultQueryTimeout
	}
	if g.cooldown <= 0 {
		g.cooldown = DefaultCooldown
	}
	if g.now == nil {
		g.now = time.Now
	}
	return g
}

// ID implements Provider.
func (g *Guarded) ID() string { return g.p.ID() }

// Dim implements Provider.
func (g *Guarded) Dim() int { return g.p.Dim() }

// Unwrap returns the guarded provider.
func (g *Guarded) Unwrap() Provider { return g.p }

// Embed implements Provider under the deadline and the breaker.
func (g *Guarded) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := g.admit(); err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(ctx)
	if g.timeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, g.timeout)
	}
	defer cancel()
	type result struct {
		vecs [][]float32
		err  error
	}
	// The call runs in its own goroutine so that a provider ignoring its
	// context (a stuck connection in a library) cannot hold the caller.
	done := make(chan result, 1)
	go func() {
		v, err := g.p.Embed(cctx, texts)
		done <- result{v, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-cctx.Done():
		r.err = cctx.Err()
	}
	if r.err != nil && ctx.Err() != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrStalled) {
			g.record(cause)
			return nil, r.err
		}
		// The caller gave up: says nothing about the provider.
		g.release()
		return nil, r.err
	}
	if r.err != nil && errors.Is(r.err, context.DeadlineExceeded) {
		r.err = &noAnswerError{g.timeout}
	}
	g.record(r.err)
	if r.err != nil {
		return nil, r.err
	}
	return r.vecs, nil
}

// noAnswerError is a call cut short by the guard's deadline.
type noAnswerError struct{ d time.Duration }

func (e *noAnswerError) Error() string { return fmt.Sprintf("no answer within %v", e.d) }
func (e *noAnswerError) Unwrap() error { return context.DeadlineExceeded }

// admit lets a call through when the circuit is closed, or as the one
// trial of a half-open circuit.
func (g *Guarded) admit() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failures == 0 {
		return nil
	}
	now := g.now()
	if now.Before(g.until) || g.trial {
		retry := g.until.Sub(now).Round(time.Second)
		when := fmt.Sprintf("%v from now", max(retry, 0))
		if g.trial || retry <= 0 {
			when = "the call trying it now ends"
		}
		return fmt.Errorf("%w after %d failure(s) in a row (last: %v); not asked again until %s",
			ErrProviderDown, g.failures, g.lastErr, when)
	}
	g.trial = true
	return nil
}

// record closes the circuit after a success and opens it after a failure.
func (g *Guarded) record(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.trial = false
	if err == nil {
		g.failures, g.lastErr = 0, nil
		return
	}
	g.failures++
	g.lastErr = err
	cd := g.cooldown << min(g.failures-1, 16)
	if cd > maxCooldown || cd <= 0 {
		cd = max(maxCooldown, g.cooldown)
	}
	g.until = g.now().Add(cd)
}

// release ends a trial whose caller went away.
func (g *Guarded) release() {
	g.mu.Lock()
	g.trial = false
	g.mu.Unlock()
}
