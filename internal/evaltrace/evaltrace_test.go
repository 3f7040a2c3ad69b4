package evaltrace

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestRoundTrip: what Writer writes, Read gives back line by line, a
// repository's line told from a query's.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl.gz")
	want := []*Line{
		{Repo: "r", Language: "go", Root: "src", IndexMS: 120, Files: 9, Vectors: "off"},
		{Repo: "r", Category: "symbol", Query: "Push", Intent: "definition", Targets: []string{"src/q.go"},
			NDCG10: 1, CPUMS: 0.4, Top: []string{"src/q.go"},
			Fusion: &Fusion{Fusion: "score", Files: []string{"src/q.go"}, Factors: []float64{1.2},
				Channels: []Channel{{Name: "symbols", Weight: 1, Max: 3.5, Files: []int{0}, Scores: []float64{3.5}}}}},
		{Repo: "r", Category: "concept", Query: "a query that found nothing"},
	}
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range want {
		if err := w.Write(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got []*Line
	if err := Read(path, func(l *Line) error { got = append(got, l); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v, want %+v", got, want)
	}
	if !got[0].IsRepo() || got[1].IsRepo() || got[2].IsRepo() {
		t.Errorf("IsRepo: %v %v %v, want true false false", got[0].IsRepo(), got[1].IsRepo(), got[2].IsRepo())
	}

	stop := errors.New("stop")
	n := 0
	if err := Read(path, func(*Line) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("each's error: got %v after %d lines, want %v after 1", err, n, stop)
	}
	if err := os.WriteFile(path, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Read(path, func(*Line) error { return nil }); err == nil {
		t.Error("a file that is not gzip: no error")
	}
}
