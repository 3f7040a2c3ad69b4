package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// regenerate reads the queries back from the references and the
// snapshots into c.out, in the format `viberag eval --bench` reads, and
// checks the set against the recorded checksum.
func (c config) regenerate(ctx context.Context) error {
	rs, err := readRepos(c.reposTSV)
	if err != nil {
		return err
	}
	set := map[string][]query{}
	for _, r := range rs {
		f, err := os.Open(filepath.Join(c.refs, r.Name+".tsv"))
		if errors.Is(err, os.ErrNotExist) {
			continue // a repository that gave no query
		}
		if err != nil {
			return err
		}
		refs, err := readRefs(f, f.Name())
		f.Close()
		if err != nil {
			return err
		}
		qs, err := c.readBack(ctx, r, refs)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Slug, err)
		}
		set[r.Name] = qs
	}
	if err := writeSet(c.out, rs, set, true); err != nil {
		return err
	}
	return c.checkSum(set)
}

// checkSum compares the set's checksum with the recorded one and says so.
func (c config) checkSum(set map[string][]query) error {
	sum, err := setChecksum(set)
	if err != nil {
		return err
	}
	n := 0
	for _, qs := range set {
		n += len(qs)
	}
	want, err := readSum(c.sum)
	if err != nil {
		return err
	}
	if sum != want {
		return fmt.Errorf("%d queries in %d repositories written to %s, but their sha256 %s is not the one recorded in %s (%s): "+
			"snapshots or references differ, and results are not comparable with runs on the recorded set", n, len(set), c.out, sum, c.sum, want)
	}
	fmt.Fprintf(os.Stderr, "broadgen: %d queries in %d repositories written to %s; sha256 %s matches %s\n", n, len(set), c.out, sum, c.sum)
	return nil
}

// readBack reads a repository's queries from its references.
func (c config) readBack(ctx context.Context, r repo, refs []ref) ([]query, error) {
	snap, err := openSnapshot(ctx, gitDirOf(c.mirror, r.Name))
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	var ids []string
	for _, rf := range refs {
		if rf.Category == "task" {
			ids = append(ids, rf.Source)
		}
	}
	msgs, err := snap.messages(ctx, ids)
	if err != nil {
		return nil, err
	}
	qs := make([]query, 0, len(refs))
	for i, rf := range refs {
		var src []byte
		base := 0
		if rf.Category == "task" {
			src = []byte(msgs[rf.Source])
		} else {
			if src, err = snap.file(r.Commit, rf.Source); err != nil {
				return nil, fmt.Errorf("query %d: %w", i+1, err)
			}
			var ok bool
			if base, ok = lineStart(src, rf.First); !ok {
				return nil, fmt.Errorf("query %d: %s has no line %d", i+1, rf.Source, rf.First)
			}
		}
		text, err := readSpans(src, base, rf.Spans)
		if err != nil {
			return nil, fmt.Errorf("query %d (%s): %w", i+1, rf.Source, err)
		}
		if rf.Category == "architecture" {
			text = archPrefix + text
		}
		qs = append(qs, query{Query: text, Relevant: rf.Targets, Secondary: []string{}, Category: rf.Category})
	}
	return qs, nil
}

// writeSet writes the set in eval's format: annotations/<name>.json per
// repository with queries and, when all, repos.json listing them.
func writeSet(out string, rs []repo, set map[string][]query, all bool) error {
	if err := os.MkdirAll(filepath.Join(out, "annotations"), 0o755); err != nil {
		return err
	}
	var list []benchRepo
	for _, r := range rs {
		qs := set[r.Name]
		if len(qs) == 0 {
			continue
		}
		data, err := json.MarshalIndent(qs, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, "annotations", r.Name+".json"), append(data, '\n'), 0o644); err != nil {
			return err
		}
		br := benchRepo{Name: r.Name, Language: r.Language, URL: "https://github.com/" + r.Slug + ".git", Revision: r.Commit}
		if r.Root != "" {
			root := r.Root
			br.BenchmarkRoot = &root
		}
		list = append(list, br)
	}
	if !all {
		return nil
	}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "repos.json"), append(data, '\n'), 0o644)
}

// encodeSet writes the references of the set in dir (annotations/<name>.json)
// into c.refs, reads them back, and records the checksum of what reads
// back. A query whose words cannot be found is reported and left out.
func (c config) encodeSet(ctx context.Context, dir string) error {
	rs, err := readRepos(c.reposTSV)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.refs, 0o755); err != nil {
		return err
	}
	in, back := map[string][]query{}, map[string][]query{}
	lost := 0
	for _, r := range rs {
		data, err := os.ReadFile(filepath.Join(dir, "annotations", r.Name+".json"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		var qs []query
		if err := json.Unmarshal(data, &qs); err != nil {
			return fmt.Errorf("%s: %w", r.Name, err)
		}
		in[r.Name] = qs
		refs, kept, err := c.locate(ctx, r, qs)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Slug, err)
		}
		lost += len(qs) - len(kept)
		var buf bytes.Buffer
		if err := writeRefs(&buf, refs); err != nil {
			return fmt.Errorf("%s: %w", r.Slug, err)
		}
		if err := os.WriteFile(filepath.Join(c.refs, r.Name+".tsv"), buf.Bytes(), 0o644); err != nil {
			return err
		}
		got, err := c.readBack(ctx, r, refs)
		if err != nil {
			return fmt.Errorf("%s: reading back: %w", r.Slug, err)
		}
		for i := range got {
			if a, b := mustJSON(got[i]), mustJSON(kept[i]); a != b {
				return fmt.Errorf("%s: query %d reads back as %s, not %s", r.Slug, i+1, a, b)
			}
		}
		back[r.Name] = got
	}
	sumIn, err := setChecksum(in)
	if err != nil {
		return err
	}
	sumBack, err := setChecksum(back)
	if err != nil {
		return err
	}
	n := 0
	for _, qs := range back {
		n += len(qs)
	}
	if err := os.WriteFile(c.sum, []byte(sumLine(sumBack, n, len(back))), 0o644); err != nil {
		return err
	}
	if sumIn == sumBack {
		fmt.Fprintf(os.Stderr, "broadgen: %d queries in %d repositories as references in %s; they read back identical (sha256 %s, in %s)\n", n, len(back), c.refs, sumBack, c.sum)
		return nil
	}
	return fmt.Errorf("%d queries could not be referenced and were left out: the set reads back with sha256 %s (in %s), the input's is %s", lost, sumBack, c.sum, sumIn)
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// locate finds where each query's words are: the commit message of a task,
// the target file of a symbol or concept, the module's files (and the
// file beside its directory, and its README) of an architecture query.
// It returns the references and the queries they stand for.
func (c config) locate(ctx context.Context, r repo, qs []query) ([]ref, []query, error) {
	snap, err := openSnapshot(ctx, gitDirOf(c.mirror, r.Name))
	if err != nil {
		return nil, nil, err
	}
	defer snap.Close()
	var commits map[string][]commitMsg
	var refs []ref
	var kept []query
	for i, q := range qs {
		rf := ref{Category: q.Category, Targets: q.Relevant}
		if len(q.Secondary) > 0 {
			return nil, nil, fmt.Errorf("query %d: secondary targets are not referenced (the generator makes none)", i+1)
		}
		found := false
		switch q.Category {
		case "task":
			if commits == nil {
				if commits, err = c.commitMessages(ctx, r); err != nil {
					return nil, nil, err
				}
			}
			for _, cm := range commits[q.Query] {
				if sp, ok := findSpans([]byte(cm.body), q.Query, nil); ok {
					rf.Source, rf.Spans, found = cm.id, sp, true
					break
				}
			}
		case "concept", "symbol", "architecture":
			text := q.Query
			if q.Category == "architecture" {
				if !strings.HasPrefix(text, archPrefix) {
					return nil, nil, fmt.Errorf("query %d: an architecture query without %q", i+1, archPrefix)
				}
				text = strings.TrimPrefix(text, archPrefix)
			}
			cands, err := sourceCandidates(ctx, snap, r, q)
			if err != nil {
				return nil, nil, err
			}
			var best []span
			var bestSrc []byte
			for _, p := range cands {
				src, err := snap.file(r.Commit, p)
				if errors.Is(err, errNoObject) {
					continue
				}
				if err != nil {
					return nil, nil, err
				}
				var prefer func(int) bool
				if q.Category == "symbol" {
					prefer = definitionAt(src, len(text))
				}
				if sp, ok := findSpans(src, text, prefer); ok && (best == nil || len(sp) < len(best)) {
					best, bestSrc, rf.Source = sp, src, p
				}
			}
			if lo, hi := spanBounds(best); best != nil && lo >= 0 {
				rf.First, rf.Last = lineOf(bestSrc, lo), lineOf(bestSrc, hi-1)
				base, _ := lineStart(bestSrc, rf.First)
				for _, s := range best {
					if s.Lit == 0 {
						s.Off -= base
					}
					rf.Spans = append(rf.Spans, s)
				}
				found = true
			}
		default:
			return nil, nil, fmt.Errorf("query %d: unknown category %q", i+1, q.Category)
		}
		if !found {
			fmt.Fprintf(os.Stderr, "broadgen: %s: query %d (%s) not found in its sources: left out\n", r.Name, i+1, q.Category)
			continue
		}
		refs = append(refs, rf)
		kept = append(kept, q)
	}
	return refs, kept, nil
}

// commitMsg is a commit and its message.
type commitMsg struct{ id, body string }

// commitMessages maps the cleaned message of each commit the task rule
// reads (taskQueries) to those commits, newest first.
func (c config) commitMessages(ctx context.Context, r repo) (map[string][]commitMsg, error) {
	args := []string{"--git-dir", gitDirOf(c.mirror, r.Name), "log", "--no-merges", "-n", fmt.Sprint(c.maxLog),
		"--format=%x1e%H%x1f%B%x1f", r.Commit}
	if r.Root != "" {
		args = append(args, "--", r.Root)
	}
	out, err := exec.CommandContext(ctx, "git", args...).Output()
	if err != nil {
		return nil, fmt.Errorf("git log: %w", err)
	}
	m := map[string][]commitMsg{}
	for _, rec := range bytes.Split(out, []byte{0x1e}) {
		f := strings.SplitN(string(rec), "\x1f", 3)
		if len(f) != 3 {
			continue
		}
		if msg := c.cleanMessage(f[1]); msg != "" {
			m[msg] = append(m[msg], commitMsg{id: f[0], body: f[1]})
		}
	}
	return m, nil
}

// sourceCandidates are the files that may hold a query's words, most
// likely first: its targets; for an architecture query then every other
// file of the targets' directories, and of their parents (the file beside
// a module's directory that names it).
func sourceCandidates(ctx context.Context, snap *snapshot, r repo, q query) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(ps ...string) {
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	add(q.Relevant...)
	if q.Category != "architecture" {
		return out, nil
	}
	var dirs []string
	for _, t := range q.Relevant {
		dirs = append(dirs, path.Dir(t))
	}
	for _, t := range q.Relevant {
		dirs = append(dirs, path.Dir(path.Dir(t)))
	}
	for _, d := range dirs {
		if d == "." {
			d = ""
		}
		fs, err := snap.dirFiles(ctx, r.Commit, d)
		if err != nil {
			return nil, err
		}
		sort.Strings(fs)
		add(fs...)
	}
	return out, nil
}

var defBefore = regexp.MustCompile(`\b` + defKeyword + `\s+(?:[A-Za-z_][A-Za-z0-9_]*[.:]+)*$`)

// definitionAt reports whether the name of n bytes at an offset of src is
// introduced there by a definition keyword, as a whole word.
func definitionAt(src []byte, n int) func(int) bool {
	return func(at int) bool {
		ls := bytes.LastIndexByte(src[:at], '\n') + 1
		end := at + n
		if end < len(src) && isWordByte(src[end]) {
			return false
		}
		return defBefore.Match(src[ls:at])
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
