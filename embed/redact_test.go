package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
)

func TestRedactURL(t *testing.T) {
	tests := []struct {
		in, want string
		secrets  []string
	}{
		{"https://api.openai.com/v1", "https://api.openai.com/v1", nil},
		{"http://alice:sk-pass@host:8080/v1", "http://host:8080/v1", []string{"alice", "sk-pass"}},
		{"http://sk-token-only@host/v1", "http://host/v1", []string{"sk-token-only"}},
		{"https://host/v1?api-version=2024-02-01&api_key=sk-q", "https://host/v1?api-version=2024-02-01", []string{"sk-q"}},
		{"https://host/v1?key=k1&apikey=k2&token=k3&access_token=k4&sig=k5&X-Api-Key=k6&subscription-key=k7&a=b",
			"https://host/v1?a=b", []string{"k1", "k2", "k3", "k4", "k5", "k6", "k7"}},
		{"https://host/v1?Token=T#frag", "https://host/v1", []string{"T", "frag"}},
		{"http://host/v1?%zz=1", "http://host/v1", []string{"1", "%zz"}},
	}
	for _, tc := range tests {
		got, secrets := RedactURL(tc.in)
		slices.Sort(secrets)
		want := slices.Clone(tc.secrets)
		slices.Sort(want)
		if got != tc.want || !slices.Equal(secrets, want) {
			t.Errorf("RedactURL(%q) = %q, %q; want %q, %q", tc.in, got, secrets, tc.want, want)
		}
	}
	if got, _ := RedactURL("http://[::1"); strings.Contains(got, "::1") {
		t.Errorf("unparsable URL shown as %q", got)
	}
}

func TestConfigRedacted(t *testing.T) {
	c := Config{Provider: ProviderOpenAI, BaseURL: "http://u:p4ss@h/v1?api_key=sk-x", Model: "m"}
	r := c.Redacted()
	if r.BaseURL != "http://h/v1" || !r.URLSecrets {
		t.Errorf("Redacted = %+v", r)
	}
	clean := Config{Provider: ProviderOpenAI, BaseURL: "http://h/v1", Model: "m"}
	if clean.Redacted() != clean {
		t.Errorf("a URL without secrets changed: %+v", clean.Redacted())
	}
	if got := RedactID("openai:u:p4ss@h/v1/m:64"); got != "openai:h/v1/m:64" {
		t.Errorf("RedactID = %q", got)
	}
}

// Secrets planted in each place a user can put one — URL user info, a
// URL query parameter, the key's environment variable — reach the server
// as credentials but appear in no ID, error or retry notice, even when
// the server echoes them back.
func TestOpenAISecretsNeverShown(t *testing.T) {
	const user, pass, param, key = "alice-user", "sk-pass-0001", "sk-param-0002", "sk-env-0003"
	t.Setenv("TEST_SECRET_KEY", key)
	var mu sync.Mutex
	var seen []string
	f := testkit.NewEmbedServer(t, 2)
	f.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool {
		u, p, _ := r.BasicAuth()
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"), r.URL.RawQuery, u+":"+p)
		mu.Unlock()
		// A server that echoes what it got, URL and headers, in its error.
		msg, _ := json.Marshal(fmt.Sprintf("bad credentials %s %s %s %s", r.URL.String(), r.Header.Get("Authorization"), u, p))
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, `{"error":{"message":%s}}`, msg)
		return true
	})
	for _, withKey := range []bool{false, true} {
		t.Run(fmt.Sprintf("key=%v", withKey), func(t *testing.T) {
			cfg := OpenAIConfig{
				BaseURL: strings.Replace(f.URL, "http://", "http://"+user+":"+pass+"@", 1) + "/v1?api_key=" + param,
				Model:   "m", MaxRetries: 1, Timeout: 5 * time.Second,
			}
			if withKey {
				cfg.APIKeyEnv = "TEST_SECRET_KEY"
			}
			p, err := NewOpenAI(cfg)
			if err != nil {
				t.Fatal(err)
			}
			p.sleep = func(ctx context.Context, d time.Duration) error { return nil }
			var shown []string
			ctx := WithTrace(context.Background(), &Trace{
				Retry:   func(n RetryNotice) { shown = append(shown, n.String(), n.Provider) },
				Attempt: func(err error) { shown = append(shown, fmt.Sprint(err)) },
			})
			_, err = p.Embed(ctx, []string{"x"})
			if err == nil {
				t.Fatal("no error")
			}
			shown = append(shown, p.ID(), err.Error())
			for _, s := range shown {
				for _, secret := range []string{user, pass, param, key} {
					if strings.Contains(s, secret) {
						t.Errorf("%q shows the secret %q", s, secret)
					}
				}
			}
			if !strings.Contains(err.Error(), "bad credentials") || !strings.Contains(err.Error(), "***") {
				t.Errorf("err = %v, want the server's message with the secrets masked", err)
			}
			mu.Lock()
			got := strings.Join(seen, " ")
			seen = nil
			mu.Unlock()
			// The server did get them: the URL is used as given.
			if !strings.Contains(got, "api_key="+param) || (withKey && !strings.Contains(got, "Bearer "+key)) || (!withKey && !strings.Contains(got, user+":"+pass)) {
				t.Errorf("the server saw %q: credentials not sent", got)
			}
		})
	}
	// An unreachable host: the client's own error names the URL.
	p, err := NewOpenAI(OpenAIConfig{BaseURL: "http://" + user + ":" + pass + "@127.0.0.1:1/v1?token=" + param, Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Embed(context.Background(), []string{"x"})
	if err == nil || strings.Contains(err.Error(), user) || strings.Contains(err.Error(), pass) || strings.Contains(err.Error(), param) {
		t.Errorf("err = %v: want an error without the secrets", err)
	}
}

// An index stores its URL without credentials; a later process gets
// them back from VIBERAG_EMBED_URL when it names the same endpoint, and
// is told how to supply them when the server refuses it.
func TestOpenStoredURLWithoutCredentials(t *testing.T) {
	f := testkit.NewEmbedServer(t, 2)
	var auth []string
	var mu sync.Mutex
	f.SetFault(func(w http.ResponseWriter, r *http.Request, n int) bool {
		mu.Lock()
		auth = append(auth, r.URL.Query().Get("api_key"))
		mu.Unlock()
		if r.URL.Query().Get("api_key") != "sk-right" {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return true
		}
		return false
	})
	full := f.URL + "/v1?api_key=sk-right"
	stored := Config{Provider: ProviderOpenAI, BaseURL: full, Model: "m"}.Redacted()

	t.Setenv(EmbedURLEnv, "")
	p, err := Open(context.Background(), stored, ModelOptions{Remote: RemoteOptions{MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Embed(context.Background(), []string{"x"}); err == nil || !strings.Contains(err.Error(), EmbedURLEnv) {
		t.Errorf("err = %v, want advice to set %s", err, EmbedURLEnv)
	}
	t.Setenv(EmbedURLEnv, full)
	if p, err = Open(context.Background(), stored, ModelOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Embed(context.Background(), []string{"x"}); err != nil {
		t.Errorf("with %s set: %v", EmbedURLEnv, err)
	}
	// Another endpoint in the variable is not used for this index.
	t.Setenv(EmbedURLEnv, "http://elsewhere.invalid/v1?api_key=sk-right")
	if p, err = Open(context.Background(), stored, ModelOptions{Remote: RemoteOptions{MaxRetries: -1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Embed(context.Background(), []string{"x"}); err == nil {
		t.Error("a URL for another endpoint was used")
	}
}
