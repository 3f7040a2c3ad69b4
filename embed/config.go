package embed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Provider names accepted by Config.Provider.
const (
	ProviderModel2Vec = "model2vec" // the built-in static model (default)
	ProviderOpenAI    = "openai"    // an OpenAI-compatible /v1/embeddings server
	ProviderStatic    = "static"    // a static word model file (static.go), trained by scripts/trainstatic
	ProviderOff       = "off"       // no vectors
)

// Config chooses a provider and the settings that change its vectors. The
// API key is read from the environment variable it names; a BaseURL may
// carry credentials (user info, a key parameter) as the user gave it, but
// what an index stores is Redacted, so that it can be read back by
// searches (which must embed their queries with the provider that
// embedded the index) and shown by status without a secret.
type Config struct {
	Provider string `json:"provider"` // model2vec (when empty), openai or off

	// model2vec: a local model directory; empty means $VIBERAG_MODEL_DIR,
	// then the download cache. static: the directory holding static.bin
	// (required).
	ModelDir string `json:"model_dir,omitempty"`

	// openai: see OpenAIConfig.
	BaseURL       string `json:"base_url,omitempty"`
	Model         string `json:"model,omitempty"`
	APIKeyEnv     string `json:"api_key_env,omitempty"`
	Dimensions    int    `json:"dimensions,omitempty"`
	MaxInputChars int    `json:"max_input_chars,omitempty"`

	// URLSecrets says that BaseURL had credentials which Redacted removed.
	// Open then takes the URL from $VIBERAG_EMBED_URL when that names the
	// same endpoint, else sends requests without them (and says so when
	// the server refuses).
	URLSecrets bool `json:"url_credentials_removed,omitempty"`
}

// EmbedURLEnv names the environment variable holding the full URL (with
// its credentials) of a provider whose stored URL had them removed.
const EmbedURLEnv = "VIBERAG_EMBED_URL"

// RemoteOptions bound the requests of a remote (openai) provider. They
// do not change its vectors, so they are not part of Config.
type RemoteOptions struct {
	// Timeout bounds one request attempt; 0 means DefaultRequestTimeout.
	Timeout time.Duration
	// MaxRetries as in OpenAIConfig: 0 means 5, negative none.
	MaxRetries int
}

// Validate reports the first setting that cannot work, naming the field
// and its value.
func (c Config) Validate() error {
	switch c.Provider {
	case "", ProviderModel2Vec:
		if c.Model != "" || c.BaseURL != "" || c.APIKeyEnv != "" || c.Dimensions != 0 {
			return fmt.Errorf("embedding provider %q: model, base_url, api_key_env and dimensions apply to the openai provider", c.provider())
		}
	case ProviderOpenAI:
		if c.Model == "" {
			return errors.New("embedding provider openai: model: empty (e.g. text-embedding-3-small, or the name your server gives its model)")
		}
		if c.Dimensions < 0 {
			return fmt.Errorf("embedding provider openai: dimensions %d: must not be negative", c.Dimensions)
		}
		if c.BaseURL != "" && !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://") {
			clean, _ := RedactURL(c.BaseURL)
			return fmt.Errorf("embedding provider openai: base_url %q: want an http:// or https:// URL", clean)
		}
	case ProviderStatic:
		if c.Model != "" || c.BaseURL != "" || c.APIKeyEnv != "" || c.Dimensions != 0 {
			return errors.New("embedding provider static: model, base_url, api_key_env and dimensions apply to the openai provider")
		}
		if c.ModelDir == "" {
			return errors.New("embedding provider static: model_dir: empty (give --model-dir, a directory holding " + StaticFile + " as scripts/trainstatic writes it)")
		}
	case ProviderOff:
	default:
		return fmt.Errorf("embedding provider %q: unknown (known: model2vec, static, openai, off)", c.Provider)
	}
	return nil
}

func (c Config) provider() string {
	if c.Provider == "" {
		return ProviderModel2Vec
	}
	return c.Provider
}

// ErrOff is the error Open returns for the off provider.
var ErrOff = errors.New("vectors are off (embedding provider off)")

// Open returns the provider c describes. opts applies to the model2vec
// provider (where its model comes from: ModelDir is taken from c when
// opts leaves it empty). For model2vec an unavailable model gives an
// error wrapping ErrModelUnavailable; callers index and search lexically
// then, and say so.
func Open(ctx context.Context, c Config, opts ModelOptions) (Provider, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	switch c.provider() {
	case ProviderOff:
		return nil, ErrOff
	case ProviderStatic:
		return LoadStatic(c.ModelDir)
	case ProviderOpenAI:
		base := c.BaseURL
		if c.URLSecrets {
			// The stored URL lost its credentials; the environment may
			// hold them again.
			if full := os.Getenv(EmbedURLEnv); full != "" {
				if clean, _ := RedactURL(full); clean == c.BaseURL {
					base = full
				}
			}
		}
		p, err := NewOpenAI(OpenAIConfig{
			BaseURL: base, Model: c.Model, APIKeyEnv: c.APIKeyEnv,
			Dimensions: c.Dimensions, MaxInputChars: c.MaxInputChars,
			Timeout: opts.Remote.Timeout, MaxRetries: opts.Remote.MaxRetries,
		})
		if err != nil {
			return nil, err
		}
		p.credsRemoved = base == c.BaseURL && c.URLSecrets
		return p, nil
	}
	if opts.ModelDir == "" {
		opts.ModelDir = c.ModelDir
	}
	m, err := LoadDefault(ctx, opts)
	if err != nil {
		return nil, err
	}
	return m, nil
}
