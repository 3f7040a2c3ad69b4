package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/viberag/viberag/internal/testkit"
)

// wantVector is the fake server's vector for text, normalised.
func wantVector(text string, dim int) []float32 {
	v := make([]float32, dim)
	v[0] = float32(utf8.RuneCountInString(text))
	v[1] = 1
	normalize32(v)
	return v
}

// newTestOpenAI returns a client of f that records its waits instead of
// sleeping.
func newTestOpenAI(t *testing.T, f *testkit.EmbedServer, cfg OpenAIConfig) (*OpenAI, *[]time.Duration) {
	t.Helper()
	cfg.BaseURL = f.URL + "/v1"
	if cfg.Model == "" {
		cfg.Model = "test-embed"
	}
	p, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	waits := &[]time.Duration{}
	p.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		*waits = append(*waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	return p, waits
}

func TestOpenAIBatchingAndOrder(t *testing.T) {
	f := testkit.NewEmbedServer(t, 3)
	p, _ := newTestOpenAI(t, f, OpenAIConfig{MaxBatch: 3, Concurrency: 2})
	texts := make([]string, 10)
	for i := range texts {
		texts[i] = strings.Repeat("a", i+1)
	}
	got, err := p.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if !approx(got[i], wantVector(text, 3)) {
			t.Errorf("vector %d = %v, want %v", i, got[i], wantVector(text, 3))
		}
	}
	var sizes []int
	var sent []string
	for _, r := range f.Requests() {
		sizes = append(sizes, len(r.Input))
		sent = append(sent, r.Input...)
		if r.Model != "test-embed" || r.Dimensions != 0 || r.Auth != "" {
			t.Errorf("request model %q dimensions %d auth %q", r.Model, r.Dimensions, r.Auth)
		}
	}
	slices.Sort(sizes)
	if want := []int{1, 3, 3, 3}; !slices.Equal(sizes, want) {
		t.Errorf("batch sizes %v, want %v", sizes, want)
	}
	slices.Sort(sent)
	wantSent := slices.Clone(texts)
	slices.Sort(wantSent)
	if !slices.Equal(sent, wantSent) {
		t.Errorf("sent %q, want every text once", sent)
	}
	if m := f.MaxInFlight(); m > 2 {
		t.Errorf("%d requests in flight, Concurrency is 2", m)
	}
	if p.Dim() != 3 {
		t.Errorf("Dim = %d after the first response, want 3", p.Dim())
	}
}

func TestOpenAIRetries(t *testing.T) {
	tests := []struct {
		name      string
		fail      func(w http.ResponseWriter, n int) bool
		requests  int
		waits     []time.Duration // exact waits; nil checks only the count
		waitCount int
	}{
		{
			name: "429 honours Retry-After",
			fail: func(w http.ResponseWriter, n int) bool {
				if n == 1 {
					w.Header().Set("Retry-After", "7")
					http.Error(w, `{"error":{"message":"rate limited"}}`, http.StatusTooManyRequests)
					return true
				}
				return false
			},
			requests: 2, waits: []time.Duration{7 * time.Second},
		},
		{
			name: "503 honours Retry-After",
			fail: func(w http.ResponseWriter, n int) bool {
				if n == 1 {
					w.Header().Set("Retry-After", "2")
					http.Error(w, "overloaded", http.StatusServiceUnavailable)
					return true
				}
				return false
			},
			requests: 2, waits: []time.Duration{2 * time.Second},
		},
		{
			name: "Retry-After is capped",
			fail: func(w http.ResponseWriter, n int) bool {
				if n == 1 {
					w.Header().Set("Retry-After", "86400")
					http.Error(w, "later", http.StatusTooManyRequests)
					return true
				}
				return false
			},
			requests: 2, waits: []time.Duration{maxRetryAfter},
		},
		{
			name: "500s then success",
			fail: func(w http.ResponseWriter, n int) bool {
				if n <= 2 {
					http.Error(w, "boom", http.StatusInternalServerError)
					return true
				}
				return false
			},
			requests: 3, waitCount: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := testkit.NewEmbedServer(t, 2)
			f.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool { return tc.fail(w, n) })
			p, waits := newTestOpenAI(t, f, OpenAIConfig{})
			got, err := p.Embed(context.Background(), []string{"abc"})
			if err != nil {
				t.Fatal(err)
			}
			if !approx(got[0], wantVector("abc", 2)) {
				t.Errorf("vector %v", got[0])
			}
			if n := len(f.Requests()); n != tc.requests {
				t.Errorf("%d requests, want %d", n, tc.requests)
			}
			if tc.waits != nil && !slices.Equal(*waits, tc.waits) {
				t.Errorf("waits %v, want %v", *waits, tc.waits)
			}
			if tc.waits == nil && len(*waits) != tc.waitCount {
				t.Errorf("waits %v, want %d of them", *waits, tc.waitCount)
			}
		})
	}
}

func TestOpenAIBackoffGrows(t *testing.T) {
	f := testkit.NewEmbedServer(t, 2)
	f.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool {
		http.Error(w, `{"error":{"message":"still down"}}`, http.StatusBadGateway)
		return true
	})
	p, waits := newTestOpenAI(t, f, OpenAIConfig{MaxRetries: 3})
	_, err := p.Embed(context.Background(), []string{"x"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 || !strings.Contains(err.Error(), "giving up after 4 attempts") || !strings.Contains(err.Error(), "still down") {
		t.Fatalf("err = %v, want a 502 APIError after 4 attempts", err)
	}
	if n := len(f.Requests()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
	// Jittered exponential: attempt i waits in [min·2ⁱ/2, min·2ⁱ].
	if len(*waits) != 3 {
		t.Fatalf("waited %v, want three waits between four attempts", *waits)
	}
	for i, w := range *waits {
		hi := p.minBackoff << i
		if w < hi/2 || w > hi {
			t.Errorf("wait %d = %v, want within [%v, %v]", i, w, hi/2, hi)
		}
	}
}

func TestOpenAIClientErrorsNotRetried(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		want       string
	}{
		{"openai shape", `{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error"}}`, 400, "maximum context length is 8192"},
		{"ollama shape", `{"error":"model \"nomic\" not found, try pulling it first"}`, 404, "try pulling it first"},
		{"plain text", `unauthorized`, 401, "unauthorized"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := testkit.NewEmbedServer(t, 2)
			f.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool {
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
				return true
			})
			p, waits := newTestOpenAI(t, f, OpenAIConfig{})
			_, err := p.Embed(context.Background(), []string{"x"})
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.status || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want HTTP %d with %q", err, tc.status, tc.want)
			}
			if n := len(f.Requests()); n != 1 || len(*waits) != 0 {
				t.Errorf("%d requests and %d waits, want 1 and 0", n, len(*waits))
			}
		})
	}
}

func TestOpenAITimeouts(t *testing.T) {
	// The first attempt hangs until the client gives up; the retry works.
	f := testkit.NewEmbedServer(t, 2)
	f.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool {
		if n == 1 {
			<-r.Context().Done()
			return true
		}
		return false
	})
	p, waits := newTestOpenAI(t, f, OpenAIConfig{Timeout: 50 * time.Millisecond})
	got, err := p.Embed(context.Background(), []string{"abcd"})
	if err != nil {
		t.Fatal(err)
	}
	if !approx(got[0], wantVector("abcd", 2)) || len(*waits) != 1 {
		t.Errorf("vector %v after %d waits", got[0], len(*waits))
	}

	// Every attempt hangs: the error says so.
	g := testkit.NewEmbedServer(t, 2)
	g.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool {
		<-r.Context().Done()
		return true
	})
	q, _ := newTestOpenAI(t, g, OpenAIConfig{Timeout: 20 * time.Millisecond, MaxRetries: 1})
	_, err = q.Embed(context.Background(), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "timed out after 20ms") || !strings.Contains(err.Error(), "giving up after 2 attempts") {
		t.Errorf("err = %v, want a timeout after 2 attempts", err)
	}
}

func TestOpenAIDimensionChecks(t *testing.T) {
	t.Run("configured", func(t *testing.T) {
		f := testkit.NewEmbedServer(t, 4)
		p, waits := newTestOpenAI(t, f, OpenAIConfig{Dimensions: 8})
		if p.Dim() != 8 || !strings.HasSuffix(p.ID(), "/test-embed:8") {
			t.Errorf("Dim %d ID %q before any request", p.Dim(), p.ID())
		}
		_, err := p.Embed(context.Background(), []string{"x"})
		if err == nil || !strings.Contains(err.Error(), "embed: openai dimension: expected 8, got 4") {
			t.Fatalf("err = %v, want a dimension mismatch", err)
		}
		if r := f.Requests(); len(r) != 1 || r[0].Dimensions != 8 || len(*waits) != 0 {
			t.Errorf("requests %+v, waits %v: want one, asking for 8 dimensions, no retry", r, *waits)
		}
	})
	t.Run("learned", func(t *testing.T) {
		f := testkit.NewEmbedServer(t, 4)
		p, _ := newTestOpenAI(t, f, OpenAIConfig{})
		if _, err := p.Embed(context.Background(), []string{"x"}); err != nil {
			t.Fatal(err)
		}
		f.Dim.Store(5) // the server swapped models
		_, err := p.Embed(context.Background(), []string{"y"})
		if err == nil || !strings.Contains(err.Error(), "expected 4, got 5") {
			t.Fatalf("err = %v, want a dimension mismatch", err)
		}
	})
}

func TestOpenAIBadResponses(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"not JSON", `<html>`, "openai response"},
		{"too few", `{"data":[]}`, "0 embeddings for 1 inputs"},
		{"bad index", `{"data":[{"embedding":[1,0],"index":3}]}`, "index 3 out of range"},
		{"empty vector", `{"data":[{"embedding":[],"index":0}]}`, "empty embedding"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := testkit.NewEmbedServer(t, 2)
			f.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool {
				fmt.Fprint(w, tc.body)
				return true
			})
			p, _ := newTestOpenAI(t, f, OpenAIConfig{})
			_, err := p.Embed(context.Background(), []string{"x"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestOpenAIInputs(t *testing.T) {
	t.Setenv("TEST_EMBED_KEY", "sk-test")
	f := testkit.NewEmbedServer(t, 2)
	p, _ := newTestOpenAI(t, f, OpenAIConfig{APIKeyEnv: "TEST_EMBED_KEY", MaxInputChars: 5})
	got, err := p.Embed(context.Background(), []string{"héllo wörld", "", "ok"})
	if err != nil {
		t.Fatal(err)
	}
	r := f.Requests()
	if len(r) != 1 || !slices.Equal(r[0].Input, []string{"héllo", "ok"}) || r[0].Auth != "Bearer sk-test" {
		t.Fatalf("requests %+v, want the texts cut to 5 characters, the empty one left out, and the key", r)
	}
	if !approx(got[0], wantVector("héllo", 2)) || !approx(got[1], []float32{0, 0}) || !approx(got[2], wantVector("ok", 2)) {
		t.Errorf("vectors %v", got)
	}
	if !strings.HasSuffix(p.ID(), "+max5") {
		t.Errorf("ID %q does not carry the input limit", p.ID())
	}

	// Only empty texts and no dimension known yet: one probe learns it.
	g := testkit.NewEmbedServer(t, 3)
	q, _ := newTestOpenAI(t, g, OpenAIConfig{})
	got, err = q.Embed(context.Background(), []string{"", ""})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !approx(got[0], []float32{0, 0, 0}) || len(g.Requests()) != 1 {
		t.Errorf("vectors %v after %d requests", got, len(g.Requests()))
	}
}

func TestOpenAIUnitVectors(t *testing.T) {
	f := testkit.NewEmbedServer(t, 16)
	p, _ := newTestOpenAI(t, f, OpenAIConfig{})
	got, err := p.Embed(context.Background(), []string{"some text", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d vectors for two texts", len(got))
	}
	for i, v := range got {
		if n := norm2(v); math.Abs(n-1) > 1e-6 {
			t.Errorf("‖vector %d‖ = %v", i, n)
		}
	}
}

func TestNewOpenAIErrors(t *testing.T) {
	t.Setenv("EMPTY_KEY_VAR", "")
	tests := []struct {
		cfg  OpenAIConfig
		want string
	}{
		{OpenAIConfig{}, "openai model: empty"},
		{OpenAIConfig{Model: "m", Dimensions: -1}, "dimensions -1"},
		{OpenAIConfig{Model: "m", BaseURL: "localhost:11434/v1"}, "want an http:// or https:// URL"},
		{OpenAIConfig{Model: "m", APIKeyEnv: "EMPTY_KEY_VAR"}, "environment variable EMPTY_KEY_VAR is empty"},
	}
	for _, tc := range tests {
		if _, err := NewOpenAI(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewOpenAI(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
	p, err := NewOpenAI(OpenAIConfig{Model: "text-embedding-3-small", Dimensions: 512})
	if err != nil {
		t.Fatal(err)
	}
	if want := "openai:api.openai.com/v1/text-embedding-3-small:512"; p.ID() != want {
		t.Errorf("ID = %q, want %q", p.ID(), want)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{"-4", 0},
		{"soon", 0},
		{"999999", maxRetryAfter},
		{time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat), 0},
	}
	for _, tc := range tests {
		if got := retryAfter(tc.in); got != tc.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	// A date in the future waits until then (HTTP dates are in whole
	// seconds), up to the cap.
	if got := retryAfter(time.Now().Add(2 * time.Minute).UTC().Format(http.TimeFormat)); got <= 110*time.Second || got > 2*time.Minute {
		t.Errorf("retryAfter(two minutes from now) = %v", got)
	}
	if got := retryAfter(time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)); got != maxRetryAfter {
		t.Errorf("retryAfter(an hour from now) = %v, want the cap %v", got, maxRetryAfter)
	}
}
