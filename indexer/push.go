package indexer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/viberag/viberag/fileset"
	"github.com/viberag/viberag/tables"
)

// PushTarget is one repository of a shared store, open for a push
// (tables/postgres.Push): it knows the content hashes it holds and takes
// the facts of the files that changed.
type PushTarget interface {
	FactWriter
	FileStates(ctx context.Context) (map[string]tables.FileState, error)
}

// Push sends root to t: it selects and hashes root's files as Run does,
// extracts only those whose hash differs from the one t holds, writes
// them, and removes from t the paths no longer selected. The caller
// commits t (all of a push is one transaction there). res.Commit is root's
// head commit.
func Push(ctx context.Context, t PushTarget, root string, opts Options) (*Result, error) {
	start := time.Now()
	if opts.ParseOnly {
		return nil, errors.New("push: --parse-only writes nothing; run it without --store")
	}
	real, sel, err := selectFiles(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	states, err := t.FileStates(ctx)
	if err != nil {
		return nil, err
	}
	res := &Result{Root: real, Selected: len(sel.Files), ParseProblems: map[string]int{}}
	skipped, err := extractInto(ctx, t, real, sel, states, opts, res)
	if err != nil {
		return nil, err
	}
	res.Skipped = fileset.SkipCounts(skipped)
	res.Commit = fileset.GitHead(ctx, real)
	res.Elapsed = time.Since(start)
	res.ElapsedMS = res.Elapsed.Milliseconds()
	return res, nil
}

// RemoteName returns the repository name a push of root uses by default:
// its git remote "origin", normalised (NormalizeRemote).
func RemoteName(ctx context.Context, root string) (string, error) {
	out, err := fileset.Git(ctx, root, nil, "config", "--get", "remote.origin.url")
	if err != nil || strings.TrimSpace(string(out)) == "" {
		return "", fmt.Errorf("%s has no git remote \"origin\" to name the repository after: give --repo NAME", root)
	}
	return NormalizeRemote(strings.TrimSpace(string(out)))
}

// NormalizeRemote turns a git remote URL into a repository name,
// host/owner/name: the scheme, user, port and a trailing ".git" or "/"
// dropped and the host lower-cased, so that the https, ssh and scp-like
// forms of one remote give one name:
//
//	https://github.com/Acme/api.git   -> github.com/Acme/api
//	git@github.com:Acme/api.git       -> github.com/Acme/api
//	ssh://git@github.com:22/Acme/api  -> github.com/Acme/api
func NormalizeRemote(remote string) (string, error) {
	s := strings.TrimSpace(remote)
	orig := s
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	} else if i := strings.Index(s, ":"); i >= 0 && !strings.Contains(s[:i], "/") {
		// scp-like: [user@]host:path
		s = s[:i] + "/" + s[i+1:]
	} else {
		return "", fmt.Errorf("git remote %q: not a URL (scheme://host/path or user@host:path)", orig)
	}
	host, path, _ := strings.Cut(s, "/")
	if i := strings.LastIndex(host, "@"); i >= 0 {
		host = host[i+1:]
	}
	if i := strings.LastIndex(host, ":"); i >= 0 {
		host = host[:i]
	}
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, ".git")
	path = strings.Trim(path, "/")
	if host == "" || path == "" {
		return "", fmt.Errorf("git remote %q: no host or path to name the repository after: give --repo NAME", orig)
	}
	return strings.ToLower(host) + "/" + path, nil
}
