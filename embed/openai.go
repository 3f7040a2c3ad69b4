package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
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

	// Timeout bounds each request attempt; 0 means 60s.
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

// OpenAI embeds texts through an OpenAI-compatible /v1/embeddings endpoint.
// Vectors are L2-normalised here, whatever the server returns; an empty
// text is not sent and gets the zero vector.
type OpenAI struct {
	cfg      OpenAIConfig
	endpoint string
	apiKey   string
	id       string

	mu  sync.Mutex
	dim int

	// Retry timing; tests shorten it and record the waits.
	minBackoff, maxBackoff time.Duration
	sleep                  func(ctx context.Context, d time.Duration) error
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
	defaultOpenAIBase     = "https://api.openai.com/v1"
	defaultMaxInputChars  = 8000
	maxRetryAfter         = 5 * time.Minute
	maxEmbeddingsResponse = 1 << 28
)

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
		return nil, fmt.Errorf("embed: openai base_url %q: want an http:// or https:// URL", cfg.BaseURL)
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 64
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
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
		endpoint:   cfg.BaseURL + "/embeddings",
		dim:        cfg.Dimensions,
		minBackoff: 500 * time.Millisecond,
		maxBackoff: 30 * time.Second,
		sleep:      sleepCtx,
	}
	if cfg.APIKeyEnv != "" {
		p.apiKey = os.Getenv(cfg.APIKeyEnv)
		if p.apiKey == "" {
			return nil, fmt.Errorf("embed: openai api key: environment variable %s is empty", cfg.APIKeyEnv)
		}
	}
	// The scheme does not change the vectors; the host does (two servers
	// may serve different models under one name).
	base := strings.TrimPrefix(strings.TrimPrefix(cfg.BaseURL, "https://"), "http://")
	p.id = "openai:" + base + "/" + cfg.Model
	if cfg.Dimensions > 0 {
		p.id += ":" + strconv.Itoa(cfg.Dimensions)
	}
	if cfg.MaxInputChars != defaultMaxInputChars {
		p.id += "+max" + strconv.Itoa(cfg.MaxInputChars)
	}
	return p, nil
}

// ID implements Provider: "openai:" host and path of the base URL, "/",
// the model, then ":" and the dimension when one is configured.
func (p *OpenAI) ID() string { return p.id }

// Dim implements Provider.
func (p *OpenAI) Dim() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dim
}

// Embed implements Provider. Batches run concurrently; the first error
// cancels the rest.
func (p *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
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
	for attempt := 0; ; attempt++ {
		vecs, wait, err := p.post(ctx, body, len(inputs))
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
		return nil, 0, timedOut(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxEmbeddingsResponse))
	if err != nil {
		return nil, 0, timedOut(err)
	}
	if resp.StatusCode != http.StatusOK {
		apiErr := &APIError{StatusCode: resp.StatusCode, Message: serverMessage(data)}
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
		return nil, 0, permanentError{fmt.Errorf("embed: openai response: %w", err)}
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
		normalize32(d.Embedding)
		vecs[d.Index] = d.Embedding
	}
	return vecs, 0, nil
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
		return fmt.Errorf("embed: openai dimension: expected %d, got %d (model %q)", p.dim, got, p.cfg.Model)
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
