package embed

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/viberag/viberag/internal/lazyregexp"
)

// Auto is the Choice.Provider that keeps what the index remembers.
const Auto = "auto"

// Choice is what a command was told about the embedding provider (the
// --embed flags): which provider, and the settings given for it. Empty
// fields were not given.
type Choice struct {
	// Provider is Auto (the index's provider, else model2vec),
	// ProviderModel2Vec, ProviderOpenAI or ProviderOff.
	Provider  string
	ModelDir  string // model2vec: local model directory
	BaseURL   string // openai
	Model     string // openai
	APIKeyEnv string // openai
	// Dimensions (openai) asks a model that can shorten its vectors for
	// this many.
	Dimensions int
}

// Resolve decides the provider of an index run from the choice and what
// the index remembers (stored, when remembered is true):
//
//   - Auto keeps the remembered provider (off included) unless a model or
//     URL is given, which means openai; with nothing remembered it is
//     model2vec.
//   - an openai provider kept by Auto keeps the remembered settings not
//     given (an explicit openai starts from none); the key variable
//     defaults to OPENAI_API_KEY for api.openai.com and to none elsewhere.
//   - openai settings given with another provider are an error naming
//     the flags.
//   - a model2vec directory, given or from $VIBERAG_MODEL_DIR, is made
//     absolute and recorded, so searches (which may run without the
//     variable) find the model that embedded the index; so is a static
//     model's directory (given, or remembered).
func (c Choice) Resolve(stored Config, remembered bool) (Config, error) {
	var cfg Config
	switch c.Provider {
	case Auto, "":
		if remembered && c.Model == "" && c.BaseURL == "" {
			cfg = stored
		} else if c.Model != "" || c.BaseURL != "" {
			cfg.Provider = ProviderOpenAI
		}
	default:
		cfg.Provider = c.Provider
	}
	if cfg.Provider == ProviderOpenAI {
		cfg.BaseURL = cmp.Or(c.BaseURL, cfg.BaseURL)
		cfg.Model = cmp.Or(c.Model, cfg.Model)
		cfg.APIKeyEnv = cmp.Or(c.APIKeyEnv, cfg.APIKeyEnv)
		if c.Dimensions != 0 {
			cfg.Dimensions = c.Dimensions
		}
		if cfg.APIKeyEnv == "" && (cfg.BaseURL == "" || cfg.BaseURL == "https://api.openai.com/v1") {
			cfg.APIKeyEnv = "OPENAI_API_KEY"
		}
	} else if c.Model != "" || c.BaseURL != "" || c.APIKeyEnv != "" || c.Dimensions != 0 {
		return cfg, fmt.Errorf("--embed %s: --embed-url, --embed-model, --embed-key-env and --embed-dimensions apply to --embed openai", cmp.Or(c.Provider, Auto))
	}
	switch cfg.Provider {
	case "", ProviderModel2Vec:
		cfg.ModelDir = cmp.Or(c.ModelDir, cmp.Or(os.Getenv(ModelDirEnv), cfg.ModelDir))
	case ProviderStatic:
		cfg.ModelDir = cmp.Or(c.ModelDir, cfg.ModelDir)
	}
	if cfg.Provider == "" || cfg.Provider == ProviderModel2Vec || cfg.Provider == ProviderStatic {
		if cfg.ModelDir != "" {
			if abs, err := filepath.Abs(cfg.ModelDir); err == nil {
				cfg.ModelDir = abs
			}
		}
	}
	return cfg, cfg.Validate()
}

// Explicit reports whether the user chose the provider cfg (resolved
// from c) rather than taking the default: a flag now, or an openai
// provider an earlier run recorded. Off is never explicit: it asks for
// no vectors, so none missing is a failure.
func (c Choice) Explicit(cfg Config) bool {
	if cfg.Provider == ProviderOff {
		return false
	}
	return (c.Provider != Auto && c.Provider != "") || c.BaseURL != "" || c.Model != "" || cfg.Provider == ProviderOpenAI
}

// OpenForRun opens the provider of an index run. A model2vec model that
// cannot be loaded or downloaded, and the off provider, leave vectors
// off: the provider is nil and off says why, and the run goes on
// lexically. An openai provider that cannot be set up (no key, bad URL)
// is an error, returned before anything is written.
func OpenForRun(ctx context.Context, cfg Config, opts ModelOptions) (p Provider, off string, err error) {
	p, err = Open(ctx, cfg, opts)
	switch {
	case err == nil:
		return p, "", nil
	case errors.Is(err, ErrOff):
		return nil, "embedding provider off (turn vectors on with --embed model2vec or --embed openai)", nil
	case errors.Is(err, ErrModelUnavailable) || errors.Is(err, ErrChecksum):
		return nil, err.Error(), nil
	}
	return nil, "", err
}

// OpenForQueries opens, for searches, the provider that embedded an
// index (cfg, as the index records it), without network for the model:
// searches never download. No retries: a query embedding gets two
// seconds. It returns nil and why when vectors cannot be used.
func OpenForQueries(ctx context.Context, cfg Config) (Provider, string) {
	p, err := Open(ctx, cfg, ModelOptions{Offline: true, Remote: RemoteOptions{MaxRetries: -1}})
	if err != nil {
		return nil, err.Error()
	}
	return p, ""
}

// Brief says a reason vectors are off, or an embedding failure, in one
// short line: what happened and the fix, without the error chain (URLs,
// resolver addresses, file sums) that the full reason keeps for those who
// ask (a command's --verbose, every JSON answer). A reason it does not
// know is returned as it is when short, else cut to its first clause and
// its root cause.
func Brief(reason string) string {
	r := strings.TrimSpace(reason)
	// What the index run was doing when the provider failed is context:
	// the provider is named beside the reason.
	if m := stageContext.FindStringIndex(r); m != nil {
		r = r[m[1]:]
	}
	switch {
	case r == "":
		return ""
	case strings.Contains(r, ErrModelUnavailable.Error()):
		fix := "run `viberag index` online once, or set " + ModelDirEnv
		switch {
		case strings.Contains(r, ": offline and "):
			return "the embedding model is not on disk and --offline forbids the download: " + fix
		case strings.Contains(r, "(model directory "):
			return "the model directory lacks model.safetensors, tokenizer.json or config.json: fix " + ModelDirEnv + " or --model-dir"
		case strings.HasPrefix(r, "embed: model cache: "):
			return "the model cache cannot be used (" + rootCause(r, ErrModelUnavailable.Error()) + "): set XDG_CACHE_HOME to a writable directory, or " + ModelDirEnv
		case strings.HasPrefix(r, "embed: download "):
			return "the embedding model could not be downloaded (" + netCause(r) + "): " + fix
		}
		return "the embedding model is unavailable: " + fix
	case strings.Contains(r, ErrChecksum.Error()):
		return "a file of the embedding model does not match its checksum: delete it to download it again (the full reason names it)"
	case strings.Contains(r, "no embedding request succeeded for "):
		// The run's budget ran out (indexer): say so, and the last failure.
		head := r[strings.Index(r, "no embedding request succeeded for "):]
		head, last, _ := strings.Cut(head, "; last error: ")
		head, _, _ = strings.Cut(head, ", so the stage stopped")
		if last != "" {
			head += "; the last request: " + netCause(last)
		}
		return head
	case strings.Contains(r, "connect: connection refused"):
		if strings.Contains(r, "as on the last run") {
			return "the embedding server refused the connection, as on the last run (not retried): is it running, at that URL?"
		}
		return "the embedding server refused the connection: is it running, at that URL?"
	case strings.Contains(r, ": no such host"):
		return "the embedding server's host name does not resolve (no network, or a wrong --embed-url)"
	}
	r = urlNoise.ReplaceAllString(r, "")
	const short = 160
	if len(r) <= short {
		return r
	}
	first, _, _ := strings.Cut(r, ": ")
	return first + ": … " + rootCause(r, "")
}

// stageContext is how an index run's embedding failure begins (indexer):
// the step and the provider, before the provider's own error.
var stageContext = lazyregexp.New(`^(learn the embedding dimension|embed \w+ vectors) with \S+: `)

// urlNoise is what Go's HTTP client adds to a network error: the request
// and the dialled address, which the provider's ID already names.
var urlNoise = lazyregexp.New(`(Post|Get) "[^"]*": |dial tcp [^ ]*: `)

// netCause names the network failure in an error in a few words.
func netCause(r string) string {
	switch {
	case strings.Contains(r, "no such host"):
		return "no network?"
	case strings.Contains(r, "connection refused"):
		return "connection refused"
	case strings.Contains(r, "request timed out after "):
		d, _, _ := strings.Cut(r[strings.Index(r, "request timed out after ")+len("request timed out after "):], ":")
		return "no answer within " + d
	case strings.Contains(r, "timeout") || strings.Contains(r, "deadline exceeded") || strings.Contains(r, "stalled"):
		return "the connection timed out"
	case strings.Contains(r, "HTTP "):
		code, _, _ := strings.Cut(r[strings.Index(r, "HTTP "):], ":")
		return code
	}
	return rootCause(r, ErrModelUnavailable.Error())
}

// rootCause is the last clause of an error chain "a: b: c" (c), before the
// sentinel text tail when the chain ends with it.
func rootCause(r, tail string) string {
	if tail != "" {
		r = strings.TrimSuffix(strings.TrimSuffix(r, tail), ": ")
	}
	if i := strings.LastIndex(r, ": "); i >= 0 {
		r = r[i+2:]
	}
	return r
}
