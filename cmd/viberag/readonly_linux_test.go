//go:build linux

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
)

// unprivileged runs viberag (this test binary running main) as a user
// that file modes bind (testkit.Unprivileged).
type unprivileged struct{ *testkit.User }

func newUnprivileged(t *testing.T) *unprivileged {
	t.Helper()
	return &unprivileged{testkit.Unprivileged(t)}
}

// repo copies the Go fixture into a repository of the user's, and
// returns it and an empty data directory of the user's.
func (u *unprivileged) repo(t *testing.T) (root, data string) {
	t.Helper()
	root, data = filepath.Join(u.Dir, "repo"), filepath.Join(u.Dir, "data")
	if err := os.CopyFS(root, os.DirFS(testkit.FixtureDir(t, "go"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	u.Own(t, u.Dir)
	return root, data
}

// command is viberag with args, run in dir as the user.
func (u *unprivileged) command(dir string, args ...string) *exec.Cmd {
	cmd := u.Command("viberag", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "VIBERAG_HOME="+filepath.Join(u.Dir, "home"), "VIBERAG_MODEL_DIR=", "NO_COLOR=1")
	return cmd
}

// run runs viberag with args in dir as the user.
func (u *unprivileged) run(t *testing.T, dir string, args ...string) testkit.Result {
	t.Helper()
	r := testkit.Run(t, u.command(dir, args...), 2*time.Minute)
	t.Logf("$ viberag %s\nexit %d\n%s%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	return r
}

// session runs `viberag mcp` as the user and connects to it over stdio
// as an agent's client does.
func (u *unprivileged) session(t *testing.T, dir string, args ...string) *sdk.ClientSession {
	t.Helper()
	return testkit.StdioSession(t, u.command(dir, append([]string{"mcp"}, args...)...))
}

// listing names the files in dir with their modes.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var l []string
	for _, e := range es {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		l = append(l, fmt.Sprintf("%s %04o", e.Name(), fi.Mode().Perm()))
	}
	return l
}

// wantOK fails unless r exited 0 with want in its output.
func wantOK(t *testing.T, what string, r testkit.Result, want string) {
	t.Helper()
	if r.Code != 0 || !strings.Contains(r.Stdout+r.Stderr, want) {
		t.Errorf("%s: exit %d, want 0 and %q in:\n%s%s", what, r.Code, want, r.Stdout, r.Stderr)
	}
}

// wantFail fails unless r exited 2 naming each of want on one short
// line of standard error.
func wantFail(t *testing.T, what string, r testkit.Result, want ...string) {
	t.Helper()
	msg := strings.TrimSpace(r.Stderr)
	ok := r.Code == 2 && !strings.Contains(msg, "\n")
	for _, w := range want {
		ok = ok && strings.Contains(msg, w)
	}
	if !ok {
		t.Errorf("%s: exit %d, want 2 and one line naming %q:\n%s", what, r.Code, want, msg)
	}
}

// readOnlyReads runs every reading command on the index of root in
// data: each answers, and status says why the index cannot be updated.
func readOnlyReads(t *testing.T, u *unprivileged, root, data string, cause ...string) {
	t.Helper()
	wantOK(t, "search", u.run(t, root, "search", "--data-dir", data, "Middleware"), "ratelimit/limiter.go")
	wantOK(t, "symbol", u.run(t, root, "symbol", "--data-dir", data, "ratelimit.Middleware"), "func Middleware")
	wantOK(t, "refs", u.run(t, root, "refs", "--data-dir", data, "Handler"), "ratelimit/limiter.go")
	st := u.run(t, root, "status", "--data-dir", data)
	wantOK(t, "status", st, "3 files")
	for _, c := range cause {
		if !strings.Contains(st.Stdout, c) {
			t.Errorf("status does not say why the index cannot be updated (%q):\n%s", c, st.Stdout)
		}
	}
	wantOK(t, "status --check", u.run(t, root, "status", "--check", "--data-dir", data), "check: ok")
}

// readOnlySession: `viberag mcp` on a read-only index answers initialize
// and searches over a real client session, says in get_status that it
// serves the index read-only and why, and refuses index runs. It
// returns the session.
func readOnlySession(ctx context.Context, t *testing.T, u *unprivileged, root, data string, cause ...string) *sdk.ClientSession {
	t.Helper()
	cs := u.session(t, root, root, "--data-dir", data)
	hits := callTool(t, cs, "codebase_search", map[string]any{"query": "Middleware"})
	if !strings.Contains(fmt.Sprint(hits["hits"]), "ratelimit/limiter.go") {
		t.Errorf("codebase_search on the read-only index: %v", hits)
	}
	st := callTool(t, cs, "get_status", map[string]any{})
	warn := fmt.Sprint(st["warnings"])
	for _, c := range append([]string{"read-only"}, cause...) {
		if !strings.Contains(warn, c) {
			t.Errorf("get_status warnings do not say %q: %s", c, warn)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "index", Arguments: map[string]any{}})
	if err != nil || !res.IsError || len(res.Content) == 0 {
		t.Fatalf("index on the read-only server: %v %+v", err, res)
	}
	if tc, ok := res.Content[0].(*sdk.TextContent); !ok || !strings.Contains(tc.Text, "read-only") {
		t.Errorf("index on the read-only server: %+v", res.Content[0])
	}
	return cs
}

// TestReadOnlyDataDir: with the data directory read-only (chmod 555)
// for the user who built the index, search, symbol, refs, status and
// status --check answer, `viberag mcp` answers initialize and searches
// read-only, and index and index --force fail with one line naming the
// directory, its mode, the user and the fix, writing nothing.
func TestReadOnlyDataDir(t *testing.T) {
	u := newUnprivileged(t)
	root, data := u.repo(t)
	wantOK(t, "index", u.run(t, root, "index", root, "--data-dir", data, "--embed", "off"), "3 files")
	if err := os.Chmod(data, 0o555); err != nil {
		t.Fatal(err)
	}
	before := listing(t, data)

	readOnlyReads(t, u, root, data, data, "0555")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := readOnlySession(ctx, t, u, root, data, data, "0555", "chmod u+w")
	wantFail(t, "index", u.run(t, root, "index", root, "--data-dir", data), data, "0555", u.Name, "chmod u+w "+data, "--data-dir")
	wantFail(t, "index --force", u.run(t, root, "index", "--force", root, "--data-dir", data), data, "0555", u.Name, "chmod u+w "+data)
	if after := listing(t, data); !slices.Equal(before, after) {
		t.Errorf("the data directory changed: %v, then %v", before, after)
	}

	// A user who may write the directory (here root) rebuilds the index
	// while the server reads it without SQLite's shared memory: the
	// server's next answer comes from the new file.
	if !u.Switched() {
		return // no other user to write it
	}
	testkit.WriteFile(t, filepath.Join(root, "added.go"), "package main\n\nfunc Added() {}\n")
	if r := runChild(t, nil, "index", "--force", root, "--data-dir", data); r.Code != 0 {
		t.Fatalf("index as root: exit %d\n%s", r.Code, r.Stderr)
	}
	hits := callTool(t, cs, "codebase_search", map[string]any{"query": "Added"})
	if !strings.Contains(fmt.Sprint(hits["hits"]), "added.go") {
		t.Errorf("the server did not see the index root rebuilt: %v", hits)
	}
}

// TestReadOnlyIndexFile: with index.db read-only (chmod 444), index
// fails with one line naming the file, its mode and the fix, leaving no
// file behind; every reading command and `viberag mcp` answer; once the
// file is writable again (the -shm the readers left read-only
// notwithstanding), index works.
func TestReadOnlyIndexFile(t *testing.T) {
	u := newUnprivileged(t)
	root, data := u.repo(t)
	wantOK(t, "index", u.run(t, root, "index", root, "--data-dir", data, "--embed", "off"), "3 files")
	path := filepath.Join(data, indexer.IndexFile)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	before := listing(t, data)
	wantFail(t, "index", u.run(t, root, "index", root, "--data-dir", data), path, "0444", u.Name, "chmod u+w "+path)
	if after := listing(t, data); !slices.Equal(before, after) {
		t.Errorf("the failed index left files: %v, then %v", before, after)
	}

	readOnlyReads(t, u, root, data, path, "0444")
	func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		readOnlySession(ctx, t, u, root, data, path, "0444").Close()
	}()

	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("after chmod 644 index.db: %v", listing(t, data))
	testkit.WriteFile(t, filepath.Join(root, "added.go"), "package main\n\nfunc Added() {}\n")
	u.Own(t, root)
	wantOK(t, "index after chmod 644", u.run(t, root, "index", root, "--data-dir", data), "4 files")
	wantOK(t, "search after", u.run(t, root, "search", "--data-dir", data, "Added"), "added.go")
}

// holdSQLiteRole holds a write transaction on the index file args[0],
// as an sqlite3 shell would, says "held", and holds it until its standard
// input closes.
func holdSQLiteRole(args []string) error {
	db, err := sql.Open("sqlite3", args[0])
	if err != nil {
		return err
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		return err
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	fmt.Println("held")
	_, _ = io.Copy(io.Discard, os.Stdin)
	_, err = conn.ExecContext(context.Background(), "ROLLBACK")
	return err
}

// holdSQLiteWrite starts a process that holds a write transaction on the
// index file at path; release ends it.
func holdSQLiteWrite(t *testing.T, path string) (pid int, release func()) {
	t.Helper()
	cmd := testkit.Command("sqlite holder", path)
	release = testkit.Hold(t, cmd, "held")
	return cmd.Process.Pid, release
}

// TestForeignSQLiteWriter: another program's write transaction on
// index.db (an sqlite3 shell, here a child process) makes `index --wait
// 2s` fail at 2 s naming its pid; `viberag mcp` still answers initialize
// and searches at once, and get_status says what its run waits for;
// `index` without --wait says whom it waits for and succeeds once the
// transaction ends.
func TestForeignSQLiteWriter(t *testing.T) {
	root := testkit.Fixture(t, "go")
	data := t.TempDir()
	env := []string{"VIBERAG_HOME=" + t.TempDir(), "VIBERAG_MODEL_DIR="}
	if r := runChild(t, env, "index", root, "--data-dir", data, "--embed", "off"); r.Code != 0 {
		t.Fatalf("index: exit %d\n%s", r.Code, r.Stderr)
	}
	testkit.WriteFile(t, filepath.Join(root, "added.go"), "package main\n\nfunc Added() {}\n")
	pid, release := holdSQLiteWrite(t, filepath.Join(data, indexer.IndexFile))
	holder := "pid " + strconv.Itoa(pid)

	start := time.Now()
	r := runChild(t, env, "index", root, "--data-dir", data, "--wait", "2s")
	took := time.Since(start)
	if r.Code == 0 || !strings.Contains(r.Stderr, holder) || !strings.Contains(r.Stderr, "write transaction") || took > 8*time.Second {
		t.Errorf("index --wait 2s beside %s: exit %d after %s:\n%s", holder, r.Code, took, r.Stderr)
	}

	func() {
		start := time.Now()
		cs := testkit.StdioSession(t, viberagCmd(env, "mcp", root, "--data-dir", data))
		defer cs.Close()
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("initialize took %s beside the writer", took)
		}
		hits := callTool(t, cs, "codebase_search", map[string]any{"query": "Middleware"})
		if !strings.Contains(fmt.Sprint(hits["hits"]), "ratelimit/limiter.go") {
			t.Errorf("codebase_search beside the writer: %v", hits)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			st := callTool(t, cs, "get_status", map[string]any{})
			b, _ := json.Marshal(st["run"])
			if strings.Contains(string(b), holder) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("get_status never said the run waits for %s: %v", holder, st)
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()

	cmd := viberagCmd(env, "index", root, "--data-dir", data)
	var stdout, stderr testkit.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(stderr.String(), "another process is writing the index: "+holder) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("index never said it waits for %s:\n%s", holder, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	release()
	if err := cmd.Wait(); err != nil || !strings.Contains(stdout.String(), "4 files") {
		t.Errorf("index once the writer ended: %v\n%s%s", err, stdout.String(), stderr.String())
	}
}

// TestForceOnFullDisk: `index --force` that runs out of room (its files
// limited to a third of the index's size) fails saying the disk is
// full, removes every file it made (index.db.new, its -wal and -shm)
// and leaves the index as it was; once there is room, it succeeds.
func TestForceOnFullDisk(t *testing.T) {
	root, data := damageTree(t), t.TempDir()
	if code, _, stderr := runMain(t, "index", root, "--data-dir", data, "--embed", "off"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	path := filepath.Join(data, indexer.IndexFile)
	sum := func() [32]byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(b)
	}
	old := sum()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}

	cmd := viberagCmd(nil, "index", "--force", root, "--data-dir", data)
	testkit.LimitFileSize(cmd, fi.Size()/3)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	t.Logf("index --force, files limited to %d bytes: %v\n%s", fi.Size()/3, err, stderr.String())
	if err == nil || !strings.Contains(stderr.String(), "is full") || !strings.Contains(stderr.String(), "removed") {
		t.Errorf("index --force on a full disk: %v, want a failure saying the disk is full:\n%s", err, stderr.String())
	}
	matches, _ := filepath.Glob(path + indexer.FreshSuffix + "*")
	if len(matches) > 0 {
		t.Errorf("the failed rebuild left %v", matches)
	}
	if sum() != old {
		t.Error("the failed rebuild changed the index")
	}

	if code, _, stderr := runMain(t, "index", "--force", root, "--data-dir", data); code != 0 {
		t.Fatalf("index --force with room: exit %d: %s", code, stderr)
	}
	if matches, _ := filepath.Glob(path + indexer.FreshSuffix + "*"); len(matches) > 0 {
		t.Errorf("the rebuild left %v", matches)
	}
}
