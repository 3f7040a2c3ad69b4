package query

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReduceTaskText: each kind of pasted task text reduces to the terms
// that name the repository's code — its own stack frames first, error
// types and messages, installed packages' frames (the repository may be
// one of them), code spans, identifiers and paths, then the most
// repeated content words — and never to frames of runtimes and standard
// libraries, to machine-specific path prefixes, or to the words every
// report uses. The whole reduction is compared, so
// any change to the rules shows here.
func TestReduceTaskText(t *testing.T) {
	tests := []struct {
		file string
		want string
		// none must not appear in the reduction (case-insensitive).
		none []string
	}{
		{"python_traceback.txt",
			"locate_app flask/cli.py load_app run_command NoAppException import hello mean set FLASK_APP main click/core.py start server upgrading idea",
			[]string{"site-packages", "venv", "traceback", "invoke", "alice", "python3"}},
		{"go_panic.txt",
			"Command.ExecuteC cobra/command.go Command.Execute main.main app/main.go invalid memory address nil pointer dereference",
			[]string{"goroutine", "proc.go", "runtime", "SIGSEGV", "bob", "0x3a"}},
		{"java_stack.txt",
			"Adapter.read ReflectiveTypeAdapterFactory.java Gson.fromJson Gson.java App.main App.java JsonReader.beginObject JsonReader.java JsonSyntaxException Expected BEGIN_OBJECT STRING line column path",
			[]string{"DirectMethodHandleAccessor", "jdk", "IllegalStateException", "more"}},
		{"rust_panic.txt",
			"src/config.rs config.load_settings myapp.main src/main.rs called Result::unwrap Err value Os code kind NotFound message file directory",
			[]string{"rust_begin_unwind", "unwrap_failed", "panicking.rs", "rustc", "backtrace"}},
		{"js_error.txt",
			"jsonParser middleware/json.js Layer.handle router/layer.js next router/route.js Cannot read properties undefined reading length parseBody lib/read.js server crashes json middleware",
			[]string{"node_modules", "processTicksAndRejections", "task_queues", "TypeError", "srv"}},
		{"feature_request.txt",
			"EmailSender mailer/retry.go WEBHOOK_MAX_RETRIES webhook_deliveries retry_enabled WebhookEndpoint webhooks/dispatcher.go Dispatcher.deliver deliveries retry webhook delivery retries great receiving server returns connection marked never",
			[]string{"thanks", "request", "feature", "currently", "example", "pull"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "tasktext", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			q := string(data)
			if !IsTaskText(q) {
				t.Fatal("not recognised as task text")
			}
			got := ReduceTaskText(q)
			if got != tc.want {
				t.Errorf("reduced to\n  %s\nwant\n  %s", got, tc.want)
			}
			lower := " " + strings.ToLower(got) + " "
			for _, n := range tc.none {
				if strings.Contains(lower, strings.ToLower(n)) {
					t.Errorf("reduction holds %q: %s", n, got)
				}
			}
			if len(got) > maxReducedBytes || len(strings.Fields(got)) > maxReducedTerms {
				t.Errorf("reduction over its bounds: %d bytes, %d terms", len(got), len(strings.Fields(got)))
			}
			if again := ReduceTaskText(q); again != got {
				t.Errorf("not deterministic: %q then %q", got, again)
			}
		})
	}
}

// TestIsTaskText: questions, names, single error lines and code snippets
// are searched as they stand; reports, stack traces and anything over
// MaxLiteralBytes are reduced.
func TestIsTaskText(t *testing.T) {
	prose := strings.Repeat("When the server starts it reads the configuration file and then it fails to bind the port. ", 4)
	tests := []struct {
		q    string
		want bool
	}{
		{"how are failed tasks retried", false},
		{"Queue.retry", false},
		{"RuntimeError: Working outside of request context.", false},
		{`"connection reset by peer"`, false},
		{"func (s *Server) Run(ctx context.Context) error {\n\treturn s.serve(ctx)\n}", false},
		{strings.Repeat("x := compute(a, b)\nif x != nil {\n\treturn x\n}\n", 12), false}, // code: no stop words
		{prose, true},
		{"  File \"app.py\", line 3, in main", true},
		{"\tat com.example.App.main(App.java:10)", true},
		{"    at handler (/srv/app/lib/handler.js:10:5)", true},
		{"\t/home/u/app/main.go:12 +0x25", true},
		{"thread 'main' panicked at src/main.rs:2:5:", true},
		{strings.Repeat("a", MaxLiteralBytes+1), true},
	}
	for _, tc := range tests {
		if got := IsTaskText(tc.q); got != tc.want {
			t.Errorf("IsTaskText(%.60q) = %v, want %v", tc.q, got, tc.want)
		}
	}
}

// TestReducePython311: Python 3.11's carets under a source line and a
// chained exception's banner are not words to search; the exception after
// the last frame is, whatever its type's name.
func TestReducePython311(t *testing.T) {
	q := `Traceback (most recent call last):
  File "/srv/app/jobs/sync.py", line 40, in pull
    rows = fetch(cursor)
           ^^^^^^^^^^^^^
KeyError: 'cursor'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/app/jobs/sync.py", line 44, in pull
    raise SyncAborted(batch)
jobs.errors.SyncAborted: batch 7 left unsynced
`
	want := "pull jobs/sync.py SyncAborted cursor batch left unsynced"
	if got := ReduceTaskText(q); got != want {
		t.Errorf("reduced to %q, want %q", got, want)
	}
}

func TestFrameFuncAndShortPath(t *testing.T) {
	for in, want := range map[string]string{
		"github.com/spf13/cobra.(*Command).ExecuteC": "Command.ExecuteC",
		"main.main":                    "main.main",
		"myapp::config::load_settings": "config.load_settings",
		"com.google.gson.internal.bind.ReflectiveTypeAdapterFactory$Adapter.read": "Adapter.read",
		"Object.<anonymous>": "",
		"<module>":           "",
		"main.func1":         "main",
	} {
		if got := frameFunc(in); got != want {
			t.Errorf("frameFunc(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"/home/alice/src/flask/src/flask/cli.py": "flask/cli.py",
		`C:\work\app\src\main.rs`:                "src/main.rs",
		"app.py":                                 "app.py",
	} {
		if got := shortPath(in); got != want {
			t.Errorf("shortPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSearchTaskText: a traceback pasted whole with prose around it, over
// the old 4 KiB limit, is accepted, reduced, searched, and the answer
// says what was searched and echoes the text cut; an intent that
// searches text as it stands still refuses it, naming the limit.
func TestSearchTaskText(t *testing.T) {
	p, _ := fixture(t)
	report := "After upgrading, retried tasks never run again and the worker dies. " +
		strings.Repeat("We checked the logs of the worker on every machine and the configuration of each queue. ", 60) +
		"\nTraceback (most recent call last):\n" +
		"  File \"/usr/lib/python3.12/threading.py\", line 1010, in run\n" +
		"  File \"/home/dev/proj/taskq/scheduler.py\", line 17, in backoff\n" +
		"    return RetryPolicy().delay_for(attempt)\n" +
		"  File \"/home/dev/proj/taskq/queue.py\", line 23, in delay_for\n" +
		"taskq.queue.RetryLimitExceeded: attempt 7 is over the policy's limit\n"
	if len(report) <= 4096 {
		t.Fatalf("report is %d bytes; the test needs more than the old limit", len(report))
	}
	for _, intent := range []Intent{Auto, Concept} {
		r := search(t, p, Request{Query: report, Intent: intent})
		if !strings.HasPrefix(r.QueryUsed, "delay_for taskq/queue.py backoff taskq/scheduler.py RetryLimitExceeded") {
			t.Errorf("%s: query_used %q", intent, r.QueryUsed)
		}
		if intent == Auto && !strings.HasPrefix(r.Routing, RuleTaskText) {
			t.Errorf("routing %q", r.Routing)
		}
		if len(r.Query) > maxEchoBytes+40 || !strings.Contains(r.Query, "bytes)") {
			t.Errorf("query echoed as %d bytes: %.80q", len(r.Query), r.Query)
		}
		if paths := hitPaths(r); len(paths) == 0 || paths[0] != "taskq/queue.py" {
			t.Errorf("%s: hits %v, want taskq/queue.py first", intent, paths)
		}
	}
	if _, err := p.Search(context.Background(), Request{Query: report, Intent: ExactText}); err == nil || !strings.Contains(err.Error(), "4096") {
		t.Errorf("exact_text of %d bytes: %v", len(report), err)
	}
	// A short question is searched as it stands.
	if r := search(t, p, Request{Query: "how are failed tasks retried"}); r.QueryUsed != "" {
		t.Errorf("short question reduced to %q", r.QueryUsed)
	}
}
