package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/tables/postgres"
)

// pushResult is what `viberag index --store` reports.
type pushResult struct {
	*indexer.Result
	Repo     string `json:"repo"`
	Shard    string `json:"shard"`
	Snapshot int64  `json:"snapshot"`
	Files    int64  `json:"files"`
	Bytes    int64  `json:"bytes"`
	// Unindexed counts tokens too long (or rows with too many distinct
	// tokens) for PostgreSQL's full-text lookup; see postgres.Push.
	Unindexed int `json:"unindexed_tokens"`
	// StoreVectors is what was pushed of the local index's vectors;
	// VectorsNote says where they came from, or why there are none.
	StoreVectors postgres.VectorsWritten `json:"store_vectors"`
	VectorsNote  string                  `json:"vectors_note"`
}

// push sends the repository at c.Path to the store at c.Store: only the
// files whose content hash differs from the store's, in one transaction.
func (c *indexCmd) push(ctx context.Context, parseMemory func(int64)) error {
	if c.ParseOnly || c.FileTimes != "" || c.CPUProfile != "" {
		return usageErrorf("--store: --parse-only, --file-times and --cpuprofile are for local runs")
	}
	start := time.Now()
	opts := indexer.Options{
		Select: c.selectFlags.given().Resolve(nil).Select(""),
		Force:  c.Force, Workers: c.Workers, ParseTimeout: c.ParseTimeout, ParseMemory: parseMemory,
	}
	if err := opts.Select.Validate(); err != nil {
		return err
	}
	root, err := commandRoot(ctx, c.Path, c.DataDir)
	if err != nil {
		return err
	}
	name := c.Repo
	if name == "" {
		if name, err = indexer.RemoteName(ctx, root); err != nil {
			return err
		}
	}
	if err := postgres.ValidRepoName(name); err != nil {
		return fmt.Errorf("--repo: %w", err)
	}
	cat, err := postgres.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	defer cat.Close()
	p, err := cat.BeginPush(ctx, name, func(msg string) { fmt.Fprintln(os.Stderr, "viberag: "+msg) })
	if err != nil {
		return err
	}
	defer p.Rollback()
	res, err := indexer.Push(ctx, p, root, opts)
	if err != nil {
		return err
	}
	vw, vnote, err := c.pushVectors(ctx, p, root)
	if err != nil {
		return err
	}
	repo, err := p.Commit(ctx, res.Commit)
	if err != nil {
		return err
	}
	// The time reported includes the commit.
	res.Elapsed = time.Since(start)
	res.ElapsedMS = res.Elapsed.Milliseconds()
	out := pushResult{Result: res, Repo: repo.Name, Shard: repo.Shard, Snapshot: repo.Snapshot, Files: repo.Files, Bytes: repo.Bytes, Unindexed: p.Unindexed, StoreVectors: vw, VectorsNote: vnote}
	out.Index = postgres.Redact(c.Store)
	if c.JSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printPushResult(os.Stdout, &out, res.ElapsedMS)
	return nil
}

func printPushResult(w io.Writer, r *pushResult, ms int64) {
	fmt.Fprintf(w, "pushed %s to %s as %s in %s\n", r.Root, r.Index, r.Repo, (time.Duration(ms) * time.Millisecond).String())
	fmt.Fprintf(w, "  files: %d selected, %d parsed, %d unchanged, %d deleted\n", r.Selected, r.Parsed, r.Unchanged, r.Deleted)
	fmt.Fprintf(w, "  store: snapshot %d on shard %s, %d files, %d bytes\n", r.Snapshot, r.Shard, r.Files, r.Bytes)
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "  skipped: %s\n", formatCounts(r.Skipped))
	}
	if len(r.ParseProblems) > 0 {
		fmt.Fprintf(w, "  parse problems this run: %s\n", formatCounts(r.ParseProblems))
	}
	if r.Unindexed > 0 {
		fmt.Fprintf(w, "  %d tokens past PostgreSQL's full-text limits (2 KiB a token, 1 MiB a row) are stored but not in the lookup index\n", r.Unindexed)
	}
	if v := r.StoreVectors; v.Model != "" {
		fmt.Fprintf(w, "  vectors: %d of %s (%d dimensions; %d sent, %d removed) %s", v.Stored, v.Model, v.Dim, v.Sent, v.Removed, r.VectorsNote)
		if v.Dropped > 0 {
			fmt.Fprintf(w, "; %d left out: their rows differ from the pushed tree's (run `viberag index` before pushing)", v.Dropped)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "  vectors: none (%s)\n", r.VectorsNote)
	}
}

// pushVectors replaces the repository's vectors in the store with those
// of root's local index (the one `viberag index` keeps in the data dir),
// when it has any; without them the store keeps none, so it never fuses
// vectors of other facts than it holds.
func (c *indexCmd) pushVectors(ctx context.Context, p *postgres.Push, root string) (postgres.VectorsWritten, string, error) {
	dir, err := indexer.DataDir(root, c.DataDir)
	if err != nil {
		return postgres.VectorsWritten{}, "", err
	}
	path := filepath.Join(dir, indexer.IndexFile)
	var src = postgres.NoVectors
	note := "no local index at " + path + "; run `viberag index` before pushing to push its vectors"
	local := false
	if _, err := os.Stat(path); err == nil {
		local = true
		db, err := indexer.Open(ctx, path, indexer.OpenOptions{ReadOnly: true})
		if err != nil {
			return postgres.VectorsWritten{}, "", fmt.Errorf("vectors: local index %s: %w", path, err)
		}
		defer db.Close()
		src, note = db.Reader(), "from the local index "+path
	}
	w, err := p.WriteVectors(ctx, src)
	if err == nil && w.Model == "" && local {
		note = "the local index " + path + " has no vectors"
	}
	return w, note, err
}
