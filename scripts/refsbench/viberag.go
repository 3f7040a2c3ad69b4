package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// viberag runs one viberag binary against one indexed root.
type viberag struct {
	bin, root, dataDir string
}

// index builds or refreshes the root's index, vectors off.
func (v viberag) index(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, v.bin, "index", v.root, "--embed", "off", "--data-dir", v.dataDir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("viberag index %s: %w: %s", v.root, err, tail(out.String()))
	}
	return nil
}

// run runs a viberag command with --json and decodes what it prints. Exit
// status 1 is an answer of none and still prints JSON.
func (v viberag) run(ctx context.Context, resp any, args ...string) error {
	args = append(args, "--json", "--data-dir", v.dataDir, "-C", v.root)
	cmd := exec.CommandContext(ctx, v.bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		return fmt.Errorf("viberag %s: %w: %s", strings.Join(args, " "), err, tail(stderr.String()))
	}
	if err := json.Unmarshal(stdout.Bytes(), resp); err != nil {
		return fmt.Errorf("viberag %s: %w (stdout %q, stderr %q)", strings.Join(args, " "), err, tail(stdout.String()), tail(stderr.String()))
	}
	return nil
}

// refsAnswer is what `viberag refs ID --json` says about one symbol.
type refsAnswer struct {
	Lines []loc // every line listed, sorted
	// Confident are the lines listed as resolved or likely (a build that
	// marks no confidence lists none).
	Confident []loc
	Marked    bool // some line is marked with a confidence
	Reexports int  // lines marked as re-exports of the name, not in Lines
	Total     int  // the count it reports, listed or not
	Truncated bool
	Notes     []string
}

// refsLimit is the most lines `viberag refs` lists in one answer.
const refsLimit = 1000

// refsPages bounds the pages read of one answer.
const refsPages = 20

// refs lists the references viberag gives for a symbol id, following
// next_offset (a build without paging answers one page): when the last
// page read is still truncated, only the listed lines count and
// Truncated says so.
func (v viberag) refs(ctx context.Context, id string) (refsAnswer, error) {
	a := refsAnswer{Lines: []loc{}}
	seen := map[loc]bool{}
	offset := 0
	for page := 0; page < refsPages; page++ {
		var r struct {
			Total      int      `json:"total"`
			Truncated  bool     `json:"truncated"`
			NextOffset int      `json:"next_offset"`
			Notes      []string `json:"notes"`
			Files      []struct {
				Path string `json:"path"`
				Refs []struct {
					Line       int      `json:"line"`
					Kinds      []string `json:"kinds"`
					Confidence string   `json:"confidence"`
				} `json:"refs"`
			} `json:"files"`
			Error string `json:"error"`
		}
		args := []string{"refs", id, "--limit", fmt.Sprint(refsLimit)}
		if offset > 0 {
			args = append(args, "--offset", fmt.Sprint(offset))
		}
		if err := v.run(ctx, &r, args...); err != nil {
			return refsAnswer{}, err
		}
		if r.Error != "" {
			return refsAnswer{}, fmt.Errorf("viberag refs %s: %s", id, r.Error)
		}
		if page == 0 {
			a.Total, a.Notes = r.Total, r.Notes
		}
		a.Truncated = r.Truncated
		for _, f := range r.Files {
			for _, h := range f.Refs {
				l := loc{f.Path, h.Line}
				if slices.Contains(h.Kinds, "reexport") {
					// A re-export line ("from .m import x as x"): counted
					// apart, not judged (jedi lists none).
					if !seen[l] {
						seen[l] = true
						a.Reexports++
					}
					continue
				}
				if !seen[l] {
					seen[l] = true
					a.Lines = append(a.Lines, l)
					a.Marked = a.Marked || h.Confidence != ""
					if h.Confidence == "resolved" || h.Confidence == "likely" {
						a.Confident = append(a.Confident, l)
					}
				}
			}
		}
		if !r.Truncated || r.NextOffset <= offset {
			break
		}
		offset = r.NextOffset
	}
	sortLocs(a.Lines)
	sortLocs(a.Confident)
	return a, nil
}

// symbolID is the id of the definition `viberag symbol NAME` picks, "" when
// it finds none.
func (v viberag) symbolID(ctx context.Context, name string) (string, error) {
	var r struct {
		ID string `json:"id"`
	}
	if err := v.run(ctx, &r, "symbol", name, "--no-code"); err != nil {
		return "", err
	}
	return r.ID, nil
}
