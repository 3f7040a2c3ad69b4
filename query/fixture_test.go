package query

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
	"github.com/viberag/viberag/tables"
)

// The fixture repository: a copy of fixtures/python plus files written
// here for the cases the planner must get right: literal text in code,
// strings and comments (twice on one line, in another case), a long
// unparsed text file whose line windows overlap, tests, a second
// definition of a name, paths that share words.
var extraFiles = map[string]string{
	"taskq/net.py": `"""Network helpers for the queue."""

import socket


class ConnectionError(Exception):
    """Raised when the peer goes away."""


def reconnect(sock):
    # connection reset by peer: the server closed the socket.
    try:
        sock.connect()
    except OSError as exc:
        if "connection reset by peer" in str(exc) or "Connection reset by peer" in str(exc):
            raise ConnectionError("connection reset by peer") from exc
    return sock


def send_all(sock, data):
    msg = "connection reset by peer"; other = "connection reset by peer (again)"
    return sock.sendall(data), msg, other
`,
	"taskq/backends.py": `"""Storage backends; the implementations live in the taskq_backends package."""

from taskq_backends.memory import MemoryBackend
from taskq_backends.redis import RedisBackend

__all__ = ["MemoryBackend", "RedisBackend"]
`,
	"taskq/scheduler.py": `"""Scheduling of delayed tasks with exponential backoff."""

from taskq.queue import Queue, RetryPolicy


class Scheduler:
    """Schedules tasks on a queue, retrying failures with backoff."""

    def __init__(self, queue: Queue):
        self.queue = queue

    def schedule(self, task, delay):
        """Schedule a task to run after delay seconds."""
        self.queue.push(task, delay)

    def backoff(self, attempt):
        return RetryPolicy().delay_for(attempt)
`,
	"tests/test_queue.py": `from taskq.queue import Queue, RetryPolicy


def test_retry_policy_delay():
    assert RetryPolicy().delay_for(1) == 1.0


def test_queue_push_pop():
    q = Queue()
    q.push(lambda: None)
    assert q.pop_due() is not None
`,
	"docs/errors.txt": longText(),
	// A name only a text file mentions: usage falls back to text.
	"docs/notes.txt": "To start, call frobnicate_widget(x) first.\nThen frobnicate_widgets are ready.\n",
}

// longText is a text file of 130 lines (indexed as overlapping line
// windows) with the phrase on lines 5, 55 (inside the overlap of the
// first two windows) and 120.
func longText() string {
	var b strings.Builder
	for i := 1; i <= 130; i++ {
		switch i {
		case 5, 55, 120:
			b.WriteString("error: connection reset by peer while reading\n")
		default:
			b.WriteString("line of prose about nothing in particular\n")
		}
	}
	return b.String()
}

var (
	fixtureOnce sync.Once
	fixtureRoot string
	fixtureDB   string
	fixtureErr  error
)

// fixture builds the fixture repository and its index once per test
// binary, and returns a planner on it and the repository root.
func fixture(t *testing.T) (*Planner, string) {
	t.Helper()
	src := testkit.FixtureDir(t, "python")
	fixtureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "viberag-query-test-")
		if err != nil {
			fixtureErr = err
			return
		}
		fixtureRoot = filepath.Join(dir, "repo")
		if err := os.CopyFS(fixtureRoot, os.DirFS(src)); err != nil {
			fixtureErr = err
			return
		}
		for p, c := range extraFiles {
			full := filepath.Join(fixtureRoot, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				fixtureErr = err
				return
			}
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				fixtureErr = err
				return
			}
		}
		ctx := context.Background()
		fixtureDB = filepath.Join(dir, "data", indexer.IndexFile)
		db, err := tables.Open(ctx, fixtureDB, tables.OpenOptions{})
		if err != nil {
			fixtureErr = err
			return
		}
		defer db.Close()
		_, fixtureErr = indexer.Run(ctx, db, fixtureRoot, indexer.Options{})
	})
	if fixtureErr != nil {
		t.Fatalf("fixture: %v", fixtureErr)
	}
	return openPlanner(t, Options{}), fixtureRoot
}

func openPlanner(t *testing.T, opts Options) *Planner {
	t.Helper()
	return plannerOn(t, fixtureDB, opts)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDB != "" {
		os.RemoveAll(filepath.Dir(filepath.Dir(fixtureDB)))
	}
	os.Exit(code)
}

func search(t *testing.T, p *Planner, req Request) *Response {
	t.Helper()
	resp, err := p.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("Search(%+v): %v", req, err)
	}
	return resp
}

func hitPaths(r *Response) []string {
	var out []string
	for _, h := range r.Hits {
		out = append(out, h.Path)
	}
	return out
}

// indexedFiles indexes a repository of the given files (path → content)
// into a fresh index and returns the index.
func indexedFiles(t *testing.T, files map[string]string) *tables.DB {
	t.Helper()
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, files)
	db := indextest.Open(t, indextest.Path(data), tables.OpenOptions{})
	if _, err := indexer.Run(context.Background(), db, root, indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	return db
}

// tunedHits runs one search on db with the given ranking constants.
func tunedHits(t *testing.T, db *tables.DB, tune Tuning, req Request) []Hit {
	t.Helper()
	p, err := New(context.Background(), db.Reader(), Options{Tuning: &tune})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	return search(t, p, req).Hits
}
