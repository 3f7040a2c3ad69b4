package query

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/internal/testkit"
)

// stalledProvider is the index's provider (same ID and dimension), gone
// silent: it blocks until its caller gives up, counting the calls.
type stalledProvider struct {
	embed.Provider
	calls atomic.Int32
}

func (s *stalledProvider) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	s.calls.Add(1)
	<-ctx.Done()
	return nil, ctx.Err()
}

// searchWithin runs a search that must end before a generous deadline (a
// hang test, not a timing assertion).
func searchWithin(t *testing.T, p *Planner, req Request) *Response {
	t.Helper()
	resp := testkit.Within(t, time.Minute, "search", func() *Response {
		resp, err := p.Search(context.Background(), req)
		if err != nil {
			t.Error(err)
		}
		return resp
	})
	if resp == nil {
		t.FailNow()
	}
	return resp
}

// A provider that stops answering after indexing: searches answer
// lexically, say why in a note, and only the first waits for it — the
// breaker keeps the others from asking.
func TestSearchWithStalledProvider(t *testing.T) {
	m, _, path := vectorIndex(t)
	s := &stalledProvider{Provider: m}
	p := plannerOn(t, path, Options{Embedder: s, QueryEmbed: embed.GuardOptions{Timeout: 50 * time.Millisecond, Cooldown: time.Hour}})
	for i, tc := range []struct {
		intent Intent
		query  string
		want   string
	}{
		{Concept, "delayed jobs queue", "no answer within 50ms"},
		{Concept, "render the template", "not asked again until"},
		{Definition, "Render", "not asked again until"},
		{SimilarCode, dupFunc, "not asked again until"},
	} {
		resp := searchWithin(t, p, Request{Query: tc.query, Intent: tc.intent, Explain: true})
		if !strings.HasPrefix(resp.Vectors, "off for this search") || !strings.Contains(resp.Vectors, tc.want) {
			t.Errorf("search %d: vectors = %q, want off, %q", i, resp.Vectors, tc.want)
		}
		if !strings.Contains(strings.Join(resp.Notes, "\n"), "this search is lexical") {
			t.Errorf("search %d: notes %q, want one saying the search is lexical", i, resp.Notes)
		}
		if len(resp.Hits) == 0 {
			t.Errorf("search %d: no hits", i)
		}
	}
	if n := s.calls.Load(); n != 1 {
		t.Errorf("the stalled provider was asked %d times, want once", n)
	}
}

// Searches on an index with missing vectors say how many are missing;
// an index that holds vectors of two sizes (made by an older version)
// still answers, counting the odd ones as missing.
func TestSearchSaysMissingVectors(t *testing.T) {
	m, _, path := vectorIndex(t)
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DELETE FROM vectors WHERE id IN (SELECT id FROM vectors ORDER BY id LIMIT 3)`,
		`UPDATE vectors SET dim = 4, vec = substr(vec, 1, 16) WHERE id IN (SELECT id FROM vectors ORDER BY id LIMIT 2)`,
		`DELETE FROM meta WHERE key = 'embedding_dim'`,
		`UPDATE meta SET value = value + 1 WHERE key = 'vectors_version'`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	var rows int
	if err := raw.QueryRow(`SELECT (SELECT count(*) FROM chunks) + (SELECT count(*) FROM symbols) + (SELECT count(*) FROM files)`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	p := plannerOn(t, path, Options{Embedder: m})
	resp := search(t, p, Request{Query: "delayed jobs queue", Intent: Concept})
	want := "5 of " + strconv.Itoa(rows) + " rows have no vector"
	if !strings.HasPrefix(resp.Vectors, "on ("+m.ID()+")") || !strings.Contains(resp.Vectors, want) {
		t.Errorf("vectors = %q, want on, saying %q", resp.Vectors, want)
	}
}
