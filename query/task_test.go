package query

import (
	"slices"
	"strings"
	"testing"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
)

func TestTaskShapeOf(t *testing.T) {
	tests := []struct {
		q       string
		reduced bool
		task    bool
		scope   string
		words   string
	}{
		// Verbs of change open commit subjects and change requests.
		{"Fix crash when the config file is empty", false, true, "", "crash when the config file is empty"},
		{"Added a retry limit to the worker", false, true, "", "a retry limit to the worker"},
		{"don't close the pool twice", false, true, "", "close the pool twice"},
		{"* Remove the deprecated flag", false, true, "", "the deprecated flag"},
		// Conventional commits, with and without a scope.
		{"feat(parser): accept trailing commas", false, true, "parser", "parser trailing commas"},
		{"fix(lex)!: Remove unsafe method", false, true, "lex", "lex unsafe method"},
		{"refactor: centralize subscriptions", false, true, "", "centralize subscriptions"},
		// A scope before a verb of change, bracketed or bare.
		{"[Console] Fixed invalid help command shortcut", false, true, "Console", "Console invalid help command shortcut"},
		{"net/http: fix the keep-alive race", false, true, "net/http", "net/http the keep-alive race"},
		// A merge's line marks a commit and is not searched.
		{"Remove patch to modify config for kramdown Merge pull request 7699", false, true, "", "patch to modify config for kramdown"},
		{"Merge pull request #12 from someone/retry-limit Add a retry limit", false, true, "", "a retry limit"},
		{"Link to Support Merge pull request 6415", false, true, "", "Link to Support"},
		{"Merges two maps, the second's keys first", false, false, "", ""},
		// Reduced task text is task-shaped whatever its first word.
		{"Traceback worker.py KeyError", true, true, "", "Traceback worker.py KeyError"},
		// Two verbs of change joined name operations, as a heading does;
		// a verb of change and another word open a change request.
		{"update and delete statement builders", false, false, "", ""},
		{"Add or remove listeners", false, false, "", ""},
		{"fix and test for closed concurrency", false, true, "", "and test for closed concurrency"},
		// A fix named anywhere: a commit subject and body that open with
		// no verb of change; "fixed" as an adjective, or a question about
		// a fix, is not one.
		{"Stop leaking variables into the global scope. Fixes #12", false, true, "", "Stop leaking variables into the global scope. Fixes #12"},
		{"EOF after newline mishandled (hotfix)", false, true, "", "EOF after newline mishandled (hotfix)"},
		{"A buffer of fixed size", false, false, "", ""},
		{"how does the retry fix the race?", false, false, "", ""},
		// An adverb before a verb of change; both stay searched. A doc
		// comment's adverb stands before a verb in -s.
		{"Only apply the settings on valid targets", false, true, "", "Only apply the settings on valid targets"},
		{"explicitly mark functions as internal", false, true, "", "explicitly mark functions as internal"},
		{"Only returns the first match", false, false, "", ""},
		{"Early return when the list is empty", false, false, "", ""},
		// A commit message with its body: the subject repeated, or the
		// changes listed as bullets; one list item, or a question, is not.
		{"Swift 4.2 support * Swift 4.2 support * version bump", false, true, "", "Swift 4.2 support * Swift 4.2 support * version bump"},
		{"Empty header values * keep them empty * trim the rest", false, true, "", "Empty header values * keep them empty * trim the rest"},
		{"Settings for valid targets Settings for valid targets only.", false, true, "", "Settings for valid targets Settings for valid targets only."},
		{"a new request. - Parameter request: the request", false, false, "", ""},
		{"what do the settings for targets do * settings for targets * x?", false, false, "", ""},
		{"the value * the factor", false, false, "", ""},
		// Questions, doc comments and names are not.
		{"how are routes registered", false, false, "", ""},
		{"Returns the parsed configuration", false, false, "", ""},
		{"Usage: fulldomain txtvalue", false, false, "", ""},
		{"see(below): the cache", false, false, "", ""},
		{"RetryPolicy", false, false, "", ""},
	}
	for _, tt := range tests {
		sh, ok := taskShapeOf(tt.q, tt.reduced)
		if ok != tt.task || sh.scope != tt.scope || sh.words != tt.words {
			t.Errorf("taskShapeOf(%q, %v) = %q, %q, %v; want %q, %q, %v", tt.q, tt.reduced, sh.scope, sh.words, ok, tt.scope, tt.words, tt.task)
		}
	}
}

// taskRepo is a small tree where a change's words are spread over the
// source that holds it, its test and its changelog entry.
var taskRepo = map[string]string{
	"lexer/lexer.go": "package lexer\n\n// Lexer splits input into tokens.\ntype Lexer struct{ src string; pos int }\n\n" +
		"// tableName reads a table name; an unclosed one ends with the input.\nfunc (l *Lexer) tableName() string {\n\tstart := l.pos\n\tfor l.pos < len(l.src) && l.src[l.pos] != ']' {\n\t\tl.pos++\n\t}\n\treturn l.src[start:l.pos]\n}\n",
	"lexer/lexer_test.go": "package lexer\n\nimport \"testing\"\n\n// An unclosed table name must not hang the lexer.\n" +
		"func TestUnclosedTableName(t *testing.T) {\n\tl := &Lexer{src: \"[unclosed table name\"}\n\tif l.tableName() == \"\" {\n\t\tt.Fatal(\"unclosed table name\")\n\t}\n}\n\n" +
		"func TestTableNameHang(t *testing.T) {\n\tl := &Lexer{src: \"[table name never closed\"}\n\t_ = l.tableName() // unclosed table name: terminate\n}\n",
	"CHANGELOG.md":   "# Changes\n\n## 1.2.0\n\n- Fix the lexer hanging on an unclosed table name.\n- The lexer terminates on an unclosed table name.\n- Unclosed table names are errors.\n",
	"encode/keys.go": "package encode\n\n// sortKeys orders keys.\nfunc sortKeys(keys []string) {}\n",
}

// taskRanks indexes files and returns the rank of want (0: not listed)
// among the files q lists under each tuning.
func taskRanks(t *testing.T, files map[string]string, q, want string, tunes ...Tuning) []int {
	t.Helper()
	root, path := t.TempDir(), indextest.Path(t.TempDir())
	testkit.WriteFiles(t, root, files)
	indextest.Build(t, root, path, indexer.Options{})
	var out []int
	for _, tune := range tunes {
		var paths []string
		for _, h := range search(t, plannerOn(t, path, Options{Tuning: &tune}), Request{Query: q, Limit: 10}).Hits {
			if !slices.Contains(paths, h.Path) {
				paths = append(paths, h.Path)
			}
		}
		t.Logf("%q: %s", q, strings.Join(paths, " "))
		out = append(out, slices.Index(paths, want)+1)
	}
	return out
}

// TestTaskPriorsPutSourceFirst: a commit subject, or a statement of the
// same change without a verb of change, whose words its test and its
// changelog entry repeat lists the source it changed first; with the
// question priors the changelog comes first.
func TestTaskPriorsPutSourceFirst(t *testing.T) {
	questionPriors := DefaultTuning()
	questionPriors.TaskTestPrior = questionPriors.TestPrior
	questionPriors.TaskProsePrior = questionPriors.ProsePrior
	for _, q := range []string{"Fix unclosed table name hanging the lexer", "Unclosed table name hangs the lexer"} {
		r := taskRanks(t, taskRepo, q, "lexer/lexer.go", DefaultTuning(), questionPriors)
		if r[0] != 1 {
			t.Errorf("%q, task priors: lexer/lexer.go at rank %d, want 1", q, r[0])
		}
		if r[1] == 1 {
			t.Errorf("%q, question priors: lexer/lexer.go at rank 1 too; the test no longer exercises the task priors", q)
		}
	}
}

func TestSourcePriors(t *testing.T) {
	tests := []struct {
		task, natural, defs bool
		text                string
		want                bool
	}{
		{true, true, false, "Fix the lexer", true},
		{false, true, false, "Unclosed table name hangs the lexer", true},
		{false, true, false, "Returns the parsed configuration", true},
		{false, true, false, "how does the lexer end a table name", false},
		{false, true, false, "Where are routes registered?", false},
		{false, true, false, "the lexer's table names?", false},
		{false, false, true, "tableName", false},
		{false, false, false, "tableName lexer", false},
		// A statement naming tests or docs keeps the question priors; a
		// change request does not.
		{false, true, false, "the tests of the lexer's table names", false},
		{false, true, false, "Unclosed table name test hangs the lexer", false},
		{false, true, false, "the docs of the lexer", false},
		{false, true, false, "the latest lexer", true},
		{true, true, false, "Fix the flaky tests of the lexer", true},
	}
	for _, tt := range tests {
		if got := sourcePriors(tt.task, tt.natural, tt.defs, tt.text); got != tt.want {
			t.Errorf("sourcePriors(%v, %v, %v, %q) = %v, want %v", tt.task, tt.natural, tt.defs, tt.text, got, tt.want)
		}
	}
}

// TestStatementNamingTestsFindsThem: a statement that names the tests
// asks for them; the task priors would put them below the source.
func TestStatementNamingTestsFindsThem(t *testing.T) {
	q := "the unclosed table name tests hanging the lexer"
	r := taskRanks(t, taskRepo, q, "lexer/lexer_test.go", DefaultTuning())
	if r[0] != 1 {
		t.Errorf("%q: lexer/lexer_test.go at rank %d, want 1", q, r[0])
	}
}

// TestTaskVerbIsNotSearched: "Add a retry limit …" names the kind of
// change; the code that defines add() is not where it goes.
func TestTaskVerbIsNotSearched(t *testing.T) {
	files := map[string]string{
		"mathx/add.go":     "package mathx\n\n// Add adds two numbers.\nfunc Add(a, b int) int { return a + b }\n\n// AddAll adds numbers.\nfunc AddAll(xs ...int) int {\n\ts := 0\n\tfor _, x := range xs {\n\t\ts = Add(s, x)\n\t}\n\treturn s\n}\n",
		"worker/worker.go": "package worker\n\n// Worker runs jobs.\ntype Worker struct{ retries int }\n\n// Run runs a job, retrying it.\nfunc (w *Worker) Run(job func() error) error {\n\tvar err error\n\tfor i := 0; i <= w.retries; i++ {\n\t\tif err = job(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t}\n\treturn err\n}\n",
	}
	keep := DefaultTuning()
	keep.TaskVerbDrop = false
	r := taskRanks(t, files, "Add limit on retries", "worker/worker.go", DefaultTuning(), keep)
	if r[0] != 1 {
		t.Errorf("verb dropped: worker/worker.go at rank %d, want 1", r[0])
	}
	if r[1] == 1 {
		t.Errorf("verb kept: worker/worker.go at rank 1 too; the test no longer exercises the verb")
	}
}

// TestTaskDocCommentsWeighLess: a change request's words in a doc comment
// elsewhere say what that code does, not where the change goes.
func TestTaskDocCommentsWeighLess(t *testing.T) {
	files := map[string]string{
		"http/header.go":  "package http\n\nfunc parseHeader(line string) (name, value string) {\n\tname, value, _ = strings.Cut(line, \":\")\n\tif emptyValue := value == \"\"; emptyValue {\n\t\treturn name, \"\"\n\t}\n\treturn name, strings.TrimSpace(value)\n}\n",
		"http/request.go": "package http\n\n// ReadRequest reads a request; parsing keeps the values of a header empty when empty.\n// Parsing: values, empty or not, of each header parse as written.\nfunc ReadRequest(r io.Reader) (*Request, error) {\n\treturn nil, nil\n}\n",
	}
	full := DefaultTuning()
	full.TaskWSymbol = full.WSymbol
	r := taskRanks(t, files, "Fix parsing of empty header values", "http/header.go", DefaultTuning(), full)
	if r[0] != 1 {
		t.Errorf("task weight: http/header.go at rank %d, want 1", r[0])
	}
	if r[1] == 1 {
		t.Errorf("question weight: http/header.go at rank 1 too; the test no longer exercises the weight")
	}
}

// httpFiles is an HTTP package whose header parser has no doc comment and
// whose request reader's doc comment shares a header bug's words.
func httpFiles() map[string]string {
	return map[string]string{
		"http/header.go":  "package http\n\nfunc parseHeader(line string) (name, value string) {\n\tname, value, _ = strings.Cut(line, \":\")\n\tif emptyValue := value == \"\"; emptyValue {\n\t\treturn name, \"\"\n\t}\n\treturn name, strings.TrimSpace(value)\n}\n",
		"http/request.go": "package http\n\n// ReadRequest reads a request; parsing keeps the values of a header empty when empty.\n// Parsing: values, empty or not, of each header parse as written.\nfunc ReadRequest(r io.Reader) (*Request, error) {\n\treturn nil, nil\n}\n",
		"http/client.go":  "package http\n\n// Client sends requests.\ntype Client struct{ timeout int }\n\n// Do sends a request and reads its response.\nfunc (c *Client) Do(req *Request) (*Response, error) {\n\treturn nil, nil\n}\n",
		"http/cookie.go":  "package http\n\n// Cookie is an HTTP cookie.\ntype Cookie struct{ Name, Value string }\n\n// String formats the cookie for a Set-Cookie header line.\nfunc (c *Cookie) String() string {\n\treturn c.Name + \"=\" + c.Value\n}\n",
		"http/server.go":  "package http\n\n// Server answers requests.\ntype Server struct{ addr string }\n\n// Serve accepts connections until the listener closes.\nfunc (s *Server) Serve() error {\n\treturn nil\n}\n",
	}
}

// TestTaskNamedFix: a statement that names its fix with no verb of change
// first ("… (fixes #12)") is a change request: the doc comment that shares
// its words says what other code does, and the source it changes comes
// first. Read as a doc comment's sentence, the statement lists the doc
// comment's file first.
func TestTaskNamedFix(t *testing.T) {
	files := httpFiles()
	q := "Empty header values parse wrong (fixes #12)"
	if r := taskRanks(t, files, q, "http/header.go", DefaultTuning()); r[0] != 1 {
		t.Errorf("%q: http/header.go at rank %d, want 1", q, r[0])
	}
}

// retryFiles is a retry package whose policy and budget hold the words
// "retry attempt backoff", a clock beside them that says little, and two
// packages elsewhere; sleepDoc ends the clock's Sleep doc.
func retryFiles(sleepDoc string) map[string]string {
	return map[string]string{
		"retry/policy.go": "package retry\n\n// Policy decides the backoff of each retry attempt.\ntype Policy struct{ base, max int }\n\n" +
			"// Backoff returns the backoff before a retry attempt; it doubles each attempt.\nfunc (p Policy) Backoff(attempt int) int {\n\td := p.base << attempt\n\tif d > p.max {\n\t\treturn p.max\n\t}\n\treturn d\n}\n",
		"retry/budget.go": "package retry\n\n// Budget bounds the retry attempts of a client: each retry spends one attempt.\ntype Budget struct{ attempts int }\n\n" +
			"// Spend spends one retry attempt; false when none is left.\nfunc (b *Budget) Spend() bool {\n\tif b.attempts == 0 {\n\t\treturn false\n\t}\n\tb.attempts--\n\treturn true\n}\n",
		"retry/clock.go": "package retry\n\nimport \"time\"\n\n// Clock tells the time and sleeps.\ntype Clock interface {\n\tNow() time.Time\n\tSleep(d time.Duration)\n}\n\n" +
			"type realClock struct{}\n\nfunc (realClock) Now() time.Time { return time.Now() }\n\n// Sleep waits for d" + sleepDoc + ".\nfunc (realClock) Sleep(d time.Duration) { time.Sleep(d) }\n",
		"stream/window.go": "package stream\n\n// Window holds the frames in flight.\ntype Window struct{ size int }\n\n// Grow grows the window after each attempt at it, at most one attempt a tick.\nfunc (w *Window) Grow(n int) { w.size += n }\n",
		"stream/frame.go":  "package stream\n\n// Frame is one frame of a stream.\ntype Frame struct{ ID int; Data []byte }\n",
		"backoff/delay.go": "package backoff\n\n// Delay is a backoff delay that guards against overflow.\ntype Delay struct{ max int }\n\n" +
			"// Next returns the next backoff delay, at most max, without overflow.\nfunc (d Delay) Next(prev int) int {\n\tif prev > d.max/2 {\n\t\treturn d.max\n\t}\n\treturn 2 * prev\n}\n",
	}
}

// TestTaskCommitBody: a commit message that opens with no verb of change
// reads as one by its body (the subject repeated, its changes listed) or
// by an adverb before its verb, and lists the source it changes first;
// read as a doc comment's sentence, its subject lists the doc comment's
// file first.
func TestTaskCommitBody(t *testing.T) {
	files := httpFiles()
	for _, q := range []string{
		"Empty header values that parse wrong * header values parse empty * values keep empty",
		"Empty header values that parse wrong Empty header values that parse wrong. Header values keep empty.",
		"Properly handle empty header values that parse wrong",
	} {
		if r := taskRanks(t, files, q, "http/header.go", DefaultTuning()); r[0] != 1 {
			t.Errorf("%q: http/header.go at rank %d, want 1", q, r[0])
		}
	}
	// The subject alone reads as a doc comment's sentence.
	q := "Empty header values that parse wrong"
	if r := taskRanks(t, files, q, "http/header.go", DefaultTuning()); r[0] == 1 {
		t.Errorf("%q: http/header.go at rank 1 too; the test no longer tells a commit body from a statement", q)
	}
}

// TestTaskDirectoryEvidence: a change is often made beside the files its
// words match best. The retry package's policy and budget hold the
// message's words; its clock, which the change is made in, holds one of
// them once, and a file elsewhere holds it twice: the package's evidence
// puts the clock first of the two, but behind the files that lend it and
// the backoff package's delay, whose words the message says.
func TestTaskDirectoryEvidence(t *testing.T) {
	files := retryFiles(" before an attempt")
	none := DefaultTuning()
	none.TaskWDir = 0
	q := "Fix the retry attempt backoff delay overflow"
	r := taskRanks(t, files, q, "retry/clock.go", DefaultTuning(), none)
	w := taskRanks(t, files, q, "stream/window.go", DefaultTuning(), none)
	if r[0] > w[0] {
		t.Errorf("%q, with directory evidence: retry/clock.go at rank %d, below stream/window.go at %d", q, r[0], w[0])
	}
	if r[1] < w[1] {
		t.Errorf("%q, without: retry/clock.go at rank %d above stream/window.go at %d; the test no longer exercises the evidence", q, r[1], w[1])
	}
	// However strong the evidence, it lifts the clock no further than
	// behind the files it comes from.
	strong := DefaultTuning()
	strong.TaskWDir = 10
	s := taskRanks(t, files, q, "retry/clock.go", strong)[0]
	for _, lender := range []string{"retry/policy.go", "retry/budget.go", "backoff/delay.go"} {
		if l := taskRanks(t, files, q, lender, DefaultTuning(), strong); l[0] > r[0] || l[1] > s {
			t.Errorf("%q: %s at rank %d, %d at weight 10; retry/clock.go, which takes its evidence from it, at %d, %d", q, lender, l[0], l[1], r[0], s)
		}
	}
}

// TestTaskDirectoryEvidenceWeight: the retry package's clock, which holds
// none of the message's words, takes the evidence of the package's files
// that hold them; a log file elsewhere says "retry" once. The evidence
// puts the clock above the log file; at weight 0.3 it did not.
func TestTaskDirectoryEvidenceWeight(t *testing.T) {
	files := retryFiles("")
	files["log/log.go"] = "package log\n\n// Log: retry.\nfunc Log() {}\n"
	// Without the proximity lift (proximity.go), which lifts the
	// package's files that write the message's words together above the
	// clock that holds none: this fixture isolates the evidence's weight.
	on := DefaultTuning()
	on.ProxBoost = 0
	old := on
	old.TaskWDir = 0.3
	q := "Fix the retry attempt backoff delay overflow"
	c := taskRanks(t, files, q, "retry/clock.go", on, old)
	l := taskRanks(t, files, q, "log/log.go", on, old)
	if c[0] == 0 || l[0] == 0 || c[0] > l[0] {
		t.Errorf("%q: retry/clock.go at rank %d, log/log.go at %d; want the clock first", q, c[0], l[0])
	}
	if c[1] < l[1] {
		t.Errorf("%q, at weight 0.3: retry/clock.go at rank %d above log/log.go at %d; the test no longer exercises the weight", q, c[1], l[1])
	}
}

// typingsFiles is a JavaScript library whose typings restate its reply's
// names and doc comments.
func typingsFiles() map[string]string {
	return map[string]string{
		"lib/reply.js":     "'use strict'\n\nfunction redirect (reply, url, code) {\n  reply.code(code || 302)\n  reply.header('location', url)\n  return reply.send()\n}\n\nfunction serialize (reply, payload) {\n  return JSON.stringify(payload)\n}\n\nmodule.exports = { redirect, serialize }\n",
		"lib/route.js":     "'use strict'\n\nfunction route (options) {\n  return { method: options.method, url: options.url }\n}\n\nmodule.exports = { route }\n",
		"types/reply.d.ts": "export interface FastifyReply {\n  /**\n   * Redirects the reply to a url with a status code; the redirect code\n   * defaults to 302 when no status code is given.\n   */\n  redirect(url: string, code?: number): FastifyReply;\n  /** Serializes the payload of the reply. */\n  serialize(payload: any): string;\n}\n",
	}
}

// errorTypeFiles is a C# CSV reader that throws a small exception type
// named by the words of the failure it reports.
func errorTypeFiles() map[string]string {
	return map[string]string{
		"src/Csv/MissingFieldException.cs": "namespace Csv;\n\n" +
			"/// <summary>\n/// Thrown when a missing field is found while reading a record.\n/// </summary>\n" +
			"public class MissingFieldException : CsvException\n{\n" +
			"\t/// <summary>Creates a missing field exception with a message.</summary>\n" +
			"\tpublic MissingFieldException(string message) : base(message) { }\n}\n",
		"src/Csv/CsvException.cs": "namespace Csv;\n\n/// <summary>The base of the reader's exceptions.</summary>\n" +
			"public class CsvException : System.Exception\n{\n\tpublic CsvException(string message) : base(message) { }\n}\n",
		"src/Csv/CsvWriter.cs": "namespace Csv;\n\n/// <summary>Writes values as quoted text.</summary>\npublic class CsvWriter\n{\n" +
			"\tprivate readonly System.IO.TextWriter output;\n\n\tpublic CsvWriter(System.IO.TextWriter output) { this.output = output; }\n\n" +
			"\t/// <summary>Writes one value, quoted when it holds the delimiter.</summary>\n" +
			"\tpublic void WriteValue(string value) { output.Write(value.Contains(',') ? $\"\\\"{value}\\\"\" : value); }\n}\n",
		"src/Csv/CsvConfiguration.cs": "namespace Csv;\n\n/// <summary>Options of the writer and the parser.</summary>\npublic class CsvConfiguration\n{\n" +
			"\t/// <summary>The delimiter between values.</summary>\n\tpublic string Delimiter { get; set; } = \",\";\n\n" +
			"\t/// <summary>Whether values are trimmed.</summary>\n\tpublic bool TrimValues { get; set; }\n}\n",
		"src/Csv/CsvReader.cs": "namespace Csv;\n\n/// <summary>Reads records field by field.</summary>\npublic class CsvReader\n{\n" +
			"\tprivate string[] record = new string[0];\n\tprivate int row;\n\n" +
			"\t/// <summary>Gets a field of the current record by its index; when a missing field is found,\n\t/// the message names the record being read and its row.</summary>\n" +
			"\tpublic string GetField(int index)\n\t{\n" +
			"\t\tif (index >= record.Length)\n\t\t{\n" +
			"\t\t\tthrow new MissingFieldException($\"Field at index {index} does not exist in row {row}.\");\n\t\t}\n" +
			"\t\treturn record[index];\n\t}\n\n" +
			"\t/// <summary>Reads the next record.</summary>\n\tpublic bool Read()\n\t{\n\t\trow++;\n\t\treturn row < 10;\n\t}\n}\n",
	}
}

// TestTaskTypeFilesComeAfterTheirCode: a change request lists the code
// it changes before a file of its types that the text does not name — a
// declaration file restating the code's names and doc comments, a small
// exception type named by the words of the failure that the code raises —
// and lists that file first when the text names it or its typings.
func TestTaskTypeFilesComeAfterTheirCode(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		off   func(*Tuning) // the prior off
		// q lists want first with the prior, not without it; named
		// lists typeFile first.
		q, want, named, typeFile string
	}{
		{"typings", typingsFiles(), func(t *Tuning) { t.TaskDeclPrior = 1 },
			"Fix the redirect status code default of a reply", "lib/reply.js",
			"Fix the types of the redirect status code default of a reply", "types/reply.d.ts"},
		{"error type", errorTypeFiles(), func(t *Tuning) { t.TaskErrorTypePrior = 1 },
			"Fix the message when a missing field is found while reading a record", "src/Csv/CsvReader.cs",
			"Add the row to MissingFieldException's message", "src/Csv/MissingFieldException.cs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			noPrior := DefaultTuning()
			tc.off(&noPrior)
			r := taskRanks(t, tc.files, tc.q, tc.want, DefaultTuning(), noPrior)
			if r[0] != 1 {
				t.Errorf("%q: %s at rank %d, want 1", tc.q, tc.want, r[0])
			}
			if r[1] == 1 {
				t.Errorf("%q without the prior: %s at rank 1 too; the test no longer exercises it", tc.q, tc.want)
			}
			if r := taskRanks(t, tc.files, tc.named, tc.typeFile, DefaultTuning()); r[0] != 1 {
				t.Errorf("%q: %s at rank %d, want 1", tc.named, tc.typeFile, r[0])
			}
		})
	}
}

func TestNamesTypes(t *testing.T) {
	tests := map[string]bool{
		"fix(types): allow http2: false": true, "Updated type definitions for light-my-request": true,
		"Fix the redirect status code": false, "Raise a TypeError on a bad url": false,
	}
	for text, want := range tests {
		if got := namesTypes(text); got != want {
			t.Errorf("namesTypes(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestTaskMergeLineIsNotSearched: the line a merge commit carries ("Merge
// pull request 7699") names the merge, not the change; searched, "merge"
// and "request" find the code that merges requests.
func TestTaskMergeLineIsNotSearched(t *testing.T) {
	files := map[string]string{
		"lib/site/converter.rb": "module Site\n  class Converter\n    # Converts markdown with the configured options.\n    def convert(content, config)\n      options = config.fetch(\"markdown\", {})\n      Markdown.new(content, options).to_html\n    end\n  end\nend\n",
		"lib/site/request.rb":   "module Site\n  class Request\n    # Merges the pull request's options into the request's.\n    def merge(options)\n      @options = @options.merge(options)\n    end\n\n    def pull(url)\n      merge(url: url)\n    end\n  end\nend\n",
	}
	q := "Patch the markdown config of the converter Merge pull request 7699"
	if r := taskRanks(t, files, q, "lib/site/converter.rb", DefaultTuning()); r[0] != 1 {
		t.Errorf("%q: lib/site/converter.rb at rank %d, want 1", q, r[0])
	}
}
