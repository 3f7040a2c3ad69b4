package embed

import (
	"net/url"
	"slices"
	"strings"
)

// Secrets in a provider URL. A user may put a credential in the URL they
// give (user info, http://user:sk-…@host/v1, or a query parameter,
// ?api_key=…) or in the environment variable APIKeyEnv names. The URL is
// used as given for requests, but everything this package shows — the
// provider ID, error messages, retry notices, the Config an index stores —
// carries the redacted URL, and every message passes through a scrubber
// that replaces the secret strings themselves (a server may echo them).

// secretParams are query parameter names whose values are credentials
// (compared case-insensitively, with '-' read as '_').
var secretParams = []string{
	"key", "api_key", "apikey", "token", "access_token", "auth", "auth_token",
	"authorization", "sig", "signature", "secret", "client_secret", "password",
	"pass", "pwd", "code", "x_api_key", "subscription_key", "sas", "credential",
}

// isSecretParam reports whether a query parameter name holds a credential.
func isSecretParam(name string) bool {
	n := strings.ReplaceAll(strings.ToLower(name), "-", "_")
	return slices.Contains(secretParams, n) || strings.HasSuffix(n, "_key") ||
		strings.HasSuffix(n, "_token") || strings.HasSuffix(n, "_secret")
}

// RedactURL returns raw without user info and without key-like query
// parameters (key, api_key, token, sig, …), and the secret strings it
// removed (user name, password, parameter values, fragment), for scrubbing
// messages; none when raw holds no secret.
// A URL that does not parse is returned as "(unparsable URL)", since any
// part of it may be a secret.
func RedactURL(raw string) (clean string, secrets []string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)", splitSecrets(raw)
	}
	if u.User != nil {
		secrets = append(secrets, u.User.Username())
		if p, ok := u.User.Password(); ok {
			secrets = append(secrets, p)
		}
		u.User = nil
	}
	if u.RawQuery != "" {
		// Keep the other parameters as written (api-version=… selects
		// the API, not the caller), in their order.
		var kept []string
		for _, part := range strings.Split(u.RawQuery, "&") {
			name, val, _ := strings.Cut(part, "=")
			n, err := url.QueryUnescape(name)
			if err != nil || isSecretParam(n) {
				secrets = append(secrets, val)
				if err != nil {
					secrets = append(secrets, name)
				}
				continue
			}
			kept = append(kept, part)
		}
		u.RawQuery = strings.Join(kept, "&")
		u.ForceQuery = false
	}
	if u.Fragment != "" {
		secrets = append(secrets, u.Fragment)
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), nonEmpty(secrets)
}

// splitSecrets treats every part of an unparsable URL as secret.
func splitSecrets(raw string) []string {
	return nonEmpty(strings.FieldsFunc(raw, func(r rune) bool {
		return strings.ContainsRune(":/@?&=#", r)
	}))
}

// nonEmpty drops empty strings.
func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// scrubber replaces known secret strings (and their URL-escaped forms) in
// messages with "***".
type scrubber struct{ r *strings.Replacer }

func newScrubber(secrets []string) scrubber {
	seen := map[string]bool{}
	var olds []string
	// Secrets too short to scrub safely (a one-letter user name would
	// turn every message into asterisks) are left: they are not in the
	// redacted URL, which is what messages show.
	add := func(s string) {
		if len(s) >= 3 && !seen[s] {
			seen[s] = true
			olds = append(olds, s)
		}
	}
	for _, s := range secrets {
		add(s)
		add(url.QueryEscape(s))
		add(url.PathEscape(s))
		if u, err := url.QueryUnescape(s); err == nil {
			add(u)
		}
	}
	if len(olds) == 0 {
		return scrubber{}
	}
	// Longest first: at one position the replacer takes the first match,
	// so a secret containing another is replaced whole.
	slices.SortStableFunc(olds, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(olds))
	for _, s := range olds {
		pairs = append(pairs, s, "***")
	}
	return scrubber{strings.NewReplacer(pairs...)}
}

func (s scrubber) string(msg string) string {
	if s.r == nil {
		return msg
	}
	return s.r.Replace(msg)
}

// scrubbedError is an error whose message has had secrets replaced; it
// still unwraps to the original, so errors.Is and errors.As work.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

func (s scrubber) error(err error) error {
	if err == nil || s.r == nil {
		return err
	}
	msg := s.r.Replace(err.Error())
	if msg == err.Error() {
		return err
	}
	return &scrubbedError{msg, err}
}

// Redacted returns c without secrets: BaseURL loses its user info and
// key-like query parameters, and URLSecrets records that it had some (so
// that a later run, which cannot send them, can say why it fails). The
// result is what an index stores.
func (c Config) Redacted() Config {
	if c.BaseURL == "" {
		return c
	}
	clean, secrets := RedactURL(c.BaseURL)
	if len(secrets) > 0 {
		c.BaseURL = clean
		c.URLSecrets = true
	}
	return c
}

// RedactID returns a provider ID without the credentials an ID made by an
// older version may hold (it named the base URL as given).
func RedactID(id string) string {
	rest, ok := strings.CutPrefix(id, ProviderOpenAI+":")
	if !ok || !strings.ContainsAny(rest, "@?#") {
		return id
	}
	clean, _ := RedactURL("http://" + rest)
	return ProviderOpenAI + ":" + strings.TrimPrefix(clean, "http://")
}
