package embed

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viberag/viberag/embed/internal/testtok"
)

// modelServer stands in for the model host: it serves files under
// /<repo>/resolve/<revision>/<name>, honouring Range like the real one,
// and records every request.
type modelServer struct {
	*httptest.Server
	mu       sync.Mutex
	files    map[string][]byte
	requests []string // "name range"
	// override, when set, answers instead of the default handler; it
	// returns false to fall through to it.
	override func(w http.ResponseWriter, r *http.Request, name string, n int) bool
}

func newModelServer(t *testing.T, spec ModelSpec, files map[string][]byte) *modelServer {
	t.Helper()
	s := &modelServer{files: files}
	prefix := "/" + spec.Repo + "/resolve/" + spec.Revision + "/"
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, prefix)
		s.mu.Lock()
		s.requests = append(s.requests, name+" "+r.Header.Get("Range"))
		n := len(s.requests)
		override := s.override
		data, found := s.files[name]
		s.mu.Unlock()
		if override != nil && override(w, r, name, n) {
			return
		}
		if !ok || !found {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *modelServer) requestLog() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// tinySpec describes the tiny model's files as served.
func tinySpec(t *testing.T) (ModelSpec, map[string][]byte) {
	t.Helper()
	dir := tinyModelDir(t)
	spec := ModelSpec{Repo: "test/tiny-model", Revision: "0123456789abcdef0123456789abcdef01234567"}
	files := map[string][]byte{}
	for _, name := range []string{configFile, tokenizerFile, modelFile} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		files[name] = data
		spec.Files = append(spec.Files, ModelFile{Name: name, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
	}
	return spec, files
}

func TestFetchModelDownloadsAndVerifies(t *testing.T) {
	t.Setenv(ModelDirEnv, "")
	spec, files := tinySpec(t)
	srv := newModelServer(t, spec, files)
	cache := t.TempDir()
	var mu sync.Mutex
	last := map[string]Progress{}
	opts := ModelOptions{CacheDir: cache, BaseURL: srv.URL, Progress: func(p Progress) {
		mu.Lock()
		last[p.File] = p
		mu.Unlock()
	}}
	m, err := LoadModel(context.Background(), spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID() != spec.ID() {
		t.Errorf("ID = %q, want %q", m.ID(), spec.ID())
	}
	dir := filepath.Join(cache, "test", "tiny-model", spec.Revision)
	for _, f := range spec.Files {
		got, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil || !bytes.Equal(got, files[f.Name]) {
			t.Errorf("%s in cache: %v, equal=%v", f.Name, err, bytes.Equal(got, files[f.Name]))
		}
		if _, err := os.Stat(filepath.Join(dir, f.Name+".part")); !os.IsNotExist(err) {
			t.Errorf("%s.part left behind: %v", f.Name, err)
		}
		if p := last[f.Name]; p.Done != f.Size || p.Total != f.Size {
			t.Errorf("last progress for %s = %+v, want %d of %d", f.Name, p, f.Size, f.Size)
		}
	}
	if n := len(srv.requestLog()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}

	// Cached now: loading again, even offline, asks nothing.
	for _, offline := range []bool{false, true} {
		opts.Offline = offline
		if _, err := LoadModel(context.Background(), spec, opts); err != nil {
			t.Fatalf("second load (offline=%v): %v", offline, err)
		}
	}
	if n := len(srv.requestLog()); n != 3 {
		t.Errorf("%d requests after loading from cache, want still 3", n)
	}
}

func TestFetchModelResumes(t *testing.T) {
	spec, files := tinySpec(t)
	model := files[modelFile]
	half := len(model) / 2
	srv := newModelServer(t, spec, files)
	cut := true
	srv.override = func(w http.ResponseWriter, r *http.Request, name string, n int) bool {
		if name != modelFile || !cut {
			return false
		}
		// Promise the whole file, send half, drop the connection.
		cut = false
		w.Header().Set("Content-Length", strconv.Itoa(len(model)))
		w.WriteHeader(http.StatusOK)
		w.Write(model[:half])
		return true
	}
	cache := t.TempDir()
	opts := ModelOptions{CacheDir: cache, BaseURL: srv.URL}
	_, err := FetchModel(context.Background(), spec, opts)
	if !errors.Is(err, ErrModelUnavailable) {
		t.Fatalf("truncated download: err = %v, want ErrModelUnavailable", err)
	}
	part := filepath.Join(cache, "test", "tiny-model", spec.Revision, modelFile+".part")
	if st, err := os.Stat(part); err != nil || st.Size() != int64(half) {
		t.Fatalf("part file after truncation: %v (size %v), want %d bytes", err, st, half)
	}

	var resumedAt []int64
	opts.Progress = func(p Progress) {
		if p.File == modelFile && len(resumedAt) == 0 {
			resumedAt = append(resumedAt, p.Done)
		}
	}
	dir, err := FetchModel(context.Background(), spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	log := srv.requestLog()
	if want := modelFile + " bytes=" + strconv.Itoa(half) + "-"; log[len(log)-1] != want {
		t.Errorf("resume request %q, want %q", log[len(log)-1], want)
	}
	if len(resumedAt) != 1 || resumedAt[0] != int64(half) {
		t.Errorf("progress started at %v, want %d", resumedAt, half)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, modelFile)); !bytes.Equal(got, model) {
		t.Error("resumed file differs from the original")
	}
}

// A connection that goes quiet is abandoned, keeping what arrived.
func TestFetchModelStalls(t *testing.T) {
	spec, files := tinySpec(t)
	model := files[modelFile]
	srv := newModelServer(t, spec, files)
	srv.override = func(w http.ResponseWriter, r *http.Request, name string, n int) bool {
		if name != modelFile {
			return false
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(model)))
		w.Write(model[:1000])
		w.(http.Flusher).Flush()
		<-r.Context().Done() // and then nothing
		return true
	}
	cache := t.TempDir()
	_, err := FetchModel(context.Background(), spec, ModelOptions{CacheDir: cache, BaseURL: srv.URL, StallTimeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrModelUnavailable) || !strings.Contains(err.Error(), "no data for 50ms") {
		t.Fatalf("err = %v, want ErrModelUnavailable after a stall", err)
	}
	part := filepath.Join(cache, "test", "tiny-model", spec.Revision, modelFile+".part")
	if st, err := os.Stat(part); err != nil || st.Size() != 1000 {
		t.Errorf("part file after the stall: %v %v, want 1000 bytes", st, err)
	}
}

// A server that ignores Range sends the whole file again; the part file
// starts over rather than growing past the end.
func TestFetchModelRangeIgnored(t *testing.T) {
	spec, files := tinySpec(t)
	srv := newModelServer(t, spec, files)
	srv.override = func(w http.ResponseWriter, r *http.Request, name string, n int) bool {
		w.Write(files[name]) // 200, whole body, whatever Range said
		return true
	}
	cache := t.TempDir()
	dir := filepath.Join(cache, "test", "tiny-model", spec.Revision)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, modelFile+".part"), files[modelFile][:100], 0o644)
	if _, err := FetchModel(context.Background(), spec, ModelOptions{CacheDir: cache, BaseURL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, modelFile)); !bytes.Equal(got, files[modelFile]) {
		t.Error("file differs from the original")
	}
}

func TestFetchModelRejectsBadFiles(t *testing.T) {
	spec, files := tinySpec(t)
	model := files[modelFile]
	corrupt := bytes.Clone(model)
	corrupt[len(corrupt)-1] ^= 0xff
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"sha256 mismatch", corrupt, "sha256: expected " + spec.Files[2].SHA256},
		{"too short", model[:len(model)-10], "size: expected " + strconv.Itoa(len(model)) + " bytes, server has " + strconv.Itoa(len(model)-10)},
		{"too long", append(bytes.Clone(model), 'x'), "size: expected " + strconv.Itoa(len(model)) + " bytes, server has " + strconv.Itoa(len(model)+1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newModelServer(t, spec, map[string][]byte{
				configFile: files[configFile], tokenizerFile: files[tokenizerFile], modelFile: tc.body,
			})
			cache := t.TempDir()
			_, err := FetchModel(context.Background(), spec, ModelOptions{CacheDir: cache, BaseURL: srv.URL})
			if !errors.Is(err, ErrChecksum) || !errors.Is(err, ErrModelUnavailable) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrChecksum and ErrModelUnavailable mentioning %q", err, tc.want)
			}
			dir := filepath.Join(cache, "test", "tiny-model", spec.Revision)
			for _, name := range []string{modelFile, modelFile + ".part"} {
				if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
					t.Errorf("%s kept after a bad download: %v", name, err)
				}
			}
		})
	}
}

// A file that rots in the cache after download is caught when loaded.
func TestLoadModelCorruptCache(t *testing.T) {
	t.Setenv(ModelDirEnv, "")
	spec, files := tinySpec(t)
	srv := newModelServer(t, spec, files)
	cache := t.TempDir()
	dir, err := FetchModel(context.Background(), spec, ModelOptions{CacheDir: cache, BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	corrupt := bytes.Clone(files[modelFile])
	corrupt[len(corrupt)-1] ^= 0xff
	os.WriteFile(filepath.Join(dir, modelFile), corrupt, 0o644)
	_, err = LoadModel(context.Background(), spec, ModelOptions{CacheDir: cache, Offline: true})
	if !errors.Is(err, ErrChecksum) {
		t.Errorf("load of a corrupt cache: %v, want ErrChecksum", err)
	}
}

func TestModelUnavailableWithoutNetwork(t *testing.T) {
	t.Setenv(ModelDirEnv, "")
	spec, files := tinySpec(t)
	srv := newModelServer(t, spec, files)

	t.Run("offline", func(t *testing.T) {
		_, err := LoadModel(context.Background(), spec, ModelOptions{CacheDir: t.TempDir(), BaseURL: srv.URL, Offline: true})
		if !errors.Is(err, ErrModelUnavailable) || !strings.Contains(err.Error(), ModelDirEnv) {
			t.Errorf("err = %v, want ErrModelUnavailable naming %s", err, ModelDirEnv)
		}
		if n := len(srv.requestLog()); n != 0 {
			t.Errorf("offline load made %d requests", n)
		}
	})
	t.Run("server down", func(t *testing.T) {
		down := httptest.NewServer(http.NotFoundHandler())
		down.Close()
		_, err := LoadModel(context.Background(), spec, ModelOptions{CacheDir: t.TempDir(), BaseURL: down.URL})
		if !errors.Is(err, ErrModelUnavailable) {
			t.Errorf("err = %v, want ErrModelUnavailable", err)
		}
	})
	t.Run("not found", func(t *testing.T) {
		other := spec
		other.Revision = "ffffffffffffffffffffffffffffffffffffffff"
		_, err := LoadModel(context.Background(), other, ModelOptions{CacheDir: t.TempDir(), BaseURL: srv.URL})
		if !errors.Is(err, ErrModelUnavailable) || !strings.Contains(err.Error(), "404") {
			t.Errorf("err = %v, want ErrModelUnavailable with the 404", err)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := LoadModel(ctx, spec, ModelOptions{CacheDir: t.TempDir(), BaseURL: srv.URL})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestModelDirNeverTouchesNetwork(t *testing.T) {
	spec, files := tinySpec(t)
	srv := newModelServer(t, spec, files)
	local := tinyModelDir(t)

	t.Run("env", func(t *testing.T) {
		t.Setenv(ModelDirEnv, local)
		m, err := LoadModel(context.Background(), spec, ModelOptions{CacheDir: t.TempDir(), BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(m.ID(), "model2vec:local@") {
			t.Errorf("ID = %q, want one derived from the files", m.ID())
		}
	})
	t.Run("option", func(t *testing.T) {
		t.Setenv(ModelDirEnv, "")
		if _, err := LoadModel(context.Background(), spec, ModelOptions{ModelDir: local, CacheDir: t.TempDir(), BaseURL: srv.URL}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("env pointing at nothing", func(t *testing.T) {
		t.Setenv(ModelDirEnv, filepath.Join(t.TempDir(), "missing"))
		_, err := LoadModel(context.Background(), spec, ModelOptions{CacheDir: t.TempDir(), BaseURL: srv.URL})
		if !errors.Is(err, ErrModelUnavailable) || !strings.Contains(err.Error(), "missing") {
			t.Errorf("err = %v, want ErrModelUnavailable naming the directory", err)
		}
	})
	if n := len(srv.requestLog()); n != 0 {
		t.Errorf("%d requests with a local model directory, want 0", n)
	}
}

// The default model's spec matches the real files beside the clone (all
// but the weights, which are not there).
func TestDefaultModelMatchesRealFiles(t *testing.T) {
	if testtok.RealPath() == "" {
		t.Skip(testtok.SkipReal)
	}
	real := filepath.Dir(testtok.RealPath())
	for _, f := range DefaultModel().Files {
		data, err := os.ReadFile(filepath.Join(real, f.Name))
		if f.Name == modelFile {
			if f.Size != 64299272 || f.SHA256 != "ca6159081a6e96cebe4ad878e5e8437bfccc761e8db16223370149cd2faa6c0b" {
				t.Errorf("model.safetensors spec = %+v", f)
			}
			continue // not beside the tokenizer
		}
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if int64(len(data)) != f.Size || hex.EncodeToString(sum[:]) != f.SHA256 {
			t.Errorf("%s: spec says %d bytes sha256 %s; the real file has %d bytes sha256 %x", f.Name, f.Size, f.SHA256, len(data), sum)
		}
	}
}

func TestFetchModelRejectsBadSpec(t *testing.T) {
	for _, spec := range []ModelSpec{
		{Repo: "../escape", Revision: "r"},
		{Repo: "a/b", Revision: ""},
		{Repo: "a/b", Revision: "r", Files: []ModelFile{{Name: "../x"}}},
	} {
		if _, err := FetchModel(context.Background(), spec, ModelOptions{CacheDir: t.TempDir(), Offline: true}); err == nil || errors.Is(err, ErrModelUnavailable) {
			t.Errorf("FetchModel(%+v) = %v, want a spec error", spec, err)
		}
	}
}
