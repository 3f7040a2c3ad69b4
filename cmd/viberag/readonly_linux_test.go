//go:build linux

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/viberag/viberag/indexer"
)

// nobodyID is the user and group the tests drop to when they run as
// root, which ignores file modes.
const nobodyID = 65534

// unprivileged runs viberag (this test binary running main) as a user
// that file modes bind: uid and gid 65534 when the tests run as root,
// the tests' own user otherwise.
type unprivileged struct {
	base string              // reachable by that user; removed with the test
	bin  string              // this test binary, where that user can run it
	cred *syscall.Credential // nil: the tests' own user
	user string              // how messages name that user
}

func newUnprivileged(t *testing.T) *unprivileged {
	t.Helper()
	base, err := os.MkdirTemp("", "viberag-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Modes the test set would stop a user that is not root.
		filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(base)
	})
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	u := &unprivileged{base: base, bin: filepath.Join(base, "viberag.test"), user: fmt.Sprintf("uid %d", os.Geteuid())}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Link(self, u.bin); err != nil {
		b, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(u.bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		u.cred = &syscall.Credential{Uid: nobodyID, Gid: nobodyID}
		u.user = fmt.Sprintf("uid %d", nobodyID)
		if out, err := u.command(base, "version").CombinedOutput(); err != nil {
			t.Skipf("skipped: cannot run viberag as uid %d to test file modes: %v %s", nobodyID, err, out)
		}
	}
	return u
}

// mine makes path (and what is under it) the unprivileged user's.
func (u *unprivileged) mine(t *testing.T, path string) {
	t.Helper()
	if u.cred == nil {
		return
	}
	err := filepath.WalkDir(path, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobodyID, nobodyID)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// repo copies the Go fixture into a repository of the user's, and
// returns it and an empty data directory of the user's.
func (u *unprivileged) repo(t *testing.T) (root, data string) {
	t.Helper()
	root, data = filepath.Join(u.base, "repo"), filepath.Join(u.base, "data")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "fixtures", "go"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	u.mine(t, u.base)
	return root, data
}

// command is viberag with args, run in dir as the user.
func (u *unprivileged) command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(u.bin, "-test.run=^TestMainChild$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "VIBERAG_MAIN_CHILD=1", "CHILD_ARGS="+strings.Join(args, "\n"),
		"HOME="+u.base, "VIBERAG_HOME="+filepath.Join(u.base, "home"), "VIBERAG_MODEL_DIR=", "NO_COLOR=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
	return cmd
}

// run runs viberag with args in dir as the user.
func (u *unprivileged) run(t *testing.T, dir string, args ...string) childResult {
	t.Helper()
	cmd := u.command(dir, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := childResult{stdout: strings.TrimSuffix(out.String(), "PASS\n"), stderr: errb.String()}
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("viberag %v: %v", args, err)
	}
	t.Logf("$ viberag %s\nexit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	return r
}

// session runs `viberag mcp` as the user and connects to it over stdio
// as an agent's client does.
func (u *unprivileged) session(ctx context.Context, t *testing.T, dir string, args ...string) *sdk.ClientSession {
	t.Helper()
	cmd := u.command(dir, append([]string{"mcp"}, args...)...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "viberag-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize viberag mcp %v: %v\n%s", args, err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
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
func wantOK(t *testing.T, what string, r childResult, want string) {
	t.Helper()
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, want) {
		t.Errorf("%s: exit %d, want 0 and %q in:\n%s%s", what, r.code, want, r.stdout, r.stderr)
	}
}

// wantFail fails unless r exited 2 naming each of want on one short
// line of standard error.
func wantFail(t *testing.T, what string, r childResult, want ...string) {
	t.Helper()
	msg := strings.TrimSpace(r.stderr)
	ok := r.code == 2 && !strings.Contains(msg, "\n")
	for _, w := range want {
		ok = ok && strings.Contains(msg, w)
	}
	if !ok {
		t.Errorf("%s: exit %d, want 2 and one line naming %q:\n%s", what, r.code, want, msg)
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
		if !strings.Contains(st.stdout, c) {
			t.Errorf("status does not say why the index cannot be updated (%q):\n%s", c, st.stdout)
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
	cs := u.session(ctx, t, root, root, "--data-dir", data)
	hits := callTool(ctx, t, cs, "codebase_search", map[string]any{"query": "Middleware"})
	if !strings.Contains(fmt.Sprint(hits["hits"]), "ratelimit/limiter.go") {
		t.Errorf("codebase_search on the read-only index: %v", hits)
	}
	st := callTool(ctx, t, cs, "get_status", map[string]any{})
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
	if os.Getenv("VIBERAG_MAIN_CHILD") != "" {
		t.Skip("child")
	}
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
	wantFail(t, "index", u.run(t, root, "index", root, "--data-dir", data), data, "0555", u.user, "chmod u+w "+data, "--data-dir")
	wantFail(t, "index --force", u.run(t, root, "index", "--force", root, "--data-dir", data), data, "0555", u.user, "chmod u+w "+data)
	if after := listing(t, data); !slices.Equal(before, after) {
		t.Errorf("the data directory changed: %v, then %v", before, after)
	}

	// A user who may write the directory (here root) rebuilds the index
	// while the server reads it without SQLite's shared memory: the
	// server's next answer comes from the new file.
	if u.cred == nil {
		return // no other user to write it
	}
	if err := os.WriteFile(filepath.Join(root, "added.go"), []byte("package main\n\nfunc Added() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runChild(t, nil, "index", "--force", root, "--data-dir", data); r.code != 0 {
		t.Fatalf("index as root: exit %d\n%s", r.code, r.stderr)
	}
	hits := callTool(ctx, t, cs, "codebase_search", map[string]any{"query": "Added"})
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
	if os.Getenv("VIBERAG_MAIN_CHILD") != "" {
		t.Skip("child")
	}
	u := newUnprivileged(t)
	root, data := u.repo(t)
	wantOK(t, "index", u.run(t, root, "index", root, "--data-dir", data, "--embed", "off"), "3 files")
	path := filepath.Join(data, indexer.IndexFile)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	before := listing(t, data)
	wantFail(t, "index", u.run(t, root, "index", root, "--data-dir", data), path, "0444", u.user, "chmod u+w "+path)
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
	if err := os.WriteFile(filepath.Join(root, "added.go"), []byte("package main\n\nfunc Added() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u.mine(t, root)
	wantOK(t, "index after chmod 644", u.run(t, root, "index", root, "--data-dir", data), "4 files")
	wantOK(t, "search after", u.run(t, root, "search", "--data-dir", data, "Added"), "added.go")
}

// TestSQLiteHolderChild is the process holdSQLiteWrite starts: it holds
// a write transaction on the index file, as an sqlite3 shell would,
// until its standard input closes.
func TestSQLiteHolderChild(t *testing.T) {
	path := os.Getenv("VIBERAG_SQLITE_HOLD")
	if path == "" {
		t.Skip("run by holdSQLiteWrite")
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	fmt.Println("held")
	_, _ = io.Copy(io.Discard, os.Stdin)
	conn.ExecContext(context.Background(), "ROLLBACK")
}

// holdSQLiteWrite starts a process that holds a write transaction on the
// index file at path; release ends it.
func holdSQLiteWrite(t *testing.T, path string) (pid int, release func()) {
	t.Helper()
	cmd, release := startHolder(t, "TestSQLiteHolderChild", "VIBERAG_SQLITE_HOLD="+path, "held")
	return cmd.Process.Pid, release
}

// TestForeignSQLiteWriter: another program's write transaction on
// index.db (an sqlite3 shell, here a child process) makes `index --wait
// 2s` fail at 2 s naming its pid; `viberag mcp` still answers initialize
// and searches at once, and get_status says what its run waits for;
// `index` without --wait says whom it waits for and succeeds once the
// transaction ends.
func TestForeignSQLiteWriter(t *testing.T) {
	if os.Getenv("VIBERAG_MAIN_CHILD") != "" {
		t.Skip("child")
	}
	root := copyTree(t, filepath.Join("..", "..", "fixtures", "go"))
	data := t.TempDir()
	env := []string{"VIBERAG_HOME=" + t.TempDir(), "VIBERAG_MODEL_DIR="}
	if r := runChild(t, env, "index", root, "--data-dir", data, "--embed", "off"); r.code != 0 {
		t.Fatalf("index: exit %d\n%s", r.code, r.stderr)
	}
	if err := os.WriteFile(filepath.Join(root, "added.go"), []byte("package main\n\nfunc Added() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pid, release := holdSQLiteWrite(t, filepath.Join(data, indexer.IndexFile))
	holder := "pid " + strconv.Itoa(pid)

	start := time.Now()
	r := runChild(t, env, "index", root, "--data-dir", data, "--wait", "2s")
	took := time.Since(start)
	if r.code == 0 || !strings.Contains(r.stderr, holder) || !strings.Contains(r.stderr, "write transaction") || took > 8*time.Second {
		t.Errorf("index --wait 2s beside %s: exit %d after %s:\n%s", holder, r.code, took, r.stderr)
	}

	func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		cs := startMCP(ctx, t, env, "mcp", root, "--data-dir", data)
		defer cs.Close()
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("initialize took %s beside the writer", took)
		}
		hits := callTool(ctx, t, cs, "codebase_search", map[string]any{"query": "Middleware"})
		if !strings.Contains(fmt.Sprint(hits["hits"]), "ratelimit/limiter.go") {
			t.Errorf("codebase_search beside the writer: %v", hits)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			st := callTool(ctx, t, cs, "get_status", map[string]any{})
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

	cmd := exec.Command(os.Args[0], "-test.run=^TestMainChild$")
	cmd.Env = append(append(os.Environ(), "VIBERAG_MAIN_CHILD=1", "CHILD_ARGS="+strings.Join([]string{"index", root, "--data-dir", data}, "\n")), env...)
	var stdout, stderr syncBuffer
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

// TestLimitedChild runs main with its files limited to VIBERAG_FSIZE
// bytes (RLIMIT_FSIZE, SIGXFSZ ignored): a write past it fails as on a
// full disk.
func TestLimitedChild(t *testing.T) {
	n, err := strconv.ParseUint(os.Getenv("VIBERAG_FSIZE"), 10, 64)
	if err != nil {
		t.Skip("run by TestForceOnFullDisk")
	}
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		t.Fatal(err)
	}
	os.Args = append([]string{"viberag"}, strings.Split(os.Getenv("CHILD_ARGS"), "\n")...)
	main()
	os.Exit(0)
}

// TestForceOnFullDisk: `index --force` that runs out of room (its files
// limited to a third of the index's size) fails saying the disk is
// full, removes every file it made (index.db.new, its -wal and -shm)
// and leaves the index as it was; once there is room, it succeeds.
func TestForceOnFullDisk(t *testing.T) {
	if os.Getenv("VIBERAG_MAIN_CHILD") != "" || os.Getenv("VIBERAG_FSIZE") != "" {
		t.Skip("child")
	}
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

	cmd := exec.Command(os.Args[0], "-test.run=^TestLimitedChild$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("VIBERAG_FSIZE=%d", fi.Size()/3),
		"CHILD_ARGS="+strings.Join([]string{"index", "--force", root, "--data-dir", data}, "\n"))
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
