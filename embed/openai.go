package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// OpenAIConfig configures an OpenAI client. Only Model is required.
type OpenAIConfig struct {
	// BaseURL is the API root including its version; requests go to
	// BaseURL + "/embeddings". Empty means "https://api.openai.com/v1".
	// Others: Ollama "http://localhost:11434/v1", LM Studio
	// "http://localhost:1234/v1", llama.cpp server, vLLM and TEI
	// "http://host:port/v1".
	BaseURL string

	// APIKeyEnv names the environment variable holding the API key, sent
	// as a bearer token. Empty sends no key (local servers need none).
	APIKeyEnv string

	// Model is the server's model name, e.g. "text-embedding-3-small".
	Model string

	// Dimensions, when positive, is sent as "dimensions" (for models that
	// can shorten their vectors) and every response must match it. When 0
	// the first response fixes the dimension and later ones must match.
	Dimensions int

	// MaxBatch is the most inputs per request; 0 means 64.
	MaxBatch int

	// Concurrency is the most requests in flight per Embed call; 0 means 4.
	Concurrency int

	// Timeout bounds each request attempt, body included; 0 means
	// DefaultRequestTimeout.
	Timeout time.Duration

	// MaxRetries is how many times a failed request is retried: network
	// errors, timeouts, 408, 429 and 5xx are; other 4xx are not. 0 means 5;
	// negative means none. Waits grow exponentially from 500ms to 30s, or
	// follow the server's Retry-After (capped at 5 minutes).
	MaxRetries int

	// MaxInputChars is the truncation rule: a text longer than this many
	// characters (Unicode code points) is cut to its first MaxInputChars
	// before it is sent. 0 means 8000, which keeps text at the usual 3–4
	// characters per token well inside the 8,192-token window of OpenAI's
	// embedding models; set it lower for models with smaller windows
	// (about 2000 for a 512-token model). A non-default value is part of
	// the ID.
	MaxInputChars int

	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
}

// RetryNotice describes a failed attempt that will be retried.
type RetryNotice struct {
	Provider string        // the provider's ID
	Attempt  int           // the attempt that failed, from 1
	Attempts int           // the most attempts that will be made
	Wait     time.Duration // before the next attempt
	Err      error
}

func (n RetryNotice) String() string {
	return fmt.Sprintf("embedding request failed (attempt %d of %d: %v); retrying in %v", n.Attempt, n.Attempts, n.Err, n.Wait.Round(100*time.Millisecond))
}

// DefaultRequestTimeout bounds an embedding request attempt when
// OpenAIConfig.Timeout is 0.
const DefaultRequestTimeout = 30 * time.Second

// OpenAI embeds texts through an OpenAI-compatible /v1/embeddings endpoint.
// Vectors are L2-normalised here, whatever the server returns; an empty
// text is not sent and gets the zero vector.
type OpenAI struct {
	cfg      OpenAIConfig
	endpoint string // as given: it may carry credentials
	shown    string // the endpoint without them, for messages
	apiKey   string
	id       string
	scrub    scrubber // removes the URL's credentials and the key from messages
	// credsRemoved: the URL is an index's stored one, whose credentials
	// were removed (Config.URLSecrets); a refusal then says how to
	// supply them.
	credsRemoved bool

	mu  sync.Mutex
	dim int

	// Retry timing; tests shorten it and record the waits.
	minBackoff, maxBackoff time.Duration
	sleep                  func(ctx context.Context, d time.Duration) error
	// maxBody bounds a response body for n inputs; tests lower it.
	maxBody func(n int) int64
}

// APIError is an error response from the server.
type APIError struct {
	StatusCode int
	Message    string // the server's own message when it gave one
}

func (e *APIError) Error() string {
	return fmt.Sprintf("embed: openai: HTTP %d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), e.Message)
}

const (
	defaultOpenAIBase    = "https://api.openai.com/v1"
	defaultMaxInputChars = 8000
	maxRetryAfter        = 5 * time.Minute
)

// maxBodyFor bounds the response to a batch of n inputs: 4 MiB plus 1 MiB
// per input. A vector of 8,192 dimensions written as JSON numbers takes
// about 200 KB, so a larger body is not an embeddings response (a proxy's
// page, a runaway server) and is refused before it fills memory.
func maxBodyFor(n int) int64 { return 4<<20 + int64(n)<<20 }

// NewOpenAI returns a client for cfg, reading the API key from the
// environment now.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.Model == "" {
		return nil, errors.New("embed: openai model: empty")
	}
	if cfg.Dimensions < 0 {
		return nil, fmt.Errorf("embed: openai dimensions %d: negative", cfg.Dimensions)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = defaultOpenAIBase
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		clean, _ := RedactURL(cfg.BaseURL)
		return nil, fmt.Errorf("embed: openai base_url %q: want an http:// or https:// URL", clean)
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 64
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultRequestTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = 5
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.MaxInputChars <= 0 {
		cfg.MaxInputChars = defaultMaxInputChars
	}
	if cfg.Client == nil {
		cfg.Client = http.DefaultClient
	}
	p := &OpenAI{
		cfg:        cfg,
		endpoint:   endpointOf(cfg.BaseURL),
		dim:        cfg.Dimensions,
		minBackoff: 500 * time.Millisecond,
		maxBackoff: 30 * time.Second,
		sleep:      sleepCtx,
		maxBody:    maxBodyFor,
	}
	clean, secrets := RedactURL(cfg.BaseURL)
	if cfg.APIKeyEnv != "" {
		p.apiKey = os.Getenv(cfg.APIKeyEnv)
		if p.apiKey == "" {
			return nil, fmt.Errorf("embed: openai api key: environment variable %s is empty", cfg.APIKeyEnv)
		}
		secrets = append(secrets, p.apiKey)
	}
	p.scrub = newScrubber(secrets)
	p.shown, _ = RedactURL(p.endpoint)
	// The scheme does not change the vectors; the host does (two servers
	// may serve different models under one name). Credentials do not, and
	// never appear in the ID.
	base := strings.TrimPrefix(strings.TrimPrefix(clean, "https://"), "http://")
	p.id = "openai:" + base + "/" + cfg.Model
	if cfg.Dimensions > 0 {
		p.id += ":" + strconv.Itoa(cfg.Dimensions)
	}
	if cfg.MaxInputChars != defaultMaxInputChars {
		p.id += "+max" + strconv.Itoa(cfg.MaxInputChars)
	}
	return p, nil
}

// endpointOf appends "/embeddings" to the base URL's path, keeping its
// query (Azure-style ?api-version=…) after it.
func endpointOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base + "/embeddings" // NewRequest reports it, redacted
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/embeddings"
	if u.RawPath != "" {
		u.RawPath = strings.TrimRight(u.RawPath, "/") + "/embeddings"
	}
	return u.String()
}

// ID implements Provider: "openai:" host and path of the base URL (without
// credentials), "/", the model, then ":" and the dimension when one is
// configured.
func (p *OpenAI) ID() string { return p.id }

// Dim implements Provider.
func (p *OpenAI) Dim() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dim
}

// Embed implements Provider. Batches run concurrently; the first error
// cancels the rest. Errors never carry the URL's credentials or the key.
func (p *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out, err := p.embed(ctx, texts)
	return out, p.scrub.error(err)
}

func (p *OpenAI) embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var idx []int
	var inputs []string
	for i, t := range texts {
		if t == "" {
			continue // the API rejects empty input
		}
		idx = append(idx, i)
		inputs = append(inputs, truncateRunes(t, p.cfg.MaxInputChars))
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
	)
	sem := make(chan struct{}, p.cfg.Concurrency)
loop:
	for lo := 0; lo < len(inputs); lo += p.cfg.MaxBatch {
		hi := min(lo+p.cfg.MaxBatch, len(inputs))
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		wg.Go(func() {
			defer func() { <-sem }()
			vecs, err := p.embedBatch(ctx, inputs[lo:hi])
			if err != nil {
				errMu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				errMu.Unlock()
				cancel()
				return
			}
			for j, v := range vecs {
				out[idx[lo+j]] = v
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: openai: %w", err)
	}

	if len(idx) < len(texts) {
		dim := p.Dim()
		if dim == 0 {
			// Only empty texts and no dimension yet: ask once.
			if _, err := p.embedBatch(ctx, []string{"."}); err != nil {
				return nil, err
			}
			dim = p.Dim()
		}
		for i := range out {
			if out[i] == nil {
				out[i] = make([]float32, dim)
			}
		}
	}
	return out, nil
}

// embedBatch sends one request, retrying as configured.
func (p *OpenAI) embedBatch(ctx context.Context, inputs []string) ([][]float32, error) {
	req := struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions int      `json:"dimensions,omitempty"`
	}{p.cfg.Model, inputs, p.cfg.Dimensions}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("embed: openai request: %w", err)
	}
	tr := traceFrom(ctx)
	for attempt := 0; ; attempt++ {
		vecs, wait, err := p.post(ctx, body, len(inputs))
		if tr != nil && tr.Attempt != nil && ctx.Err() == nil {
			tr.Attempt(p.scrub.error(err))
		}
		if err == nil {
			return vecs, nil
		}
		var perm permanentError
		if errors.As(err, &perm) {
			return nil, perm.err
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("embed: openai: %w", ctx.Err())
		}
		if attempt >= p.cfg.MaxRetries {
			return nil, fmt.Errorf("embed: openai: giving up after %d attempts: %w", attempt+1, err)
		}
		if wait == 0 {
			wait = p.backoff(attempt)
		}
		if tr != nil && tr.Retry != nil {
			tr.Retry(RetryNotice{Provider: p.id, Attempt: attempt + 1, Attempts: p.cfg.MaxRetries + 1,
				Wait: wait, Err: p.scrub.error(err)})
		}
		if err := p.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("embed: openai: %w", err)
		}
	}
}

// permanentError marks an error that retrying cannot fix.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }

// post makes one attempt. A retryable failure may come with the wait the
// server asked for.
func (p *OpenAI) post(ctx context.Context, body []byte, n int) ([][]float32, time.Duration, error) {
	rctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, 0, permanentError{fmt.Errorf("embed: openai request: %w", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	if p.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.apiKey)
	}
	timedOut := func(err error) error {
		if rctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
			return fmt.Errorf("request timed out after %v: %w", p.cfg.Timeout, err)
		}
		return err
	}
	resp, err := p.cfg.Client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = p.shown // the client names the URL as given, credentials and all
		}
		return nil, 0, timedOut(err)
	}
	defer resp.Body.Close()
	limit := p.maxBody(n)
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		// A connection closed mid-body: say so, with what arrived.
		err = fmt.Errorf("response body cut short after %d bytes%s: %w", len(data), declared(resp.ContentLength), err)
		return nil, 0, timedOut(err)
	}
	if int64(len(data)) > limit {
		if resp.StatusCode == http.StatusOK {
			return nil, 0, permanentError{fmt.Errorf("embed: openai response: body over %d MiB for %d inputs (%s): not an embeddings response; refused", limit>>20, n, declaredSize(resp.ContentLength))}
		}
		data = data[:limit]
	}
	if resp.StatusCode != http.StatusOK {
		apiErr := &APIError{StatusCode: resp.StatusCode, Message: p.scrub.string(serverMessage(data))}
		if p.credsRemoved && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
			apiErr.Message += " (the index stores the embedding URL without its credentials: set " + EmbedURLEnv +
				" to the full URL, or keep the key in an environment variable named by --embed-key-env)"
		}
		switch c := resp.StatusCode; {
		case c == http.StatusRequestTimeout, c == http.StatusTooManyRequests, c >= 500:
			return nil, retryAfter(resp.Header.Get("Retry-After")), apiErr
		}
		return nil, 0, permanentError{apiErr}
	}

	var res struct {
		Data []struct {
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn) && syn.Offset > 0 && syn.Offset <= int64(len(data)) && bytes.ContainsAny(data[syn.Offset-1:syn.Offset], "NI"):
			return nil, 0, permanentError{fmt.Errorf("embed: openai response: a vector holds NaN or Infinity (at byte %d), which is neither JSON nor a usable vector", syn.Offset)}
		case errors.As(err, &typ) && strings.HasPrefix(typ.Value, "number"):
			return nil, 0, permanentError{fmt.Errorf("embed: openai response: a vector component (%s) is out of float32 range: %w", typ.Value, err)}
		}
		if errors.As(err, &syn) && syn.Offset >= int64(len(data)) {
			return nil, 0, permanentError{fmt.Errorf("embed: openai response: the JSON ends before it is complete (%d bytes%s; cut short by the server or a proxy?): %w", len(data), declared(resp.ContentLength), err)}
		}
		return nil, 0, permanentError{fmt.Errorf("embed: openai response: not the JSON of an embeddings response (%d bytes, Content-Type %q): %w", len(data), resp.Header.Get("Content-Type"), err)}
	}
	if len(res.Data) != n {
		return nil, 0, permanentError{fmt.Errorf("embed: openai response: %d embeddings for %d inputs", len(res.Data), n)}
	}
	vecs := make([][]float32, n)
	for _, d := range res.Data {
		if d.Index < 0 || d.Index >= n || vecs[d.Index] != nil {
			return nil, 0, permanentError{fmt.Errorf("embed: openai response: index %d out of range or repeated (%d inputs)", d.Index, n)}
		}
		if err := p.checkDim(len(d.Embedding)); err != nil {
			return nil, 0, permanentError{err}
		}
		if err := checkValues(d.Embedding); err != nil {
			return nil, 0, permanentError{fmt.Errorf("embed: openai response: embedding %d of %d (model %q): %w", d.Index, n, p.cfg.Model, err)}
		}
		normalize32(d.Embedding)
		vecs[d.Index] = d.Embedding
	}
	return vecs, 0, nil
}

// declared describes a Content-Length for messages ("" when unknown).
func declared(n int64) string {
	if n < 0 {
		return ""
	}
	return fmt.Sprintf(" of the %d declared", n)
}

func declaredSize(n int64) string {
	if n < 0 {
		return "no Content-Length"
	}
	return fmt.Sprintf("Content-Length %d", n)
}

// checkValues rejects vectors no model means: a NaN or infinite component
// (similarities with it are NaN), or all zeros (similar to nothing, and
// for a non-empty input the sign of a broken model).
func checkValues(v []float32) error {
	zero := true
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("component %d is %v", i, x)
		}
		if x != 0 {
			zero = false
		}
	}
	if zero {
		return errors.New("all components are zero")
	}
	return nil
}

// DimensionError is a response whose vectors are not of the provider's
// dimension.
type DimensionError struct {
	Want, Got int
	Model     string
}

func (e *DimensionError) Error() string {
	return fmt.Sprintf("embed: openai dimension: expected %d, got %d (model %q)", e.Want, e.Got, e.Model)
}

// ForgetDimension makes p (an OpenAI provider without a configured
// dimension, possibly wrapped by Guard) learn its dimension again from its
// next response: after a DimensionError, a long-lived process's next run
// then sees the new size and re-embeds, instead of refusing it for ever.
func ForgetDimension(p Provider) {
	for {
		switch q := p.(type) {
		case *Guarded:
			p = q.Unwrap()
			continue
		case *CachedProvider:
			p = q.p
			continue
		case *OpenAI:
			if q.cfg.Dimensions == 0 {
				q.mu.Lock()
				q.dim = 0
				q.mu.Unlock()
			}
		}
		return
	}
}

// checkDim fixes the dimension on first sight and rejects any other.
func (p *OpenAI) checkDim(got int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if got == 0 {
		return errors.New("embed: openai response: empty embedding")
	}
	if p.dim == 0 {
		p.dim = got
	}
	if got != p.dim {
		return &DimensionError{Want: p.dim, Got: got, Model: p.cfg.Model}
	}
	return nil
}

// backoff is the wait before retry attempt+1: exponential with jitter, so
// concurrent clients do not retry in step.
func (p *OpenAI) backoff(attempt int) time.Duration {
	d := p.minBackoff << min(attempt, 20)
	if d > p.maxBackoff || d <= 0 {
		d = p.maxBackoff
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		d = time.Duration(min(max(secs, 0), int64(maxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = time.Until(t)
	}
	return min(max(d, 0), maxRetryAfter)
}

// serverMessage extracts the message from an error body in the shapes
// OpenAI ({"error":{"message":…}}), Ollama and TEI ({"error":"…"}) and
// others ({"message":…}, {"detail":…}) use, else the body itself.
func serverMessage(data []byte) string {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(data, &body) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case json.Unmarshal(body.Error, &obj) == nil && obj.Message != "":
			return obj.Message
		case json.Unmarshal(body.Error, &s) == nil && s != "":
			return s
		case body.Message != "":
			return body.Message
		case json.Unmarshal(body.Detail, &s) == nil && s != "":
			return s
		case len(body.Detail) > 0:
			return string(body.Detail)
		}
	}
	msg := strings.TrimSpace(string(data))
	if len(msg) > 500 {
		msg = truncateRunes(msg, 500) + "…"
	}
	if msg == "" {
		msg = "(empty body)"
	}
	return msg
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
