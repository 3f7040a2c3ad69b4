package indexer

import (
	"context"
	"slices"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
)

// TestUTF16TextIsIndexed: a source file saved as UTF-16 with a byte order
// mark is text. It is indexed (its definitions read), the next run finds it
// unchanged, and status calls the index current: the size compared is the
// file's on disk, the hash its decoded text's.
func TestUTF16TextIsIndexed(t *testing.T) {
	root, data := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, root, map[string]string{
		"Greeter.cs": testkit.UTF16LE("namespace Hello;\r\n\r\npublic class Greeter\r\n{\r\n    public string Greet(string name) => \"héllo \" + name;\r\n}\r\n"),
		"ok.py":      "x = 1\n",
	})
	db := openDB(t, data)
	res := run(t, db, root, Options{})
	if len(res.Skipped) != 0 || res.Counts.Files != 2 {
		t.Fatalf("files %d, skipped %v: want both files indexed", res.Counts.Files, res.Skipped)
	}
	if got := symbolNames(t, db, "Greeter.cs"); !slices.Contains(got, "Hello.Greeter.Greet") {
		t.Errorf("Greeter.cs definitions %v, want Hello.Greeter.Greet", got)
	}
	again := run(t, db, root, Options{})
	if again.Parsed != 0 || again.Unchanged != 2 {
		t.Errorf("second run parsed %d, unchanged %d: want nothing re-read", again.Parsed, again.Unchanged)
	}
	st, err := ReadStatus(context.Background(), db, root, StatusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Current {
		t.Errorf("status not current after indexing a UTF-16 file: %v", st.NotCurrent)
	}
}
