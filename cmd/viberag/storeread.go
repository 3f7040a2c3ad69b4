package main

import (
	"context"
	"fmt"
	"os"

	"github.com/viberag/viberag/embed"
	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/mcp"
	"github.com/viberag/viberag/tables/postgres"
)

// storeRead points search, symbol and refs at a shared store instead of
// the local index.
type storeRead struct {
	Store string   `name:"store" placeholder:"URL" help:"Read a shared PostgreSQL store (its catalog URL) instead of the local index (README \"For a team\")."`
	Repo  []string `name:"repo" sep:"," help:"With --store: only these repositories (names or globs, comma-separated; default all of them)."`
}

// source is what a search, symbol or refs command reads, opened.
type source struct {
	answers *mcp.Answers
	// note adds to an error what the reader knows (a damaged index file).
	note  func(error) error
	close func()
}

// open opens the store (with --store) or the local index of the
// repository holding dir. A search gives its embedding flags (ef): a
// local index embeds queries with the model it was embedded with, a store
// with the model ef chooses, as `viberag serve --store` does (never
// downloaded; without it, searches are lexical and stderr says why in one
// line). symbol and refs embed nothing (ef nil).
func (s storeRead) open(ctx context.Context, rf repoFlags, dir string, ef *queryEmbedFlags) (*source, error) {
	if s.Store == "" {
		if len(s.Repo) > 0 {
			return nil, usageErrorf("--repo names repositories of a shared store: give --store too")
		}
		if ef != nil && ef.given() {
			return nil, usageErrorf("--embed, --model-dir and --embed-*: choose the query model of a shared store (give --store too); a local index embeds queries with the model it was indexed with")
		}
		ix, err := openIndex(ctx, rf, dir, ef != nil)
		if err != nil {
			return nil, err
		}
		return &source{answers: ix.answers(), note: func(err error) error { return indexer.NoteCorruption(ix.db.Path(), err) },
			close: func() { ix.Close() }}, nil
	}
	var emb embed.Provider
	off := "no query embedding for symbol and refs"
	if ef != nil {
		if emb, off = ef.queries(ctx); emb == nil && ef.Embed != embed.ProviderOff {
			fmt.Fprintf(os.Stderr, "viberag: searching lexically, no model to embed the query: %s\n", off)
		}
	}
	st, err := postgres.OpenStore(ctx, s.Store, postgres.StoreOptions{})
	if err != nil {
		return nil, err
	}
	ans, err := mcp.StoreAnswers(st, s.Repo, emb, off)(ctx)
	if err != nil {
		st.Close()
		return nil, err
	}
	return &source{answers: ans, note: func(err error) error { return err }, close: st.Close}, nil
}
