package embed

import "context"

// Trace receives events of a provider's requests, for callers that watch
// a long embedding run: to show retries while they happen, and to notice
// a provider that has stopped making progress. Hooks run on the
// provider's goroutines and must be quick and safe for concurrent use.
// Like net/http/httptrace, it travels in the context, so that one
// provider serves callers with different needs.
type Trace struct {
	// Attempt is called after each request attempt: err nil when it
	// succeeded. Its error is free of secrets.
	Attempt func(err error)
	// Retry is called before each wait between attempts.
	Retry func(RetryNotice)
}

type traceKey struct{}

// WithTrace returns ctx carrying t.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

func traceFrom(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}
