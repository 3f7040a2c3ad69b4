package testkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/internal/testkit"
)

func TestMain(m *testing.M) {
	testkit.Main(m, map[string]testkit.Role{
		"echo": func(args []string) error {
			fmt.Println(strings.Join(args, "|"))
			if os.Getenv("VIBERAG_TEST_ROLE") != "" {
				return errors.New("the role's environment reached the role")
			}
			return nil
		},
		"fail": func(args []string) error { return errors.New("failed as asked") },
		"hold": func(args []string) error {
			fmt.Println("ready")
			_, err := io.Copy(io.Discard, os.Stdin)
			return err
		},
		"write": func(args []string) error { return os.WriteFile(args[0], make([]byte, 1<<20), 0o644) },
		"mcp":   serveMCP,
	})
}

// serveMCP is an MCP server on standard input and output with one tool,
// echo, which answers its text.
func serveMCP([]string) error {
	s := sdk.NewServer(&sdk.Implementation{Name: "echo", Version: "0"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo"}, func(ctx context.Context, req *sdk.CallToolRequest, a in) (*sdk.CallToolResult, in, error) {
		if a.Text == "" {
			return nil, in{}, errors.New("no text")
		}
		return nil, a, nil
	})
	return s.Run(context.Background(), &sdk.StdioTransport{})
}

func TestRoles(t *testing.T) {
	r := testkit.Run(t, testkit.Command("echo", "a b", "c"), time.Minute)
	if r.Code != 0 || r.Stdout != "a b|c\n" || r.Stderr != "" {
		t.Errorf("echo: %+v, want exit 0 and the arguments alone", r)
	}
	r = testkit.Run(t, testkit.Command("fail"), time.Minute)
	if r.Code != 1 || !strings.Contains(r.Stderr, "failed as asked") {
		t.Errorf("fail: %+v, want exit 1 and the error", r)
	}
	r = testkit.Run(t, testkit.Command("no such role"), time.Minute)
	if r.Code != 2 || !strings.Contains(r.Stderr, `no role "no such role"`) {
		t.Errorf("an unknown role: %+v, want exit 2 naming it", r)
	}
}

func TestHold(t *testing.T) {
	cmd := testkit.Command("hold")
	release := testkit.Hold(t, cmd, "ready")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Fatalf("the holder ended before its release: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	release()
	if err := testkit.Within(t, time.Minute, "the released holder", func() error { return <-done }); err != nil {
		t.Errorf("the released holder: %v", err)
	}
}

func TestScript(t *testing.T) {
	script := testkit.Script(t, "echo", "A='quoted' value")
	out, err := exec.Command(script, "x y", "z").CombinedOutput()
	if err != nil || string(out) != "x y|z\n" {
		t.Errorf("script: %q, %v", out, err)
	}
}

func TestLimitFileSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	cmd := testkit.Command("write", path)
	testkit.LimitFileSize(cmd, 4096)
	r := testkit.Run(t, cmd, time.Minute)
	if r.Code == 0 || !strings.Contains(r.Stderr, "file too large") {
		t.Errorf("a write past the limit: %+v, want it to fail", r)
	}
	if r := testkit.Run(t, testkit.Command("write", path), time.Minute); r.Code != 0 {
		t.Errorf("without the limit: %+v", r)
	}
}

func TestFiles(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"a.go": "package a\n", "d/e/b.py": "x = 1\n"}
	testkit.WriteFiles(t, root, files)
	got := testkit.ReadTree(t, root)
	if len(got) != len(files) {
		t.Fatalf("read %v back", slices.Collect(maps.Keys(got)))
	}
	for p, c := range files {
		if string(got[p]) != c {
			t.Errorf("%s: %q, want %q", p, got[p], c)
		}
	}
	fx := testkit.Fixture(t, "go")
	if _, err := os.Stat(filepath.Join(fx, "go.mod")); err != nil {
		t.Errorf("the go fixture's copy: %v", err)
	}
	if fx == testkit.FixtureDir(t, "go") {
		t.Error("Fixture returned the fixture itself, not a copy")
	}
}

func TestWaits(t *testing.T) {
	start := time.Now()
	testkit.Eventually(t, time.Minute, "a short wait", func() bool { return time.Since(start) > 50*time.Millisecond })
	if !testkit.Steady(time.Minute, func() bool { return true }) {
		t.Error("a condition that always holds is not steady")
	}
	flip := false
	if testkit.Steady(time.Second, func() bool { flip = !flip; return flip }) {
		t.Error("a condition that flips every time is steady")
	}
	if v := testkit.Within(t, time.Minute, "a quick call", func() int { return 7 }); v != 7 {
		t.Errorf("Within returned %d", v)
	}
}

func TestOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	header := append([]byte("SQLite format 3\x00"), 0x10, 0x00) // page size 4096
	if err := os.WriteFile(path, append(header, make([]byte, 8192)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := testkit.SQLitePageSize(t, path); n != 4096 {
		t.Errorf("page size %d, want 4096", n)
	}
	testkit.Overwrite(t, path, 4096, 100)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != len(header)+8192 || !bytes.Equal(b[:len(header)], header) || bytes.Count(b[4096:4196], []byte{0}) > 10 {
		t.Errorf("overwrite changed what it should not, or wrote zeros")
	}
}

func TestEmbedServer(t *testing.T) {
	s := testkit.NewEmbedServer(t, 3)
	post := func() (int, string) {
		resp, err := http.Post(s.URL+"/v1/embeddings", "application/json", strings.NewReader(`{"model":"m","input":["héllo","ab"]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := post()
	var out struct {
		Data []struct {
			Index     int
			Embedding []float32
		}
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || code != 200 || len(out.Data) != 2 {
		t.Fatalf("answer %d %s (%v)", code, body, err)
	}
	if d := out.Data[0]; d.Index != 1 || !slices.Equal(d.Embedding, []float32{2, 1, 0}) {
		t.Errorf("first datum %+v, want the second input's (2, 1, 0) first", d)
	}
	if d := out.Data[1]; d.Index != 0 || !slices.Equal(d.Embedding, []float32{5, 1, 0}) {
		t.Errorf("second datum %+v, want the first input's (5 characters, 1, 0)", d)
	}
	s.SetFault(testkit.Refuse(http.StatusServiceUnavailable, "overloaded"))
	if code, body := post(); code != http.StatusServiceUnavailable || !strings.Contains(body, "overloaded") {
		t.Errorf("refused: %d %s", code, body)
	}
	if r := s.Requests(); s.Count() != 2 || len(r) != 2 || r[1].Model != "m" || !slices.Equal(r[1].Input, []string{"héllo", "ab"}) {
		t.Errorf("requests %+v", r)
	}
}

func TestSessions(t *testing.T) {
	cs := testkit.StdioSession(t, testkit.Command("mcp"))
	var out struct{ Text string }
	testkit.CallOK(t, cs, "echo", map[string]any{"text": "hi"}, &out)
	if out.Text != "hi" {
		t.Errorf("echo answered %+v", out)
	}
	if res := testkit.Call(t, cs, "echo", map[string]any{"text": ""}); !res.IsError || !strings.Contains(testkit.Text(res), "no text") {
		t.Errorf("echo without text: %+v %q", res, testkit.Text(res))
	}

	p, exited := testkit.StdioPeer(t, testkit.Command("mcp"))
	p.Initialize(t)
	p.Send(t, `{"jsonrpc":"2.0","id":"x","method":"no/such"}`)
	if r, _ := p.Until(t, `"x"`); r.Error == nil || r.Error.Code != -32601 {
		t.Errorf("an unknown method: %s, want -32601", r.Line)
	}
	p.CloseInput()
	if err := testkit.Within(t, time.Minute, "the server after its input closed", func() error { return <-exited }); err != nil {
		t.Errorf("the server ended with %v", err)
	}
	if len(p.Seen()) < 2 {
		t.Errorf("seen %q, want the two replies", p.Seen())
	}
}
