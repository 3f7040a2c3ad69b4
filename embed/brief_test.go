package embed

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// closedURL is a URL nothing listens at: connections are refused.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}

// TestBrief: the reasons this package gives for vectors being off, and a
// remote provider's failures, made for real, are said by Brief in one
// short line that keeps the fix and drops the chain (URLs, addresses).
func TestBrief(t *testing.T) {
	ctx := context.Background()
	notFound := httptest.NewServer(http.NotFoundHandler())
	defer notFound.Close()
	refused := closedURL(t)
	reason := func(err error) string {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		return err.Error()
	}
	openaiErr := func(base string) string {
		p, err := NewOpenAI(OpenAIConfig{BaseURL: base + "/v1", Model: "m", MaxRetries: -1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Embed(ctx, []string{"x"})
		// As an index run reports it.
		return reason(fmt.Errorf("learn the embedding dimension with %s: %w", p.ID(), err))
	}
	tests := []struct {
		name, reason string
		want         []string
	}{
		{"offline", reason(func() error {
			_, err := FetchModel(ctx, DefaultModel(), ModelOptions{Offline: true, CacheDir: t.TempDir()})
			return err
		}()), []string{"--offline", "VIBERAG_MODEL_DIR"}},
		{"empty model directory", reason(func() error {
			_, err := LoadModel(ctx, DefaultModel(), ModelOptions{ModelDir: t.TempDir()})
			return err
		}()), []string{"model directory", "VIBERAG_MODEL_DIR"}},
		{"download refused", reason(func() error {
			_, err := FetchModel(ctx, DefaultModel(), ModelOptions{CacheDir: t.TempDir(), BaseURL: refused})
			return err
		}()), []string{"could not be downloaded (connection refused)", "online", "VIBERAG_MODEL_DIR"}},
		{"download 404", reason(func() error {
			_, err := FetchModel(ctx, DefaultModel(), ModelOptions{CacheDir: t.TempDir(), BaseURL: notFound.URL})
			return err
		}()), []string{"could not be downloaded (404 Not Found)", "VIBERAG_MODEL_DIR"}},
		{"openai refused", openaiErr(refused), []string{"refused the connection", "is it running"}},
		{"openai 404", openaiErr(notFound.URL), []string{"HTTP 404"}},
		{"off", reason(func() error {
			_, off, _ := OpenForRun(ctx, Config{Provider: ProviderOff}, ModelOptions{})
			return fmt.Errorf("%s", off)
		}()),
			[]string{"--embed model2vec"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := Brief(tc.reason)
			if len(b) > 160 || strings.Contains(b, "\n") {
				t.Errorf("Brief is %d bytes (or several lines): %q\nof %q", len(b), b, tc.reason)
			}
			if strings.Contains(b, "http://") || strings.Contains(b, "127.0.0.1") || strings.Contains(b, "huggingface") {
				t.Errorf("Brief keeps the chain: %q", b)
			}
			for _, w := range tc.want {
				if !strings.Contains(b, w) {
					t.Errorf("Brief %q lacks %q\nof %q", b, w, tc.reason)
				}
			}
		})
	}
	// Unknown reasons: a short one as it is, a long one cut to its first
	// clause and its root cause.
	if got := Brief("something short"); got != "something short" {
		t.Errorf("short reason changed: %q", got)
	}
	long := "open the thing: " + strings.Repeat("x", 200) + ": the root cause"
	if got := Brief(long); got != "open the thing: … the root cause" {
		t.Errorf("long reason: %q", got)
	}
}
