package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/viberag/viberag/query"
	"github.com/viberag/viberag/tables/postgres"
)

// storeCmd administers a shared PostgreSQL store (README "For a team").
type storeCmd struct {
	Init  storeInitCmd  `cmd:"" help:"Create or upgrade a store: the catalog database and its shards (idempotent)."`
	Ls    storeLsCmd    `cmd:"" help:"List the repositories in a store: shard, head commit, files, bytes, last push."`
	Rm    storeRmCmd    `cmd:"" help:"Remove a repository from a store."`
	Move  storeMoveCmd  `cmd:"" help:"Move a repository to another shard (no push runs meanwhile; readers switch when it is done)."`
	Token storeTokenCmd `cmd:"" help:"Manage access tokens."`
}

// storeFlags locate a store. The URL may hold a password: prefer the
// environment variable, which stays out of shell history and process lists.
type storeFlags struct {
	Store string `name:"store" env:"VIBERAG_STORE" placeholder:"URL" required:"" help:"PostgreSQL URL of the store's catalog database, e.g. postgres://user@host/viberag (or VIBERAG_STORE)."`
}

type storeInitCmd struct {
	URL   string   `arg:"" env:"VIBERAG_STORE" help:"PostgreSQL URL of the catalog database."`
	Shard []string `name:"shard" help:"PostgreSQL URL of a shard database (repeatable); without any, the catalog database holds the facts too."`
}

func (c *storeInitCmd) Run(ctx context.Context) error {
	if err := postgres.Init(ctx, c.URL, c.Shard); err != nil {
		return err
	}
	cat, err := postgres.Open(ctx, c.URL)
	if err != nil {
		return err
	}
	defer cat.Close()
	shards, err := cat.Shards(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "store %s ready: %d shard(s)\n", postgres.Redact(c.URL), len(shards))
	for _, s := range shards {
		fmt.Fprintf(os.Stderr, "  %s  %s\n", s.Name, postgres.Redact(s.URL))
	}
	return nil
}

type storeLsCmd struct {
	storeFlags
	JSON bool `help:"Print JSON."`
}

func (c *storeLsCmd) Run(ctx context.Context) error {
	st, err := postgres.OpenStore(ctx, c.Store, postgres.StoreOptions{})
	if err != nil {
		return err
	}
	defer st.Close()
	repos, err := st.Catalog.Repos(ctx, postgres.All)
	if err != nil {
		return err
	}
	// A shard that does not answer leaves its repositories listed without
	// their vectors; stderr names it.
	vecs, err := st.Vectors(ctx, repos)
	if err != nil {
		fmt.Fprintf(os.Stderr, "viberag: %v\n", err)
	}
	if c.JSON {
		type vectorsJSON struct {
			Model   string          `json:"model"`
			Weights json.RawMessage `json:"weights,omitempty"`
		}
		type repoJSON struct {
			Name       string       `json:"name"`
			Shard      string       `json:"shard"`
			HeadCommit string       `json:"head_commit"`
			Snapshot   int64        `json:"snapshot"`
			Files      int64        `json:"files"`
			Bytes      int64        `json:"bytes"`
			UpdatedAt  string       `json:"updated_at,omitempty"`
			Vectors    *vectorsJSON `json:"vectors,omitempty"`
		}
		out := make([]repoJSON, 0, len(repos))
		for _, r := range repos {
			j := repoJSON{Name: r.Name, Shard: r.Shard, HeadCommit: r.HeadCommit, Snapshot: r.Snapshot, Files: r.Files, Bytes: r.Bytes}
			if !r.UpdatedAt.IsZero() {
				j.UpdatedAt = r.UpdatedAt.UTC().Format(time.RFC3339)
			}
			if v := vecs[r.ID]; v.Model != "" {
				j.Vectors = &vectorsJSON{Model: v.Model}
				if query.CalibrationFor(v.Calibration, v.Model) != nil {
					j.Vectors.Weights = json.RawMessage(v.Calibration)
				}
			}
			out = append(out, j)
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"repos": out})
	}
	if len(repos) == 0 {
		fmt.Fprintln(os.Stderr, "no repositories yet: push one with viberag index --store URL")
		return nil
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "REPOSITORY\tSHARD\tHEAD\tFILES\tBYTES\tPUSHED\tVECTOR WEIGHTS")
	for _, r := range repos {
		pushed := "never"
		if !r.UpdatedAt.IsZero() {
			pushed = r.UpdatedAt.UTC().Format(time.RFC3339)
		}
		head := r.HeadCommit
		if len(head) > 12 {
			head = head[:12]
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", r.Name, r.Shard, head, r.Files, r.Bytes, pushed, weightsBrief(vecs[r.ID]))
	}
	return w.Flush()
}

// weightsBrief is a repository's vector weights in a few words: each
// surface's, and whether they were measured; "fixed" when its index kept
// none for its model, "none" without vectors.
func weightsBrief(v postgres.RepoVectors) string {
	c := query.CalibrationFor(v.Calibration, v.Model)
	switch {
	case v.Model == "":
		return "none (no vectors)"
	case c == nil:
		return "fixed (not calibrated)"
	}
	var parts []string
	for _, s := range c.Surfaces {
		parts = append(parts, fmt.Sprintf("%s %.3g", s.Channel, s.Weight))
	}
	brief := strings.Join(parts, " ")
	if c.Fallback != "" {
		brief += " (unmeasured)"
	}
	return brief
}

type storeRmCmd struct {
	storeFlags
	Repo string `arg:"" help:"Repository name, as store ls prints it."`
}

func (c *storeRmCmd) Run(ctx context.Context) error {
	cat, err := postgres.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	defer cat.Close()
	if err := cat.Remove(ctx, c.Repo); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "removed %s\n", c.Repo)
	return nil
}

type storeMoveCmd struct {
	storeFlags
	Repo  string `arg:"" help:"Repository name, as store ls prints it."`
	Shard string `arg:"" help:"Shard name, as store init and store ls print it (shard1, shard2…)."`
}

func (c *storeMoveCmd) Run(ctx context.Context) error {
	cat, err := postgres.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	defer cat.Close()
	from, err := cat.Move(ctx, c.Repo, c.Shard)
	if err != nil {
		return err
	}
	if from == c.Shard {
		fmt.Fprintf(os.Stderr, "%s is on %s already\n", c.Repo, c.Shard)
		return nil
	}
	fmt.Fprintf(os.Stderr, "moved %s from %s to %s\n", c.Repo, from, c.Shard)
	return nil
}

type storeTokenCmd struct {
	Create storeTokenCreateCmd `cmd:"" help:"Create an access token for the repositories matching --repos; prints it once, alone on stdout."`
}

type storeTokenCreateCmd struct {
	storeFlags
	Repos []string `name:"repos" required:"" sep:"," help:"Repository name globs the token may read (comma-separated; * within a path segment, ** across), e.g. github.com/acme/*."`
	Note  string   `placeholder:"TEXT" help:"A note stored beside the token's hash (who or what it is for)."`
}

func (c *storeTokenCreateCmd) Run(ctx context.Context) error {
	cat, err := postgres.Open(ctx, c.Store)
	if err != nil {
		return err
	}
	defer cat.Close()
	tok, err := cat.CreateToken(ctx, c.Repos, c.Note)
	if err != nil {
		return err
	}
	fmt.Println(tok)
	fmt.Fprintln(os.Stderr, "store the token now: only its hash is kept, it cannot be shown again")
	return nil
}
