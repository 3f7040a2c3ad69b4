// Package pgtest starts throwaway PostgreSQL servers for tests: one data
// directory per server, listening on a loopback port with its socket in a
// private directory, fsync off, removed when the test ends.
//
// Tests that need PostgreSQL call Start; where no server can start (no
// PostgreSQL installed, as on a bare clone), the test is skipped with one
// line naming the variable that points at the binaries. A test never fails
// for lack of a server.
package pgtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// BinEnv names the variable holding the directory of initdb and pg_ctl.
// Without it Start looks in PATH, then in Debian's /usr/lib/postgresql/*/bin.
const BinEnv = "VIBERAG_PG_BIN"

// Server is a running throwaway PostgreSQL server.
type Server struct {
	// URL connects as the superuser to the postgres database over TCP.
	URL string
	// Port is the loopback port the server listens on.
	Port int

	dir    string // data directory
	bin    string // directory of pg_ctl
	asUser string // "postgres" when running as root, else ""
	log    string // the server's log file
	opts   string // the server's options (pg_ctl -o)
	port   int    // the port it listens on when running
}

// Start starts a server and stops it when t ends, or skips t when no
// PostgreSQL binaries are found.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := findBin()
	if bin == "" {
		t.Skipf("PostgreSQL tests skipped: no initdb found; set %s to a PostgreSQL bin directory to run them", BinEnv)
	}
	s, err := start(t.TempDir(), bin)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Logf("pgtest: stop: %v", err)
		}
	})
	return s
}

// Stop stops the server at once (an immediate shutdown, as a crash would):
// for tests of what happens when a server goes away. What was committed
// survives it, as on a server with fsync on: these run with fsync and
// synchronous commit off, under which an immediate shutdown loses recent
// commits, so Stop writes a checkpoint first.
func (s *Server) Stop() error {
	if s.Port != 0 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, s.URL)
		if err != nil {
			return fmt.Errorf("pgtest: checkpoint before stop: %w", err)
		}
		_, err = conn.Exec(ctx, "CHECKPOINT")
		conn.Close(ctx)
		if err != nil {
			return fmt.Errorf("pgtest: checkpoint before stop: %w", err)
		}
	}
	return s.stop()
}

// Restart starts a server that Stop stopped, on the same port, so that its
// URL holds again: for tests of clients reconnecting when a server comes
// back.
func (s *Server) Restart() error {
	if s.Port != 0 {
		return fmt.Errorf("pgtest: restart of a server that is running")
	}
	out, err := s.run("pg_ctl", "-D", s.dir, "-w", "-t", "60", "-l", s.log, "-o", s.opts, "start")
	if err != nil {
		log, _ := os.ReadFile(s.log)
		return fmt.Errorf("pgtest: pg_ctl start on port %d again: %v: %s %s", s.port, err, out, tail(log))
	}
	s.Port = s.port
	return nil
}

// findBin returns the directory holding initdb and pg_ctl, or "".
func findBin() string {
	if d := os.Getenv(BinEnv); d != "" {
		return d
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// The newest version first: names sort as numbers would for 9..99.
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	return ""
}

func start(tmp, bin string) (*Server, error) {
	s := &Server{bin: bin, dir: filepath.Join(tmp, "data"), log: filepath.Join(tmp, "server.log")}
	sock := filepath.Join(tmp, "sock")
	if err := os.Mkdir(sock, 0o700); err != nil {
		return nil, err
	}
	// PostgreSQL refuses to run as root: run it as the postgres user, which
	// must be able to reach the temporary directory.
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root and no postgres user to run the server as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for d := tmp; d != "/" && d != "."; d = filepath.Dir(d) {
			fi, err := os.Stat(d)
			if err != nil {
				return nil, err
			}
			if fi.Mode().Perm()&0o005 != 0o005 {
				if err := os.Chmod(d, fi.Mode().Perm()|0o055); err != nil {
					return nil, err
				}
			}
		}
		if err := os.Chown(tmp, uid, gid); err != nil {
			return nil, err
		}
		if err := os.Chown(sock, uid, gid); err != nil {
			return nil, err
		}
		s.asUser = "postgres"
	}
	if out, err := s.run("initdb", "-D", s.dir, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=32MB", port, sock)
		out, err := s.run("pg_ctl", "-D", s.dir, "-w", "-t", "60", "-l", s.log, "-o", opts, "start")
		if err == nil {
			s.Port, s.port, s.opts = port, port, opts
			s.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
			return s, nil
		}
		log, _ := os.ReadFile(s.log)
		lastErr = fmt.Errorf("pg_ctl start on port %d: %v: %s %s", port, err, out, tail(log))
	}
	return nil, lastErr
}

func (s *Server) stop() error {
	if s.Port == 0 {
		return nil
	}
	out, err := s.run("pg_ctl", "-D", s.dir, "-m", "immediate", "-w", "stop")
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %v: %s", err, out)
	}
	s.Port = 0
	return nil
}

// run runs one of the server's programs, as the postgres user when needed.
func (s *Server) run(prog string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := filepath.Join(s.bin, prog)
	if s.asUser != "" {
		args = append([]string{"-u", s.asUser, "--", name}, args...)
		name = "runuser"
	}
	return exec.CommandContext(ctx, name, args...).CombinedOutput()
}

// freePort asks the kernel for a free loopback port. Another process may
// take it before the server binds; start retries on another port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(b))
}
