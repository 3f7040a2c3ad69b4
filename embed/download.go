package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrModelUnavailable means the embedding model is neither on disk nor
// downloadable now. Callers should carry on without vectors.
var ErrModelUnavailable = errors.New("model unavailable: set " + ModelDirEnv +
	" to a directory holding model.safetensors, tokenizer.json and config.json, or run once with network access to download it")

// ErrChecksum means a model file does not have its expected size or sha256.
// A download that fails this way is deleted, so the next run starts afresh.
var ErrChecksum = errors.New("model file does not match its checksum")

// ModelDirEnv names the environment variable that points at a local model
// directory. When it is set, nothing is downloaded.
const ModelDirEnv = "VIBERAG_MODEL_DIR"

// DefaultBaseURL is where models are downloaded from.
const DefaultBaseURL = "https://huggingface.co"

// defaultStallTimeout abandons a download that has received nothing for
// this long; what arrived is kept for the next attempt.
const defaultStallTimeout = time.Minute

// ModelSpec pins a downloadable Model2Vec model to one revision of its
// Hugging Face repository.
type ModelSpec struct {
	Repo     string // "owner/name"
	Revision string // full commit hash
	Files    []ModelFile
}

// ModelFile is one file of a model, with what it must hash to.
type ModelFile struct {
	Name   string // base name, e.g. "model.safetensors"
	Size   int64  // bytes; 0 when not checked
	SHA256 string // lower-case hex; "" when not checked
}

// DefaultModel is minishlab/potion-code-16M at revision 86848193: 256-dim
// static code embeddings distilled from nomic-ai/CodeRankEmbed, MIT licence.
func DefaultModel() ModelSpec {
	return ModelSpec{
		Repo:     "minishlab/potion-code-16M",
		Revision: "86848193a842865570d9c8d3e7d268b66ab52752",
		Files: []ModelFile{
			{configFile, 97, "edf07552b5d768d556ded176d19f3a34f25360548de3a246d226ce8e28647914"},
			{tokenizerFile, 1041917, "8e84217af15e70e8127c855435fc3d8a4cd91d7bbe686f72e75f188118ec78ae"},
			{modelFile, 64299272, "ca6159081a6e96cebe4ad878e5e8437bfccc761e8db16223370149cd2faa6c0b"},
		},
	}
}

// ID is the provider ID of the model: "model2vec:" repo "@" short revision.
func (s ModelSpec) ID() string {
	rev := s.Revision
	if len(rev) > 8 {
		rev = rev[:8]
	}
	return "model2vec:" + s.Repo + "@" + rev
}

// Progress reports a download: Done of Total bytes of File (Total is 0
// when unknown). Done starts at the bytes already on disk when resuming.
type Progress struct {
	File        string
	Done, Total int64
}

// ModelOptions says where a model comes from.
type ModelOptions struct {
	// ModelDir is a local model directory; empty means $VIBERAG_MODEL_DIR.
	// When either is set the model is loaded from there and the network is
	// never touched.
	ModelDir string

	// CacheDir holds downloaded models, one directory per repository and
	// revision; empty means os.UserCacheDir()/viberag/models.
	CacheDir string

	// Offline forbids downloading: a model not already cached gives
	// ErrModelUnavailable.
	Offline bool

	// BaseURL replaces DefaultBaseURL (tests point it at a local server).
	BaseURL string

	// Client makes the requests; nil means http.DefaultClient. Downloads
	// are bounded by the context, not by a client timeout.
	Client *http.Client

	// Progress, if set, is called as bytes arrive.
	Progress func(Progress)

	// Remote bounds the requests of an openai provider (see Open).
	Remote RemoteOptions

	// StallTimeout abandons a download that receives nothing for this
	// long (keeping what arrived); 0 means one minute.
	StallTimeout time.Duration

	// MaxTokens is passed to LoadModel2Vec.
	MaxTokens int
}

// LoadDefault loads DefaultModel as LoadModel does.
func LoadDefault(ctx context.Context, opts ModelOptions) (*Model2Vec, error) {
	return LoadModel(ctx, DefaultModel(), opts)
}

// LoadModel loads a Model2Vec model: from opts.ModelDir or
// $VIBERAG_MODEL_DIR when set (without network, and named after its
// contents, see Model2VecOptions.ID), otherwise from the cache, downloading
// it first if needed (see FetchModel) and checking its sha256 sums.
func LoadModel(ctx context.Context, spec ModelSpec, opts ModelOptions) (*Model2Vec, error) {
	dir := opts.ModelDir
	if dir == "" {
		dir = os.Getenv(ModelDirEnv)
	}
	if dir != "" {
		m, err := LoadModel2Vec(dir, Model2VecOptions{MaxTokens: opts.MaxTokens})
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w (model directory %s): %w", err, dir, ErrModelUnavailable)
		}
		return m, err
	}
	dir, err := FetchModel(ctx, spec, opts)
	if err != nil {
		return nil, err
	}
	return LoadModel2Vec(dir, Model2VecOptions{Spec: &spec, MaxTokens: opts.MaxTokens})
}

// FetchModel makes sure spec's files are in the cache and returns their
// directory. Missing files are downloaded from
// BaseURL/<repo>/resolve/<revision>/<name> into <name>.part, resuming a
// previous partial download with an HTTP Range request, and renamed into
// place only once their size and sha256 match (ErrChecksum otherwise, and
// the part file is deleted). A file already in place with the right size is
// trusted here; LoadModel checks its sha256 when it reads it.
//
// With Offline set, or when a download fails, the error wraps
// ErrModelUnavailable. An interrupted download leaves its part file for
// the next call to resume.
func FetchModel(ctx context.Context, spec ModelSpec, opts ModelOptions) (string, error) {
	cache := opts.CacheDir
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("embed: model cache: %w: %w", err, ErrModelUnavailable)
		}
		cache = filepath.Join(base, "viberag", "models")
	}
	if !validRepoPath(spec.Repo) || !validRepoPath(spec.Revision) {
		return "", fmt.Errorf("embed: model spec repo %q revision %q: not a repository path", spec.Repo, spec.Revision)
	}
	dir := filepath.Join(cache, filepath.FromSlash(spec.Repo), spec.Revision)

	var missing []ModelFile
	for _, f := range spec.Files {
		if f.Name == "" || f.Name != filepath.Base(f.Name) || strings.ContainsAny(f.Name, `/\`) {
			return "", fmt.Errorf("embed: model spec file name %q: not a base name", f.Name)
		}
		st, err := os.Stat(filepath.Join(dir, f.Name))
		if err == nil && (f.Size == 0 || st.Size() == f.Size) {
			continue
		}
		missing = append(missing, f)
	}
	if len(missing) == 0 {
		return dir, nil
	}
	if opts.Offline {
		return "", fmt.Errorf("embed: model %s: offline and %s not in %s: %w", spec.Repo, missing[0].Name, dir, ErrModelUnavailable)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("embed: model cache: %w: %w", err, ErrModelUnavailable)
	}
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	fe := fetcher{client: opts.Client, progress: opts.Progress, stall: opts.StallTimeout}
	if fe.client == nil {
		fe.client = http.DefaultClient
	}
	if fe.stall <= 0 {
		fe.stall = defaultStallTimeout
	}
	for _, f := range missing {
		u := strings.TrimRight(base, "/") + "/" + spec.Repo + "/resolve/" + spec.Revision + "/" + url.PathEscape(f.Name)
		if err := fe.download(ctx, u, filepath.Join(dir, f.Name), f); err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("embed: download %s/%s: %w", spec.Repo, f.Name, ctx.Err())
			}
			return "", fmt.Errorf("embed: download %s/%s: %w: %w", spec.Repo, f.Name, err, ErrModelUnavailable)
		}
	}
	return dir, nil
}

// validRepoPath accepts "owner/name" and revisions: slash-separated parts
// that are neither empty nor dot-dot, so a spec cannot escape the cache.
func validRepoPath(s string) bool {
	if s == "" {
		return false
	}
	for _, part := range strings.Split(s, "/") {
		if part == "" || part == "." || part == ".." || strings.ContainsAny(part, `\:`) {
			return false
		}
	}
	return true
}

// fetcher holds what every download of one FetchModel call shares.
type fetcher struct {
	client   *http.Client
	progress func(Progress)
	stall    time.Duration
}

// download fetches u into dst through dst+".part", resuming from the bytes
// already there.
func (fe *fetcher) download(ctx context.Context, u, dst string, f ModelFile) error {
	part := dst + ".part"
	os.Remove(dst) // a file of the wrong size; never trusted again
	file, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if file != nil {
			file.Close()
		}
	}()
	discard := func(err error) error {
		file.Close()
		file = nil
		os.Remove(part)
		return err
	}
	h := sha256.New()
	have, err := io.Copy(h, file) // hash what an earlier run left
	if err != nil {
		return err
	}
	if f.Size > 0 && have > f.Size {
		if have, err = restart(file, h); err != nil {
			return err
		}
	}
	// Two rounds at most: the second starts from zero when the server
	// refuses to resume.
	for round := 0; ; round++ {
		if f.Size > 0 && have == f.Size {
			break // complete already; only verification left
		}
		retry, n, err := fe.fetchInto(ctx, u, file, h, have, f)
		if errors.Is(err, ErrChecksum) {
			return discard(err)
		}
		if err != nil {
			return err // what arrived stays in the part file
		}
		have += n
		if !retry {
			break
		}
		if round > 0 {
			return fmt.Errorf("GET %s: server cannot resume at byte %d", u, have)
		}
		if have, err = restart(file, h); err != nil {
			return err
		}
	}

	if f.Size > 0 && have < f.Size {
		// The body ended early without an error (no Content-Length to
		// tell): keep what arrived for the next run.
		return fmt.Errorf("incomplete: %d of %d bytes", have, f.Size)
	}
	if f.Size > 0 && have != f.Size {
		return discard(fmt.Errorf("size: expected %d bytes, got more: %w", f.Size, ErrChecksum))
	}
	if sum := hex.EncodeToString(h.Sum(nil)); f.SHA256 != "" && sum != f.SHA256 {
		return discard(fmt.Errorf("sha256: expected %s, got %s: %w", f.SHA256, sum, ErrChecksum))
	}
	if err := file.Sync(); err != nil {
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	file = nil
	return os.Rename(part, dst)
}

// restart empties the part file and the running hash.
func restart(file *os.File, h hash.Hash) (int64, error) {
	h.Reset()
	if err := file.Truncate(0); err != nil {
		return 0, err
	}
	_, err := file.Seek(0, io.SeekStart)
	return 0, err
}

// fetchInto makes one request for u from byte have on, appending the body
// to file and h. It returns the bytes written, and retry when the server
// could not serve the range asked for and the caller should start over.
func (fe *fetcher) fetchInto(ctx context.Context, u string, file *os.File, h hash.Hash, have int64, f ModelFile) (retry bool, n int64, err error) {
	// A connection that stops delivering would otherwise hang until the
	// caller gives up; give up on it after fe.stall without a byte.
	stalled := fmt.Errorf("no data for %v", fe.stall)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(fe.stall, func() { cancel(stalled) })
	defer timer.Stop()
	defer func() {
		if err != nil && context.Cause(ctx) == stalled {
			err = fmt.Errorf("%w: %w", stalled, err)
		}
	}()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, 0, err
	}
	req.Header.Set("User-Agent", "viberag")
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := fe.client.Do(req)
	if err != nil {
		return false, 0, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		start, ok := contentRangeStart(resp.Header.Get("Content-Range"))
		if !ok || start != have {
			return true, 0, nil
		}
	case resp.StatusCode == http.StatusOK:
		if have > 0 {
			return true, 0, nil // range ignored: the body is the whole file
		}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		return true, 0, nil
	default:
		return false, 0, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	total := f.Size
	if total == 0 && resp.ContentLength >= 0 {
		total = have + resp.ContentLength
	}
	if f.Size > 0 && resp.ContentLength >= 0 && have+resp.ContentLength != f.Size {
		return false, 0, fmt.Errorf("size: expected %d bytes, server has %d: %w", f.Size, have+resp.ContentLength, ErrChecksum)
	}
	pw := &progressWriter{w: io.MultiWriter(file, h), p: Progress{File: f.Name, Done: have, Total: total}, fn: fe.progress,
		onWrite: func() { timer.Reset(fe.stall) }}
	pw.report()
	body := io.Reader(resp.Body)
	if f.Size > 0 {
		// One byte past the expected size is enough to know it is wrong.
		body = io.LimitReader(body, f.Size-have+1)
	}
	n, err = io.Copy(pw, body)
	return false, n, err
}

// contentRangeStart parses the first byte of "bytes START-END/TOTAL".
func contentRangeStart(v string) (int64, bool) {
	rest, ok := strings.CutPrefix(v, "bytes ")
	if !ok {
		return 0, false
	}
	start, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(start), 10, 64)
	return n, err == nil
}

// progressWriter passes writes through and reports the running total.
type progressWriter struct {
	w       io.Writer
	p       Progress
	fn      func(Progress)
	onWrite func()
}

func (pw *progressWriter) Write(b []byte) (int, error) {
	n, err := pw.w.Write(b)
	pw.p.Done += int64(n)
	pw.onWrite()
	pw.report()
	return n, err
}

func (pw *progressWriter) report() {
	if pw.fn != nil {
		pw.fn(pw.p)
	}
}
