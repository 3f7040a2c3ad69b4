package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
)

// A server that accepts requests and never answers: every attempt ends at
// the request timeout, the retries are announced through the trace, and
// the error says what happened.
func TestOpenAIStalledServer(t *testing.T) {
	f := testkit.NewEmbedServer(t, 2)
	f.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool {
		<-r.Context().Done()
		return true
	})
	p, _ := newTestOpenAI(t, f, OpenAIConfig{Timeout: 30 * time.Millisecond, MaxRetries: 2})
	var mu sync.Mutex
	var notices []RetryNotice
	var failures atomic.Int32
	ctx := WithTrace(context.Background(), &Trace{
		Attempt: func(err error) {
			if err != nil {
				failures.Add(1)
			}
		},
		Retry: func(n RetryNotice) {
			mu.Lock()
			notices = append(notices, n)
			mu.Unlock()
		},
	})
	err := testkit.Within(t, 30*time.Second, "Embed", func() error { _, err := p.Embed(ctx, []string{"x"}); return err })
	if err == nil || !strings.Contains(err.Error(), "timed out after 30ms") || !strings.Contains(err.Error(), "giving up after 3 attempts") {
		t.Fatalf("err = %v, want a timeout after 3 attempts", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 2 || notices[0].Attempt != 1 || notices[0].Attempts != 3 || !strings.Contains(notices[0].String(), "timed out") {
		t.Errorf("retry notices %v, want 2 announcing the timeout", notices)
	}
	if failures.Load() != 3 {
		t.Errorf("%d failed attempts traced, want 3", failures.Load())
	}
}

// Vectors no model means, and bodies that are not whole responses, are
// refused with an error naming the fault.
func TestOpenAIRefusesBadVectorsAndBodies(t *testing.T) {
	tests := []struct {
		name  string
		serve func(w http.ResponseWriter)
		want  string
	}{
		{"all zeros", func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[0,0,0]}]}`)
		}, "embedding 0 of 1 (model \"test-embed\"): all components are zero"},
		{"NaN", func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[0.5,NaN,1]}]}`)
		}, "holds NaN or Infinity"},
		{"Infinity", func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[0.5,-Infinity,1]}]}`)
		}, "holds NaN or Infinity"},
		{"beyond float32", func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[0.5,1e39,1]}]}`)
		}, "out of float32 range"},
		{"JSON cut short", func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[0.5,0.25`)
		}, "the JSON ends before it is complete"},
		{"connection closed mid-body", func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "100000")
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[0.5,0.25`)
		}, "response body cut short after 41 bytes of the 100000 declared"},
		{"huge body", func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"data":[{"index":0,"embedding":[`)
			chunk := strings.Repeat("0.125,", 10000)
			for range 1000 { // 60 MB, past the 1 MiB limit set below
				if _, err := fmt.Fprint(w, chunk); err != nil {
					return // the client hung up, as it should
				}
			}
			fmt.Fprint(w, `1]}]}`)
		}, "body over 1 MiB for 1 inputs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := testkit.NewEmbedServer(t, 3)
			f.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool {
				w.Header().Set("Content-Type", "application/json")
				tc.serve(w)
				return true
			})
			p, _ := newTestOpenAI(t, f, OpenAIConfig{Timeout: 10 * time.Second, MaxRetries: 1})
			p.maxBody = func(int) int64 { return 1 << 20 }
			err := testkit.Within(t, 30*time.Second, "Embed", func() error { _, err := p.Embed(context.Background(), []string{"abc"}); return err })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "unexpected end of JSON input") && !strings.Contains(err.Error(), "ends before") {
				t.Errorf("err = %v: the bare decoder message says nothing of the cause", err)
			}
		})
	}
}

// The default body limit leaves room for any real batch.
func TestMaxBodyFor(t *testing.T) {
	// 64 vectors of 8,192 floats written as "-0.012345678," (13 bytes).
	if need := int64(64 * 8192 * 13); maxBodyFor(64) < need {
		t.Errorf("maxBodyFor(64) = %d, below a real response of %d bytes", maxBodyFor(64), need)
	}
	if maxBodyFor(64) >= 300<<20 {
		t.Errorf("maxBodyFor(64) = %d: a 300 MB body would be read", maxBodyFor(64))
	}
}

// A mid-run change of dimension is refused with a DimensionError.
func TestOpenAIDimensionChangeAfterCalls(t *testing.T) {
	f := testkit.NewEmbedServer(t, 4)
	p, _ := newTestOpenAI(t, f, OpenAIConfig{MaxBatch: 1, Concurrency: 1})
	f.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n == 3 {
			f.Dim.Store(2)
		}
		return false
	})
	_, err := p.Embed(context.Background(), []string{"a", "b", "c", "d"})
	var de *DimensionError
	if !errors.As(err, &de) || de.Want != 4 || de.Got != 2 {
		t.Fatalf("err = %v, want a DimensionError 4 → 2", err)
	}
}

// The cache never serves a vector the provider could not have returned,
// and counts a text as embedded only once it is.
func TestCachedRefusesBadCachedVectors(t *testing.T) {
	f := testkit.NewEmbedServer(t, 2)
	p, _ := newTestOpenAI(t, f, OpenAIConfig{Dimensions: 2})
	c := NewMemCache()
	nan := float32(0)
	nan = nan / nan
	bad := map[string][]float32{
		"zero":  {0, 0},
		"short": {1},
		"nan":   {nan, 1},
		"good":  {1, 0},
	}
	for text, v := range bad {
		if err := c.Put(context.Background(), p.ID(), []uint64{TextKey(text)}, [][]float32{v}); err != nil {
			t.Fatal(err)
		}
	}
	cp := Cached(p, c)
	got, err := cp.Embed(context.Background(), []string{"zero", "short", "nan", "good", ""})
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.Requests()
	if len(reqs) != 1 || strings.Join(reqs[0].Input, ",") != "zero,short,nan" {
		t.Fatalf("requests %+v, want the three bad cached texts embedded again", reqs)
	}
	if !approx(got[0], wantVector("zero", 2)) || !approx(got[3], []float32{1, 0}) {
		t.Errorf("vectors %v", got)
	}
	if st := cp.Stats(); st.Misses != 4 || st.Hits != 1 {
		t.Errorf("stats %+v, want 4 embedded (the empty text is never cached) and 1 from the cache", st)
	}

	// A failed call embedded nothing and says so.
	f.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool {
		http.Error(w, "no", http.StatusBadRequest)
		return true
	})
	cp = Cached(p, NewMemCache())
	if _, err := cp.Embed(context.Background(), []string{"new"}); err == nil {
		t.Fatal("no error")
	}
	if st := cp.Stats(); st.Misses != 0 {
		t.Errorf("stats %+v after a failure, want nothing embedded", st)
	}
}
