package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
)

// mcpSession runs `viberag mcp` with args over stdio, sends each request
// (tools/call params) after the handshake, and returns every line the
// server wrote and its stderr. Each answer must arrive within a minute.
func mcpSession(t *testing.T, env []string, calls []string, args ...string) (lines []string, stderr string) {
	t.Helper()
	cmd := viberagCmd(env, append([]string{"mcp"}, args...)...)
	var errb testkit.Buffer
	cmd.Stderr = &errb
	p, exited := testkit.StdioPeer(t, cmd)
	p.Send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	p.Until(t, "1")
	p.Send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, c := range calls {
		id := fmt.Sprint(i + 2)
		p.Send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":`+c+`}`)
		p.Until(t, id)
	}
	p.CloseInput()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
	return p.Seen(), errb.String()
}

// newEmbedServer is the embedding server of the command's tests: vectors
// of 16 floats. A test may make it stall (testkit.Stall) or echo.
func newEmbedServer(t *testing.T) *testkit.EmbedServer {
	return testkit.NewEmbedServer(t, 16)
}

// echo refuses a request with a 503 whose message repeats its URL and
// credentials, as a careless server would.
func echo(w http.ResponseWriter, r *http.Request, n int) bool {
	u, p, _ := r.BasicAuth()
	msg := fmt.Sprintf("rejected %s auth=%s user=%s pass=%s", r.URL, r.Header.Get("Authorization"), u, p)
	return testkit.Refuse(http.StatusServiceUnavailable, msg)(w, r, n)
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
	testkit.WriteFiles(t, root, files)
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

	var outputs []testkit.Result
	run := func(wantCode int, args ...string) testkit.Result {
		t.Helper()
		r := runChild(t, env, args...)
		if r.Code != wantCode {
			t.Fatalf("viberag %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, wantCode, r.Stdout, r.Stderr)
		}
		outputs = append(outputs, r)
		return r
	}
	idx := run(0, append([]string{"index", root, "--data-dir", data}, flags...)...)
	if !strings.Contains(idx.Stdout, "vectors: openai:"+u.Host+"/v1?api-version=1/m") {
		t.Errorf("index output does not name the provider:\n%s", idx.Stdout)
	}
	if reqs := srv.Requests(); len(reqs) == 0 || !strings.Contains(reqs[len(reqs)-1].Auth, "Bearer "+key) || !strings.Contains(reqs[len(reqs)-1].Query, "api_key="+param) {
		t.Errorf("the server received %+v: credentials not sent", reqs[max(0, len(reqs)-1):])
	}
	run(0, append([]string{"index", root, "--data-dir", data, "--json", "--force"}, flags...)...)
	run(0, "status", root, "--data-dir", data, "--json")
	run(0, "status", root, "--data-dir", data)
	search := run(0, "search", "-C", root, "--data-dir", data, "--json", "how", "are", "failures", "retried")
	if !strings.Contains(search.Stdout, `"vectors": "on (openai:`) {
		t.Errorf("search did not use vectors:\n%s", search.Stdout)
	}
	run(0, "search", "-C", root, "--data-dir", data, "Do")
	lines, mcpErr := mcpSession(t, env, []string{
		`{"name":"codebase_search","arguments":{"query":"how are failures retried"}}`,
		`{"name":"get_status","arguments":{}}`,
	}, append([]string{root, "--data-dir", data, "--no-watch", "-v"}, flags...)...)
	outputs = append(outputs, testkit.Result{Stdout: strings.Join(lines, "\n"), Stderr: mcpErr})
	if !strings.Contains(strings.Join(lines, "\n"), "openai:"+u.Host) {
		t.Errorf("MCP answers do not name the provider:\n%s", strings.Join(lines, "\n"))
	}

	// The server refuses, repeating the credentials in its message: the
	// retries, the error, the stored error and status show none.
	srv.SetFault(echo)
	fail := run(exitVectorsIncomplete, append([]string{"index", root, "--data-dir", failData, "--embed-budget", "2s"}, flags...)...)
	if !strings.Contains(fail.Stderr, "rejected") || !strings.Contains(fail.Stderr, "***") {
		t.Errorf("failing index: stderr does not carry the server's (masked) message:\n%s", fail.Stderr)
	}
	run(exitVectorsIncomplete, append([]string{"index", root, "--data-dir", failData, "--json", "--embed-budget", "2s"}, flags...)...)
	run(0, "status", root, "--data-dir", failData, "--json")
	run(0, "status", root, "--data-dir", failData)
	run(0, "search", "-C", root, "--data-dir", failData, "--json", "how", "are", "failures", "retried")

	for _, r := range outputs {
		for _, s := range secrets {
			for _, o := range []string{r.Stdout, r.Stderr} {
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
	srv := newEmbedServer(t)
	env := []string{"VIBERAG_HOME=" + t.TempDir()}
	root := smallRepo(t)
	data := t.TempDir()
	flags := []string{"--embed-url", srv.URL + "/v1", "--embed-model", "m"}
	if r := runChild(t, env, append([]string{"index", root, "--data-dir", data}, flags...)...); r.Code != 0 {
		t.Fatalf("index: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	srv.SetFault(testkit.Stall)
	r := runChild(t, env, "search", "-C", root, "--data-dir", data, "--json", "how", "are", "failures", "retried")
	if r.Code != 0 {
		t.Fatalf("search: exit %d\n%s", r.Code, r.Stderr)
	}
	var resp struct {
		Vectors string   `json:"vectors"`
		Notes   []string `json:"notes"`
		Hits    []any    `json:"hits"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &resp); err != nil {
		t.Fatalf("search --json: %v\n%s", err, r.Stdout)
	}
	if !strings.Contains(resp.Vectors, "off for this search") || !strings.Contains(resp.Vectors, "no answer within 2s") ||
		!strings.Contains(strings.Join(resp.Notes, " "), "this search is lexical") || len(resp.Hits) == 0 {
		t.Errorf("search with a stalled provider: %+v", resp)
	}

	before := srv.Count()
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
	if n := srv.Count() - before; n != 1 {
		t.Errorf("the stalled provider got %d requests from three searches, want 1", n)
	}

	// Index against the stalled provider, into a fresh directory: it ends
	// at its budget, exit status 3, the error names the budget, and status
	// counts the missing vectors.
	fresh := t.TempDir()
	r = runChild(t, env, append([]string{"index", root, "--data-dir", fresh, "--embed-timeout", "200ms", "--embed-budget", "1s"}, flags...)...)
	if r.Code != exitVectorsIncomplete || !strings.Contains(r.Stderr, "no embedding request succeeded for 1s") ||
		!strings.Contains(r.Stderr, "request timed out after 200ms") || !strings.Contains(r.Stderr, "retrying in") {
		t.Errorf("index with a stalled provider: exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	r = runChild(t, env, "status", root, "--data-dir", fresh, "--json")
	var st struct {
		Vectors struct {
			Missing int64  `json:"missing"`
			Error   string `json:"last_error"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || st.Vectors.Missing == 0 || st.Vectors.Error == "" {
		t.Errorf("status --json: %+v (%v)\n%s", st, err, r.Stdout)
	}
	if r = runChild(t, env, "status", root, "--data-dir", fresh); !strings.Contains(r.Stdout, "vectors missing:") {
		t.Errorf("status does not say vectors are missing:\n%s", r.Stdout)
	}
}
