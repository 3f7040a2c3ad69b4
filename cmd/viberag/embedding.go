package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/indexer"
)

// embedFlags choose the embedding provider of index runs (index, mcp,
// eval). Searches need none: they use what the index was embedded with.
type embedFlags struct {
	Embed       string `name:"embed" default:"auto" enum:"auto,model2vec,static,openai,off" help:"Embedding provider: auto (the index's provider, else the built-in model2vec model, downloaded once when missing), model2vec, static (a static word model that scripts/trainstatic trains, in --model-dir; experimental), openai (any OpenAI-compatible /v1/embeddings server), off."`
	Offline     bool   `help:"Never download the embedding model: without a local copy vectors stay off (search still works lexically)."`
	ModelDir    string `name:"model-dir" placeholder:"DIR" type:"path" help:"Local Model2Vec model directory (model.safetensors, tokenizer.json, config.json); VIBERAG_MODEL_DIR does the same. With --embed static: the directory holding static.bin."`
	EmbedURL    string `name:"embed-url" placeholder:"URL" help:"openai provider: API base with version (default https://api.openai.com/v1; Ollama http://localhost:11434/v1)."`
	EmbedModel  string `name:"embed-model" placeholder:"MODEL" help:"openai provider: model name, e.g. text-embedding-3-small."`
	EmbedKeyEnv string `name:"embed-key-env" placeholder:"VAR" help:"openai provider: environment variable holding the API key (default OPENAI_API_KEY for api.openai.com, none for other servers)."`
	EmbedDims   int    `name:"embed-dimensions" placeholder:"N" help:"openai provider: vector dimension to request, for models that can shorten their vectors."`

	EmbedTimeout time.Duration `name:"embed-timeout" default:"30s" help:"openai provider: give up on one embedding request after this long (it is retried)."`
	EmbedBudget  time.Duration `name:"embed-budget" default:"90s" help:"End the embedding phase when no request has succeeded for this long; the vectors done are kept and the next run goes on."`
}

// choice is what the flags say about the provider (embed.Choice).
func (f embedFlags) choice() embed.Choice {
	return embed.Choice{Provider: f.Embed, ModelDir: f.ModelDir, BaseURL: f.EmbedURL, Model: f.EmbedModel,
		APIKeyEnv: f.EmbedKeyEnv, Dimensions: f.EmbedDims}
}

// explicit reports whether the user chose the provider (embed.Choice.Explicit):
// a chosen provider that leaves vectors incomplete makes index exit with
// exitVectorsIncomplete.
func (f embedFlags) explicit(cfg embed.Config) bool { return f.choice().Explicit(cfg) }

// config resolves the flags against the index's remembered settings
// (embed.Choice.Resolve).
func (f embedFlags) config(meta map[string]string) (embed.Config, error) {
	stored, ok := indexer.StoredEmbedding(meta)
	return f.choice().Resolve(stored, ok)
}

// provider opens the provider of an index run (embed.OpenForRun), with a
// download progress bar on a terminal unless quiet. meta is the index's
// (nil for a new index).
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
	p, off, err := embed.OpenForRun(ctx, cfg, opts)
	return p, cfg, off, err
}

// queryEmbedFlags choose the model that embeds the queries of a shared
// store's searches (serve --store, search --store): repositories pushed
// with vectors of that model search with them, the others lexically. The
// model is never downloaded here: the index runs that pushed the vectors
// had it.
type queryEmbedFlags struct {
	Embed       string `name:"embed" default:"auto" enum:"auto,model2vec,static,openai,off" help:"Shared store: the model that embeds queries, for the repositories pushed with its vectors: auto (the built-in model2vec model when it is on disk), model2vec, static, openai, off. Never downloaded: without it searches are lexical."`
	ModelDir    string `name:"model-dir" placeholder:"DIR" type:"path" help:"Shared store: local Model2Vec model directory of the query model (VIBERAG_MODEL_DIR does the same); with --embed static, the directory holding static.bin."`
	EmbedURL    string `name:"embed-url" placeholder:"URL" help:"Shared store, openai provider: API base with version."`
	EmbedModel  string `name:"embed-model" placeholder:"MODEL" help:"Shared store, openai provider: model name."`
	EmbedKeyEnv string `name:"embed-key-env" placeholder:"VAR" help:"Shared store, openai provider: environment variable holding the API key."`
	EmbedDims   int    `name:"embed-dimensions" placeholder:"N" help:"Shared store, openai provider: vector dimension to request."`
}

// given reports whether a flag was given.
func (f queryEmbedFlags) given() bool {
	return f != queryEmbedFlags{Embed: embed.Auto} && f != queryEmbedFlags{}
}

// queries opens the provider the flags choose without network for the
// model (embed.OpenForQueries): nil and why when there is none.
func (f queryEmbedFlags) queries(ctx context.Context) (embed.Provider, string) {
	cfg, err := embed.Choice{Provider: f.Embed, ModelDir: f.ModelDir, BaseURL: f.EmbedURL, Model: f.EmbedModel,
		APIKeyEnv: f.EmbedKeyEnv, Dimensions: f.EmbedDims}.Resolve(embed.Config{}, false)
	if err != nil {
		return nil, err.Error()
	}
	return embed.OpenForQueries(ctx, cfg)
}

// existingMeta reads the meta table of root's index, nil when there is
// none yet.
func existingMeta(ctx context.Context, root, dataDir string) (map[string]string, error) {
	dir, err := indexer.DataDir(root, dataDir)
	if err != nil {
		return nil, err
	}
	return indexer.ReadMeta(ctx, filepath.Join(dir, indexer.IndexFile)), nil
}
