package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// childResult is what a run of the viberag command (this test binary
// running main) printed, and its exit status.
type childResult struct {
	stdout, stderr string
	code           int
}

// runChild runs main with args in a child process, with extra
// environment, and waits for it (at most two minutes: a hang fails).
func runChild(t *testing.T, env []string, args ...string) childResult {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainChild$")
	cmd.Env = append(append(os.Environ(), "VIBERAG_MAIN_CHILD=1", "CHILD_ARGS="+strings.Join(args, "\n")), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("viberag %s still running after two minutes; stderr:\n%s", strings.Join(args, " "), errb.String())
	}
	r := childResult{stdout: strings.TrimSuffix(out.String(), "PASS\n"), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// mcpSession runs `viberag mcp` with args over stdio, sends each request
// (tools/call params) after the handshake, and returns every line the
// server wrote and its stderr. Each answer must arrive within a minute.
func mcpSession(t *testing.T, env []string, calls []string, args ...string) (lines []string, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainChild$")
	cmd.Env = append(append(os.Environ(), "VIBERAG_MAIN_CHILD=1", "CHILD_ARGS="+strings.Join(append([]string{"mcp"}, args...), "\n")), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		stderr = errb.String()
	}()
	got := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			got <- sc.Text()
		}
		close(got)
	}()
	await := func(id int) {
		t.Helper()
		want := fmt.Sprintf(`"id":%d,`, id)
		deadline := time.After(time.Minute)
		for {
			select {
			case l, ok := <-got:
				if !ok {
					t.Fatalf("server closed stdout before answering %d; stderr:\n%s", id, errb.String())
				}
				lines = append(lines, l)
				if strings.Contains(l, want) {
					return
				}
			case <-deadline:
				t.Fatalf("no answer to request %d within a minute", id)
			}
		}
	}
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	await(1)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, c := range calls {
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`+"\n", i+2, c)
		await(i + 2)
	}
	return lines, ""
}

// embedServer is an OpenAI-compatible embeddings server for the command's
// tests. mode: "ok", "stall" (accept, never answer), "echo" (refuse with
// a 503 whose message repeats the request's URL and credentials).
type embedServer struct {
	*httptest.Server
	mode     atomic.Value
	requests atomic.Int64
	creds    atomic.Value // the last request's credentials, as received
}

func newEmbedServer(t *testing.T) *embedServer {
	s := &embedServer{}
	s.mode.Store("ok")
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		u, p, _ := r.BasicAuth()
		s.creds.Store(r.Header.Get("Authorization") + " " + u + ":" + p + " " + r.URL.RawQuery)
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		switch s.mode.Load() {
		case "stall":
			<-r.Context().Done()
			return
		case "echo":
			msg, _ := json.Marshal(fmt.Sprintf("rejected %s auth=%s user=%s pass=%s", r.URL, r.Header.Get("Authorization"), u, p))
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, `{"error":{"message":%s}}`, msg)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, in := range req.Input {
			v := make([]float32, 16)
			for j := range v {
				v[j] = float32((len(in)*31+j*7+int(in[0%max(len(in), 1)]))%17) - 8
			}
			if v[0] == 0 {
				v[0] = 1
			}
			out.Data = append(out.Data, item{i, v})
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(s.Close)
	return s
}

// smallRepo writes a repository worth a few dozen vectors.
func smallRepo(t *testing.T) string {
	root := t.TempDir()
	files := map[string]string{
		"retry/retry.go":  "package retry\n\n// Do runs f until it succeeds, waiting longer after each failure.\nfunc Do(f func() error) error {\n\tfor wait := 1; ; wait *= 2 {\n\t\tif err := f(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n}\n",
		"cache/lru.py":    "class LRU:\n    \"\"\"A least-recently-used cache of fixed size.\"\"\"\n\n    def get(self, key):\n        return self.items.get(key)\n",
		"web/render.ts":   "// Render the page template with the user's data.\nexport function render(tmpl: string, data: object): string {\n  return tmpl.replace('{}', JSON.stringify(data));\n}\n",
		"README.md":       "# demo\n\nRetries, caches and rendering.\n",
		"queue/queue.go":  "package queue\n\n// Queue holds delayed jobs in order of their due time.\ntype Queue struct{ jobs []int }\n\n// Push adds a job.\nfunc (q *Queue) Push(j int) { q.jobs = append(q.jobs, j) }\n",
		"util/strings.py": "def slugify(title):\n    \"\"\"Turn a title into a URL slug.\"\"\"\n    return title.lower().replace(' ', '-')\n",
	}
	writeFiles(t, root, files)
	return root
}

// TestSecretsStayInside plants a secret in each way a user can pass one —
// the user name and password of --embed-url, a key parameter of its
// query, the environment variable named by --embed-key-env — and looks
// for each in everything viberag prints (index, status, search, the MCP
// server's answers, its log), on success and when the server echoes the
// credentials back in its errors, and in every file of the data
// directories. The server must still have received them.
func TestSecretsStayInside(t *testing.T) {
	if os.Getenv("VIBERAG_MAIN_CHILD") != "" {
		t.Skip("child")
	}
	const (
		user  = "sk-user-1111aaaa"
		pass  = "sk-pass-2222bbbb"
		param = "sk-param-3333cccc"
		key   = "sk-envkey-4444dddd"
	)
	secrets := []string{user, pass, param, key}
	srv := newEmbedServer(t)
	u, _ := url.Parse(srv.URL)
	embedURL := fmt.Sprintf("http://%s:%s@%s/v1?api-version=1&api_key=%s", user, pass, u.Host, param)
	env := []string{"VIBERAG_TEST_KEY=" + key, "VIBERAG_HOME=" + t.TempDir()}
	root := smallRepo(t)
	data, failData := t.TempDir(), t.TempDir()
	flags := []string{"--embed-url", embedURL, "--embed-model", "m", "--embed-key-env", "VIBERAG_TEST_KEY"}

	var outputs []childResult
	run := func(wantCode int, args ...string) childResult {
		t.Helper()
		r := runChild(t, env, args...)
		if r.code != wantCode {
			t.Fatalf("viberag %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, wantCode, r.stdout, r.stderr)
		}
		outputs = append(outputs, r)
		return r
	}
	idx := run(0, append([]string{"index", root, "--data-dir", data}, flags...)...)
	if !strings.Contains(idx.stdout, "vectors: openai:"+u.Host+"/v1?api-version=1/m") {
		t.Errorf("index output does not name the provider:\n%s", idx.stdout)
	}
	if c, _ := srv.creds.Load().(string); !strings.Contains(c, "Bearer "+key) || !strings.Contains(c, "api_key="+param) {
		t.Errorf("the server received %q: credentials not sent", c)
	}
	run(0, append([]string{"index", root, "--data-dir", data, "--json", "--force"}, flags...)...)
	run(0, "status", root, "--data-dir", data, "--json")
	run(0, "status", root, "--data-dir", data)
	search := run(0, "search", "-C", root, "--data-dir", data, "--json", "how", "are", "failures", "retried")
	if !strings.Contains(search.stdout, `"vectors": "on (openai:`) {
		t.Errorf("search did not use vectors:\n%s", search.stdout)
	}
	run(0, "search", "-C", root, "--data-dir", data, "Do")
	lines, mcpErr := mcpSession(t, env, []string{
		`{"name":"codebase_search","arguments":{"query":"how are failures retried"}}`,
		`{"name":"get_status","arguments":{}}`,
	}, append([]string{root, "--data-dir", data, "--no-watch", "-v"}, flags...)...)
	outputs = append(outputs, childResult{stdout: strings.Join(lines, "\n"), stderr: mcpErr})
	if !strings.Contains(strings.Join(lines, "\n"), "openai:"+u.Host) {
		t.Errorf("MCP answers do not name the provider:\n%s", strings.Join(lines, "\n"))
	}

	// The server refuses, repeating the credentials in its message: the
	// retries, the error, the stored error and status show none.
	srv.mode.Store("echo")
	fail := run(exitVectorsIncomplete, append([]string{"index", root, "--data-dir", failData, "--embed-budget", "2s"}, flags...)...)
	if !strings.Contains(fail.stderr, "rejected") || !strings.Contains(fail.stderr, "***") {
		t.Errorf("failing index: stderr does not carry the server's (masked) message:\n%s", fail.stderr)
	}
	run(exitVectorsIncomplete, append([]string{"index", root, "--data-dir", failData, "--json", "--embed-budget", "2s"}, flags...)...)
	run(0, "status", root, "--data-dir", failData, "--json")
	run(0, "status", root, "--data-dir", failData)
	run(0, "search", "-C", root, "--data-dir", failData, "--json", "how", "are", "failures", "retried")

	for _, r := range outputs {
		for _, s := range secrets {
			for _, o := range []string{r.stdout, r.stderr} {
				if i := strings.Index(o, s); i >= 0 {
					t.Errorf("secret %q printed: …%s…", s, o[max(0, i-200):min(len(o), i+100)])
				}
			}
		}
	}
	for _, dir := range []string{data, failData} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, s := range secrets {
				for _, form := range []string{s, url.QueryEscape(s)} {
					if bytes.Contains(b, []byte(form)) {
						t.Errorf("secret %q stored in %s", s, path)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestStalledProvider: a provider that stops answering after indexing
// leaves searches lexical, with a note, from the command line and from
// the MCP server (whose breaker asks it once); an index run against it
// ends at its budget with exit status 3, and status counts what is
// missing.
func TestStalledProvider(t *testing.T) {
	if os.Getenv("VIBERAG_MAIN_CHILD") != "" {
		t.Skip("child")
	}
	srv := newEmbedServer(t)
	env := []string{"VIBERAG_HOME=" + t.TempDir()}
	root := smallRepo(t)
	data := t.TempDir()
	flags := []string{"--embed-url", srv.URL + "/v1", "--embed-model", "m"}
	if r := runChild(t, env, append([]string{"index", root, "--data-dir", data}, flags...)...); r.code != 0 {
		t.Fatalf("index: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	srv.mode.Store("stall")
	r := runChild(t, env, "search", "-C", root, "--data-dir", data, "--json", "how", "are", "failures", "retried")
	if r.code != 0 {
		t.Fatalf("search: exit %d\n%s", r.code, r.stderr)
	}
	var resp struct {
		Vectors string   `json:"vectors"`
		Notes   []string `json:"notes"`
		Hits    []any    `json:"hits"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &resp); err != nil {
		t.Fatalf("search --json: %v\n%s", err, r.stdout)
	}
	if !strings.Contains(resp.Vectors, "off for this search") || !strings.Contains(resp.Vectors, "no answer within 2s") ||
		!strings.Contains(strings.Join(resp.Notes, " "), "this search is lexical") || len(resp.Hits) == 0 {
		t.Errorf("search with a stalled provider: %+v", resp)
	}

	before := srv.requests.Load()
	lines, _ := mcpSession(t, env, []string{
		`{"name":"codebase_search","arguments":{"query":"how are failures retried"}}`,
		`{"name":"codebase_search","arguments":{"query":"where is the page template rendered"}}`,
		`{"name":"codebase_search","arguments":{"query":"Do"}}`,
	}, append([]string{root, "--data-dir", data, "--no-watch"}, flags...)...)
	answers := strings.Join(lines, "\n")
	if strings.Count(answers, "this search is lexical") < 3 {
		t.Errorf("MCP searches do not all say they are lexical:\n%s", answers)
	}
	if !strings.Contains(answers, "not asked again until") {
		t.Errorf("MCP: the breaker did not spare the later searches:\n%s", answers)
	}
	// The startup index run finds nothing to embed: only the first search
	// asked the provider.
	if n := srv.requests.Load() - before; n != 1 {
		t.Errorf("the stalled provider got %d requests from three searches, want 1", n)
	}

	// Index against the stalled provider, into a fresh directory: it ends
	// at its budget, exit status 3, the error names the budget, and status
	// counts the missing vectors.
	fresh := t.TempDir()
	r = runChild(t, env, append([]string{"index", root, "--data-dir", fresh, "--embed-timeout", "200ms", "--embed-budget", "1s"}, flags...)...)
	if r.code != exitVectorsIncomplete || !strings.Contains(r.stderr, "no embedding request succeeded for 1s") ||
		!strings.Contains(r.stderr, "request timed out after 200ms") || !strings.Contains(r.stderr, "retrying in") {
		t.Errorf("index with a stalled provider: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runChild(t, env, "status", root, "--data-dir", fresh, "--json")
	var st struct {
		Vectors struct {
			Missing int64  `json:"missing"`
			Error   string `json:"last_error"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Vectors.Missing == 0 || st.Vectors.Error == "" {
		t.Errorf("status --json: %+v (%v)\n%s", st, err, r.stdout)
	}
	if r = runChild(t, env, "status", root, "--data-dir", fresh); !strings.Contains(r.stdout, "vectors missing:") {
		t.Errorf("status does not say vectors are missing:\n%s", r.stdout)
	}
}
