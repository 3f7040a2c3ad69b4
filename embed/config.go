package embed

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Provider names accepted by Config.Provider.
const (
	ProviderModel2Vec = "model2vec" // the built-in static model (default)
	ProviderOpenAI    = "openai"    // an OpenAI-compatible /v1/embeddings server
	ProviderOff       = "off"       // no vectors
)

// Config chooses a provider and the settings that change its vectors. It
// holds no secret (the API key is read from the environment variable it
// names), so it can be stored in an index and read back by searches,
// which must embed their queries with the provider that embedded the
// index.
type Config struct {
	Provider string `json:"provider"` // model2vec (when empty), openai or off

	// model2vec: a local model directory; empty means $VIBERAG_MODEL_DIR,
	// then the download cache.
	ModelDir string `json:"model_dir,omitempty"`

	// openai: see OpenAIConfig.
	BaseURL       string `json:"base_url,omitempty"`
	Model         string `json:"model,omitempty"`
	APIKeyEnv     string `json:"api_key_env,omitempty"`
	Dimensions    int    `json:"dimensions,omitempty"`
	MaxInputChars int    `json:"max_input_chars,omitempty"`
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
			return fmt.Errorf("embedding provider openai: base_url %q: want an http:// or https:// URL", c.BaseURL)
		}
	case ProviderOff:
	default:
		return fmt.Errorf("embedding provider %q: unknown (known: model2vec, openai, off)", c.Provider)
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
	case ProviderOpenAI:
		p, err := NewOpenAI(OpenAIConfig{
			BaseURL: c.BaseURL, Model: c.Model, APIKeyEnv: c.APIKeyEnv,
			Dimensions: c.Dimensions, MaxInputChars: c.MaxInputChars,
		})
		if err != nil {
			return nil, err
		}
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
