package fileset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	// Gitignore matching comes from go-git rather than being hand-written:
	// it has gitignore's semantics (negation, dir-only "/" patterns,
	// anchoring, "**") with a per-pattern domain, which is exactly what
	// nested ignore files need, and it is actively maintained. Importing
	// only this package compiles in a handful of small packages (go-billy,
	// gcfg); the rest of go-git stays out of the binary. The smaller
	// alternatives are unmaintained (sabhiram/go-gitignore: last change
	// 2021, no notion of directories or nesting; denormal/go-gitignore:
	// not even served by the module proxy any more).
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Names of the ignore files read in each directory.
const (
	gitignoreName     = ".gitignore"
	viberagignoreName = ".viberagignore"
)

// ignoreSet is the ignore patterns in force in one directory: its own and
// all its ancestors', in increasing priority, each pattern scoped to the
// directory that holds its file.
type ignoreSet struct {
	git, vib       []gitignore.Pattern
	gitMat, vibMat gitignore.Matcher // nil when there are no patterns
}

func (s *ignoreSet) gitignored(parts []string, isDir bool) bool {
	return s != nil && s.gitMat != nil && s.gitMat.Match(parts, isDir)
}

func (s *ignoreSet) viberagignored(parts []string, isDir bool) bool {
	return s != nil && s.vibMat != nil && s.vibMat.Match(parts, isDir)
}

// loadIgnores builds the ignore set of directory rel from its parent's set
// and the directory's own ignore files. .gitignore is read only in walk
// mode; in git mode git has applied it already.
func (s *selector) loadIgnores(rel string, parent *ignoreSet) (*ignoreSet, error) {
	var domain []string
	if rel != "" {
		domain = strings.Split(rel, "/")
	}
	set := &ignoreSet{}
	if parent != nil {
		set.git, set.vib = parent.git, parent.vib
	}
	if s.walk {
		ps, err := s.readIgnoreFile(rel, gitignoreName, domain)
		if err != nil {
			return nil, err
		}
		// The full slice expression forces a copy, so siblings never share
		// (and overwrite) the parent's spare capacity.
		if len(ps) > 0 {
			set.git = append(set.git[:len(set.git):len(set.git)], ps...)
		}
	}
	ps, err := s.readIgnoreFile(rel, viberagignoreName, domain)
	if err != nil {
		return nil, err
	}
	if len(ps) > 0 {
		set.vib = append(set.vib[:len(set.vib):len(set.vib)], ps...)
	}
	if len(set.git) > 0 {
		set.gitMat = gitignore.NewMatcher(set.git)
	}
	if len(set.vib) > 0 {
		set.vibMat = gitignore.NewMatcher(set.vib)
	}
	return set, nil
}

// ignoreFileLimit bounds an ignore file: real ones are a few KB.
const ignoreFileLimit = 1 << 20

// readIgnoreFile parses the ignore file name in directory rel; a missing
// file has no patterns.
func (s *selector) readIgnoreFile(rel, name string, domain []string) ([]gitignore.Pattern, error) {
	p := filepath.Join(s.root, filepath.FromSlash(rel), name)
	data, err := ReadRegular(s.ctx, p, ignoreFileLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path == p {
			// Keep the detail short and root-relative.
			return nil, fmt.Errorf("read %s: %w", name, pe.Err)
		}
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return parseIgnore(data, domain), nil
}

// parseIgnore parses gitignore syntax. go-git's ParsePattern takes one
// pattern; the file-level rules (comments, blank lines, CRLF, a leading
// BOM) are applied here.
func parseIgnore(data []byte, domain []string) []gitignore.Pattern {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1) // no line limit: the file is already in memory
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}
