package query

import (
	"fmt"
	"strings"
	"testing"

	"github.com/viberag/viberag/scope"
	"github.com/viberag/viberag/tables"
)

// TestDirectoryEvidence: a how-question whose words only one file of a
// directory holds lists that directory's other files too (its largest
// first), not only files elsewhere that share a word with it; never a
// file out of the search's scope.
func TestDirectoryEvidence(t *testing.T) {
	ring := "package codec\n\ntype ring struct {\n\tbuf  []byte\n\thead int\n\ttail int\n}\n" +
		strings.Repeat("\nfunc (r *ring) grow(n int) {\n\tnb := make([]byte, len(r.buf)*2+n)\n\tcopy(nb, r.buf[r.head:r.tail])\n\tr.buf, r.tail, r.head = nb, r.tail-r.head, 0\n}\n", 4)
	db := indexedFiles(t, withOtherPackages(map[string]string{
		"codec/decoder.go": "package codec\n\n// Decoder reads frames from the wire and checks their checksum.\ntype Decoder struct{ r *ring }\n\n// Next reads the next frame and checks its checksum.\nfunc (d *Decoder) Next() ([]byte, error) { return nil, nil }\n",
		"codec/ring.go":    ring,
		"codec/limits.go":  "package codec\n\nconst maxLen = 1 << 20\n",
		"server/serve.go":  "package server\n\n// Serve writes frames to each client.\nfunc Serve() {}\n",
		"audit/sum.go":     "package audit\n\n// Sum is a checksum of the audit log.\nfunc Sum() uint32 { return 0 }\n",
	}))
	rank := func(tune Tuning, sc scope.Scope, path string) int {
		for i, h := range tunedHits(t, db, tune, Request{Query: "how does it read frames and check the checksum", Limit: 10, Scope: sc}) {
			if h.Path == path {
				return i + 1
			}
		}
		return 0
	}
	off := DefaultTuning()
	off.WDir = 0
	if r := rank(DefaultTuning(), scope.Scope{}, "codec/ring.go"); r != 2 {
		t.Errorf("directory channel on: codec/ring.go at rank %d, want 2 (after decoder.go, before files elsewhere)", r)
	}
	if r := rank(off, scope.Scope{}, "codec/ring.go"); r != 0 && r <= 2 {
		t.Errorf("directory channel off: codec/ring.go at rank %d; the test no longer exercises the channel", r)
	}
	// Out of scope, the directory's other files stay out of the answer.
	sc := scope.Scope{PathNotContains: []string{"ring"}}
	if r := rank(DefaultTuning(), sc, "codec/ring.go"); r != 0 {
		t.Errorf("scope excludes ring.go, yet it is at rank %d", r)
	}
	if r := rank(DefaultTuning(), sc, "codec/limits.go"); r == 0 {
		t.Errorf("codec/limits.go not listed with ring.go out of scope; the directory's files in scope should be")
	}
}

// TestDirectoryEvidenceEntryBeside: the file beside a directory that
// names it (pkg/codec.go for pkg/codec/, as lib/foo.ex, src/foo.rs) is
// the module the directory's files implement; when they lead a
// how-question's answer it is listed with them, before files elsewhere
// that share a word with the question, though it shares none.
func TestDirectoryEvidenceEntryBeside(t *testing.T) {
	db := indexedFiles(t, withOtherPackages(map[string]string{
		"pkg/codec/decoder.go": "package codec\n\n// Decoder reads frames from the wire and checks their checksum.\ntype Decoder struct{}\n\n// Next reads the next frame and checks its checksum.\nfunc (d *Decoder) Next() ([]byte, error) { return nil, nil }\n",
		"pkg/codec/limits.go":  "package codec\n\nconst maxLen = 1 << 20\n",
		"pkg/codec.go":         "package pkg\n\nimport \"example.com/pkg/codec\"\n\n// New returns the wire format's parts.\nfunc New() codec.Decoder { return codec.Decoder{} }\n",
		"pkg/server.go":        "package pkg\n\n// Serve writes frames to each client.\nfunc Serve() {}\n",
		"audit/sum.go":         "package audit\n\n// Sum is a checksum of the audit log.\nfunc Sum() uint32 { return 0 }\n",
	}))
	req := Request{Query: "how does it read frames and check the checksum", Limit: 10}
	entry := firstRank(t, db, DefaultTuning(), req, "pkg/codec.go")
	if entry == 0 {
		t.Fatalf("pkg/codec.go not listed; the directory pkg/codec/ leads and it names it")
	}
	for _, elsewhere := range []string{"pkg/server.go", "audit/sum.go"} {
		if r := firstRank(t, db, DefaultTuning(), req, elsewhere); r != 0 && r < entry {
			t.Errorf("%s at rank %d, before the directory's entry pkg/codec.go at %d", elsewhere, r, entry)
		}
	}
}

// TestDirectoryEvidenceAux: a how-question answered in a docs or examples
// directory lists that directory's other files too: their role is the
// role of the files that named the directory.
func TestDirectoryEvidenceAux(t *testing.T) {
	db := indexedFiles(t, map[string]string{
		"docs/contributors/generate.py": "# Generate the credits of a release from the contributors database.\ndef generate_credits(db):\n    return [c for c in db]\n",
		"docs/contributors/fetch.py":    "import json\n\ndef pull(url):\n    return json.loads(url)\n",
		"app/cli/options.py":            "# Options of the command line: release, database.\ndef options():\n    return []\n",
		"app/cli/parser.py":             "def parse(argv):\n    return argv\n",
	})
	req := Request{Query: "how does it generate the credits of a release from the contributors database", Limit: 10}
	fetch, other := firstRank(t, db, DefaultTuning(), req, "docs/contributors/fetch.py"), firstRank(t, db, DefaultTuning(), req, "app/cli/parser.py")
	if fetch == 0 || other != 0 && other < fetch {
		t.Errorf("docs/contributors/fetch.py at rank %d, app/cli/parser.py at %d; want fetch.py listed, before the other directory's files", fetch, other)
	}
}

// firstRank is the rank of path's first hit for req at tune, 0 when it
// is not listed.
func firstRank(t *testing.T, db *tables.DB, tune Tuning, req Request, path string) int {
	t.Helper()
	for i, h := range tunedHits(t, db, tune, req) {
		if h.Path == path {
			return i + 1
		}
	}
	return 0
}

// TestDirectoryEvidenceByDefinitions: a directory's evidence goes to the
// files that define the most, not to the longest: a file of one long
// table ranks after a shorter sibling that defines the module's
// operations, which ranks right after the file that named the directory.
func TestDirectoryEvidenceByDefinitions(t *testing.T) {
	var table strings.Builder
	table.WriteString("package codec\n\nvar crcTable = [...]uint32{\n")
	for i := range 400 {
		fmt.Fprintf(&table, "\t0x%08x, 0x%08x, 0x%08x, 0x%08x,\n", i*7919, i*104729, i*1299709, i*15485863)
	}
	table.WriteString("}\n")
	var ops strings.Builder
	ops.WriteString("package codec\n\ntype state struct{ n, k int }\n")
	for _, name := range []string{"reset", "advance", "rewind", "skip", "mark", "seek", "flush", "drain"} {
		fmt.Fprintf(&ops, "\nfunc (s *state) %s() { s.n++ }\n", name)
	}
	db := indexedFiles(t, withOtherPackages(map[string]string{
		"codec/decoder.go": "package codec\n\n// Decoder reads frames from the wire and checks their checksum.\ntype Decoder struct{ s state }\n\n// Next reads the next frame and checks its checksum.\nfunc (d *Decoder) Next() ([]byte, error) { return nil, nil }\n",
		"codec/table.go":   table.String(),
		"codec/state.go":   ops.String(),
		"server/serve.go":  "package server\n\n// Serve writes frames to each client.\nfunc Serve() {}\n",
	}))
	req := Request{Query: "how does it read frames and check the checksum", Limit: 10}
	state, tbl := firstRank(t, db, DefaultTuning(), req, "codec/state.go"), firstRank(t, db, DefaultTuning(), req, "codec/table.go")
	if state != 2 || tbl != 0 && tbl < state {
		t.Errorf("codec/state.go at rank %d, codec/table.go at %d; want state.go (nine definitions) second, before table.go (one long table)", state, tbl)
	}
}

// withOtherPackages adds to files the packages of a repository that a
// question does not ask about, so that the directory asked about is one
// package of many, as in most repositories: one that holds much of the
// repository lends less (TestDirectoryEvidenceFlatPackage).
func withOtherPackages(files map[string]string) map[string]string {
	for _, pkg := range []string{"auth", "store", "config", "metrics", "admin", "billing", "mail", "search", "jobs", "users"} {
		for _, name := range []string{"open", "close", "list", "watch"} {
			files[pkg+"/"+name+".go"] = fmt.Sprintf("package %s\n\n// %s%s is part of the %s package.\nfunc %s%s() {}\n", pkg, strings.ToUpper(name[:1]), name[1:], pkg, strings.ToUpper(name[:1]), name[1:])
		}
	}
	return files
}
