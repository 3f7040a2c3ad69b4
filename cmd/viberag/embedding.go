package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/tables"
)

// embedFlags choose the embedding provider of index runs (index, mcp,
// eval). Searches need none: they use what the index was embedded with.
type embedFlags struct {
	Embed       string `name:"embed" default:"auto" enum:"auto,model2vec,openai,off" help:"Embedding provider: auto (the index's provider, else the built-in model2vec model, downloaded once when missing), model2vec, openai (any OpenAI-compatible /v1/embeddings server), off."`
	Offline     bool   `help:"Never download the embedding model: without a local copy vectors stay off (search still works lexically)."`
	ModelDir    string `name:"model-dir" type:"path" help:"Local Model2Vec model directory (model.safetensors, tokenizer.json, config.json); VIBERAG_MODEL_DIR does the same."`
	EmbedURL    string `name:"embed-url" help:"openai provider: API base with version (default https://api.openai.com/v1; Ollama http://localhost:11434/v1)."`
	EmbedModel  string `name:"embed-model" help:"openai provider: model name, e.g. text-embedding-3-small."`
	EmbedKeyEnv string `name:"embed-key-env" help:"openai provider: environment variable holding the API key (default OPENAI_API_KEY for api.openai.com, none for other servers)."`
	EmbedDims   int    `name:"embed-dimensions" help:"openai provider: vector dimension to request, for models that can shorten their vectors."`

	EmbedTimeout time.Duration `name:"embed-timeout" default:"30s" help:"openai provider: give up on one embedding request after this long (it is retried)."`
	EmbedBudget  time.Duration `name:"embed-budget" default:"90s" help:"End the embedding phase when no request has succeeded for this long; the vectors done are kept and the next run goes on."`
}

// explicit reports whether the user chose the embedding provider (a flag
// now, or an openai provider recorded by an earlier run), rather than
// taking the default: a chosen provider that leaves vectors incomplete
// makes index exit with exitVectorsIncomplete.
func (f embedFlags) explicit(cfg embed.Config) bool {
	if cfg.Provider == embed.ProviderOff {
		return false
	}
	return f.Embed != "auto" || f.EmbedURL != "" || f.EmbedModel != "" || cfg.Provider == embed.ProviderOpenAI
}

// storedConfig reads the embedding settings an index was built with.
func storedConfig(meta map[string]string) (embed.Config, bool) {
	var c embed.Config
	s := meta[tables.MetaEmbeddingConfig]
	if s == "" || json.Unmarshal([]byte(s), &c) != nil {
		return embed.Config{}, false
	}
	return c, true
}

// config resolves the flags against the index's stored settings.
func (f embedFlags) config(meta map[string]string) (embed.Config, error) {
	var c embed.Config
	switch f.Embed {
	case "auto":
		if stored, ok := storedConfig(meta); ok && f.EmbedModel == "" && f.EmbedURL == "" {
			c = stored
		} else if f.EmbedModel != "" || f.EmbedURL != "" {
			c.Provider = embed.ProviderOpenAI
		}
	default:
		c.Provider = f.Embed
	}
	if c.Provider == embed.ProviderOpenAI {
		c.BaseURL = orString(f.EmbedURL, c.BaseURL)
		c.Model = orString(f.EmbedModel, c.Model)
		c.APIKeyEnv = orString(f.EmbedKeyEnv, c.APIKeyEnv)
		if f.EmbedDims != 0 {
			c.Dimensions = f.EmbedDims
		}
		if c.APIKeyEnv == "" && (c.BaseURL == "" || c.BaseURL == "https://api.openai.com/v1") {
			c.APIKeyEnv = "OPENAI_API_KEY"
		}
	} else if f.EmbedModel != "" || f.EmbedURL != "" || f.EmbedKeyEnv != "" || f.EmbedDims != 0 {
		return c, fmt.Errorf("--embed %s: --embed-url, --embed-model, --embed-key-env and --embed-dimensions apply to --embed openai", f.Embed)
	}
	if c.Provider == "" || c.Provider == embed.ProviderModel2Vec {
		// A model from VIBERAG_MODEL_DIR is recorded like one from
		// --model-dir, so searches (which may run without the variable)
		// find the model that embedded the index.
		c.ModelDir = orString(f.ModelDir, orString(os.Getenv(embed.ModelDirEnv), c.ModelDir))
		if c.ModelDir != "" {
			if abs, err := filepath.Abs(c.ModelDir); err == nil {
				c.ModelDir = abs
			}
		}
	}
	return c, c.Validate()
}

func orString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// provider opens the provider of an index run. A model2vec model that
// cannot be loaded or downloaded turns vectors off, with the reason
// returned, and the run goes on lexically; an openai provider that cannot
// be set up (no key, bad URL) is an error before anything is written.
// meta is the index's (nil for a new index).
func (f embedFlags) provider(ctx context.Context, meta map[string]string, quiet bool) (embed.Provider, embed.Config, string, error) {
	cfg, err := f.config(meta)
	if err != nil {
		return nil, cfg, "", err
	}
	opts := embed.ModelOptions{Offline: f.Offline, Remote: embed.RemoteOptions{Timeout: f.EmbedTimeout}}
	if !quiet && isatty.IsTerminal(os.Stderr.Fd()) {
		var bar *progressbar.ProgressBar
		opts.Progress = func(p embed.Progress) {
			if bar == nil {
				bar = progressbar.DefaultBytes(p.Total, "downloading "+p.File)
			}
			_ = bar.Set64(p.Done)
		}
	}
	p, err := embed.Open(ctx, cfg, opts)
	switch {
	case err == nil:
		return p, cfg, "", nil
	case errors.Is(err, embed.ErrOff):
		return nil, cfg, "embedding provider off (turn vectors on with --embed model2vec or --embed openai)", nil
	case errors.Is(err, embed.ErrModelUnavailable) || errors.Is(err, embed.ErrChecksum):
		return nil, cfg, err.Error(), nil
	}
	return nil, cfg, "", err
}

// queryEmbedder opens, for searches, the provider that embedded the
// index, without network for the model: searches never download. It
// returns nil and why when vectors cannot be used.
func queryEmbedder(ctx context.Context, db *tables.DB) (embed.Provider, string) {
	meta, err := db.Meta(ctx)
	if err != nil {
		return nil, err.Error()
	}
	if meta[tables.MetaEmbeddingModel] == "" {
		if e := meta[tables.MetaEmbeddingError]; e != "" {
			return nil, e
		}
		return nil, "the index has no vectors (run `viberag index` with an embedding model, see `viberag index --help`)"
	}
	cfg, ok := storedConfig(meta)
	if !ok {
		return nil, "the index does not say which provider embedded it; run `viberag index` again"
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// No retries: the planner gives a query embedding two seconds.
	p, err := embed.Open(ctx, cfg, embed.ModelOptions{Offline: true, Remote: embed.RemoteOptions{MaxRetries: -1}})
	if err != nil {
		return nil, err.Error()
	}
	return p, ""
}

// existingMeta reads the meta table of root's index, nil when there is
// none yet.
func existingMeta(ctx context.Context, root, dataDir string) (map[string]string, error) {
	dir, err := indexer.DataDir(root, dataDir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, indexer.IndexFile)
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	db, err := indexer.Open(ctx, path, indexer.OpenOptions{ReadOnly: true})
	if err != nil {
		return nil, nil // mcp.New reports it, with its own advice
	}
	defer db.Close()
	return db.Meta(ctx)
}
