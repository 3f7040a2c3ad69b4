package fileset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// File-size limits for SelectOptions.MaxFileSize.
const (
	// DefaultMaxFileSize is the size limit used when MaxFileSize is 0.
	DefaultMaxFileSize = 1 << 20
	// MaxMaxFileSize is the largest MaxFileSize accepted: bigger files are
	// almost never hand-written code and would swamp the index.
	MaxMaxFileSize = 10 << 20
)

// Reasons a file or directory is skipped, as recorded in Skipped.Reason.
//
// Files ignored by .gitignore have no reason: in a git work tree git does
// not even list them, and counting each one would mostly count build
// outputs, so the walk drops them silently too.
const (
	// SkipAlwaysDir: a directory that never holds source worth indexing
	// (node_modules, vendor, .git …) or the index's own data directory.
	// One entry per directory, Detail "directory".
	SkipAlwaysDir = "always_skipped_dir"
	// SkipLockFile: a dependency lock file (package-lock.json, go.sum, *.lock …).
	SkipLockFile = "lock_file"
	// SkipMinified: minified JavaScript or CSS (*.min.js).
	SkipMinified = "minified"
	// SkipSourceMap: a source map (*.map).
	SkipSourceMap = "source_map"
	// SkipSecret: a file whose name says it usually holds secrets (.env,
	// *.pem, id_rsa …); SelectOptions.IndexSecrets turns this off.
	SkipSecret = "secret"
	// SkipViberagignore: matched by a .viberagignore file. Directories
	// count once, Detail "directory".
	SkipViberagignore = "viberagignore"
	// SkipExcluded: matched by a SelectOptions.Exclude pattern; Detail
	// names the pattern. Directories count once.
	SkipExcluded = "excluded"
	// SkipNotIncluded: SelectOptions.Include is set and no pattern matches.
	SkipNotIncluded = "not_included"
	// SkipTooLarge: larger than the size limit; Detail gives both.
	SkipTooLarge = "too_large"
	// SkipBinaryExt: the extension names a binary format (images,
	// archives, objects …), so the file is not even read.
	SkipBinaryExt = "binary_extension"
	// SkipBinary: a NUL byte in the first 8 KiB (CheckContent).
	SkipBinary = "binary"
	// SkipInvalidUTF8: the content is not valid UTF-8 (CheckContent).
	SkipInvalidUTF8 = "invalid_utf8"
	// SkipSymlinkOutside: a symbolic link that resolves outside the root.
	SkipSymlinkOutside = "symlink_outside_root"
	// SkipSymlinkLoop: a symbolic link that never resolves (a cycle).
	SkipSymlinkLoop = "symlink_loop"
	// SkipSymlinkDir: a symbolic link to a directory inside the root. Such
	// links are never descended, which rules out cycles by construction.
	SkipSymlinkDir = "symlink_dir"
	// SkipSymlink: a symbolic link to a regular file inside the root. The
	// target is selected (or skipped) under its own path; indexing the link
	// too would duplicate content and let a harmless name smuggle in a file
	// the rules skip (notes.txt → .env). Detail names the target.
	SkipSymlink = "symlink_duplicate"
	// SkipSubmodule: a git submodule or nested repository, listed by git as
	// a directory; its files belong to another repository.
	SkipSubmodule = "submodule"
	// SkipNotRegular: a socket, device, named pipe or the like.
	SkipNotRegular = "not_regular"
	// SkipUnreadable: the file or directory could not be examined (a
	// dangling symlink, a permission error …); Detail has the OS error.
	SkipUnreadable = "unreadable"
)

// SelectOptions configure which files are indexed.
type SelectOptions struct {
	// Include and Exclude are doublestar globs ("**" spans directories)
	// matched against the root-relative '/'-separated path and against the
	// base name; a pattern that matches a directory covers everything
	// below it. Exclude wins over Include; an empty Include means every file.
	Include, Exclude []string
	// MaxFileSize is the largest file indexed, in bytes: 0 means
	// DefaultMaxFileSize; more than MaxMaxFileSize is a validation error.
	MaxFileSize int64
	// IndexSecrets turns off the SkipSecret rule: the user knows best.
	IndexSecrets bool
	// DataDir is the index's own directory, always skipped when it lies
	// inside the root. Empty means none.
	DataDir string
}

// SizeLimit is the largest file indexed, in bytes: MaxFileSize, or
// DefaultMaxFileSize when that is 0.
func (o SelectOptions) SizeLimit() int64 {
	if o.MaxFileSize == 0 {
		return DefaultMaxFileSize
	}
	return o.MaxFileSize
}

// Validate reports the first invalid option, naming the field and value.
func (o SelectOptions) Validate() error {
	for _, f := range []struct {
		name string
		pats []string
	}{{"include", o.Include}, {"exclude", o.Exclude}} {
		for _, p := range f.pats {
			if p == "" {
				return fmt.Errorf("%s: empty pattern", f.name)
			}
			if !doublestar.ValidatePattern(p) {
				return fmt.Errorf("%s: invalid pattern %q: %w", f.name, p, doublestar.ErrBadPattern)
			}
		}
	}
	if o.MaxFileSize < 0 {
		return fmt.Errorf("max_file_size: %d is negative", o.MaxFileSize)
	}
	if o.MaxFileSize > MaxMaxFileSize {
		return fmt.Errorf("max_file_size: %d is over the limit %d", o.MaxFileSize, MaxMaxFileSize)
	}
	return nil
}

// Selection is the outcome: the files to index and every skipped file with
// its reason.
type Selection struct {
	// Root is the absolute root with symbolic links resolved; every path
	// in Files and Skipped is relative to it, in its index form
	// (IndexPath; Join gives the file's path on disk).
	Root string
	// Files are the files to index, sorted by path.
	Files []Candidate
	// Skipped are the files and directories not indexed, sorted by path.
	Skipped []Skipped
	// Git reports that the files were listed by git rather than a walk.
	Git bool
}

// Candidate is a file chosen for indexing.
type Candidate struct {
	Path    string // relative to Selection.Root, '/'-separated, index form (IndexPath)
	Size    int64
	ModTime time.Time
}

// Skipped is a file or directory left out, with the reason (a Skip*
// constant) and a human-readable detail.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// Select chooses the files under root to index.
//
// Inside a git work tree (root may be any directory in it) the candidates
// are what `git ls-files --cached --others --exclude-standard` lists:
// tracked files plus untracked files git does not ignore. Elsewhere, or when
// git is not installed, a walk of root honours nested .gitignore files the
// same way. Both then apply, in order: the always-skipped directories and
// DataDir, .viberagignore files (gitignore syntax, nested), Exclude,
// Include, lock files, secrets, minified files and source maps, binary
// extensions, file type and symlink checks, and the size limit. Files
// .gitignore excludes are dropped without a Skipped entry; ignore files
// above root are not read (git's own handling aside).
//
// Symbolic links are never followed, so no walk can leave the root or
// loop: every link is a Skipped entry saying what it points at
// (SkipSymlink, SkipSymlinkDir, SkipSymlinkOutside, SkipSymlinkLoop).
//
// The content checks (binary, UTF-8) need the bytes, so they are left to
// the reader: see CheckContent.
func Select(ctx context.Context, root string, opts SelectOptions) (*Selection, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("select %s: %w", root, err)
	}
	resolved, err := resolveRoot(root)
	if err != nil {
		return nil, fmt.Errorf("select %s: %w", root, err)
	}
	opts.Include, opts.Exclude = indexPatterns(opts.Include), indexPatterns(opts.Exclude)
	s := &selector{
		ctx:     ctx,
		root:    resolved,
		opts:    opts,
		maxSize: opts.SizeLimit(),
		ignores: make(map[string]*ignoreSet),
		dirOK:   make(map[string]bool),
		sel:     &Selection{Root: resolved},
	}
	if opts.DataDir != "" {
		s.dataRel = s.insideRel(opts.DataDir)
	}

	files, isGit, err := gitList(ctx, resolved)
	if err != nil {
		return nil, fmt.Errorf("select %s: %w", root, err)
	}
	s.walk = !isGit
	s.sel.Git = isGit
	// The root's own ignore files must be readable: without them nothing
	// can be chosen safely.
	rootSet, err := s.loadIgnores("", nil)
	if err != nil {
		return nil, fmt.Errorf("select %s: %w", root, err)
	}
	s.ignores[""] = rootSet

	if isGit {
		err = s.selectListed(files)
	} else {
		err = s.selectWalk()
	}
	if err != nil {
		return nil, fmt.Errorf("select %s: %w", root, err)
	}
	slices.SortFunc(s.sel.Files, func(a, b Candidate) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(s.sel.Skipped, func(a, b Skipped) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	return s.sel, nil
}

// CheckContent reports why a file's content, as ReadText returns it
// (UTF-16 with a byte order mark already decoded), should not be indexed:
// SkipBinary for a NUL byte in the first 8 KiB (the heuristic git and grep
// use; it also catches UTF-16 without a mark), SkipInvalidUTF8 for content that is not
// UTF-8, and "" for content that is fine. path is for the caller's
// convenience and future rules; the verdict depends on data alone.
func CheckContent(path string, data []byte) (reason string) {
	head := data[:min(len(data), 8<<10)]
	if bytes.IndexByte(head, 0) >= 0 {
		return SkipBinary
	}
	if !utf8.Valid(data) {
		return SkipInvalidUTF8
	}
	return ""
}

// SkipCounts counts skipped entries by reason.
func SkipCounts(sk []Skipped) map[string]int {
	n := make(map[string]int)
	for _, s := range sk {
		n[s.Reason]++
	}
	return n
}

// resolveRoot returns root as an absolute path with symbolic links
// resolved, so that "inside the root" is a plain prefix test on resolved
// paths, and checks that it is a directory.
func resolveRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", root)
	}
	return resolved, nil
}

// selector holds the state of one Select call.
type selector struct {
	ctx     context.Context
	root    string // absolute, symlinks resolved
	opts    SelectOptions
	maxSize int64
	dataRel string // DataDir relative to root, "" when outside it
	walk    bool   // walking the tree: .gitignore files are ours to apply

	// ignores holds the cumulative ignore patterns of every accepted
	// directory ("" is the root), loaded once when the directory is
	// accepted.
	ignores map[string]*ignoreSet
	// dirOK caches the verdict on every directory seen in git mode, where
	// directories are only implied by the listed paths.
	dirOK map[string]bool
	sel   *Selection
}

func (s *selector) skip(rel, reason, detail string) {
	s.sel.Skipped = append(s.sel.Skipped, Skipped{Path: IndexPath(rel), Reason: reason, Detail: detail})
}

// insideRel returns p relative to the root when p lies strictly inside
// it, else "". p need not exist yet: the data directory may be created
// only after the first selection.
func (s *selector) insideRel(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	rel, err := filepath.Rel(s.root, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// selectWalk walks the root, pruning skipped directories.
func (s *selector) selectWalk() error {
	return filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
		if cerr := s.ctx.Err(); cerr != nil {
			return cerr
		}
		if p == s.root {
			return err // an unreadable root fails the whole selection
		}
		rel, rerr := filepath.Rel(s.root, p)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			// A directory that cannot be read (or an entry that vanished).
			if !errors.Is(err, fs.ErrNotExist) {
				detail := err.Error()
				if d != nil && d.IsDir() {
					detail = s.unreadableDir(rel, err)
				}
				s.skip(rel, SkipUnreadable, detail)
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if !s.acceptDir(rel) {
				return fs.SkipDir
			}
			return nil
		}
		s.considerFile(rel, d.Info)
		return nil
	})
}

// selectListed applies the rules to the paths git listed.
func (s *selector) selectListed(files []string) error {
	for i, rel := range files {
		if i%256 == 0 {
			if err := s.ctx.Err(); err != nil {
				return err
			}
		}
		// An untracked nested repository is listed as "dir/".
		rel, nested := strings.CutSuffix(rel, "/")
		if rel == "" || !s.dirTreeOK(parentDir(rel)) {
			continue
		}
		if nested {
			if s.dirTreeOK(rel) {
				s.skip(rel, SkipSubmodule, "directory")
			}
			continue
		}
		s.considerFile(rel, func() (fs.FileInfo, error) {
			return os.Lstat(filepath.Join(s.root, filepath.FromSlash(rel)))
		})
	}
	return nil
}

// dirTreeOK reports whether dir and all its ancestors are accepted,
// judging (and recording) each directory once.
func (s *selector) dirTreeOK(dir string) bool {
	if dir == "" {
		return true
	}
	if ok, seen := s.dirOK[dir]; seen {
		return ok
	}
	ok := s.dirTreeOK(parentDir(dir)) && s.acceptDir(dir)
	s.dirOK[dir] = ok
	return ok
}

// acceptDir judges directory rel, whose parent is accepted: it records a
// skip when there is a reason to, and otherwise loads the directory's
// ignore files.
func (s *selector) acceptDir(rel string) bool {
	parent := s.ignores[parentDir(rel)]
	parts := strings.Split(rel, "/")
	if s.walk && parent.gitignored(parts, true) {
		return false // silent, like git
	}
	if !s.acceptDirName(rel) {
		return false
	}
	if parent.viberagignored(parts, true) {
		s.skip(rel, SkipViberagignore, "directory")
		return false
	}
	if p, ok := matchPattern(s.opts.Exclude, rel); ok {
		s.skip(rel, SkipExcluded, fmt.Sprintf("directory, pattern %q", p))
		return false
	}
	set, err := s.loadIgnores(rel, parent)
	if err != nil {
		// Indexing the directory without its ignore file could index what
		// the user meant to hide.
		s.skip(rel, SkipUnreadable, s.unreadableDir(rel, err))
		return false
	}
	s.ignores[rel] = set
	return true
}

// unreadableDir says why directory rel, or an ignore file in it, could
// not be read (err), and how to get its files indexed: a directory the
// user may not list or enter is named as such (its ignore file cannot be
// read either, and that is not the cause).
func (s *selector) unreadableDir(rel string, err error) string {
	abs := filepath.Join(s.root, filepath.FromSlash(rel))
	fix := fmt.Sprintf("make it readable (chmod +rx %s) or leave it out (--exclude '%s/**', or a line in .viberagignore)", IndexPath(rel), IndexPath(rel))
	if !dirUsable(abs) {
		mode := ""
		if fi, err := os.Lstat(abs); err == nil {
			mode = "mode " + fi.Mode().String() + ", "
		}
		cause := "cannot be read"
		if errors.Is(err, fs.ErrPermission) {
			cause = "is not readable by this user"
		}
		return fmt.Sprintf("directory %s (%s%s); its files are not indexed: %s", cause, mode, rootCause(err), fix)
	}
	// The directory is fine: its ignore file is not.
	return fmt.Sprintf("%v; the directory is left out rather than indexed without its ignore rules: make the file readable, or leave the directory out (--exclude '%s/**')", err, IndexPath(rel))
}

// dirUsable reports whether the directory at p can be listed and entered.
func dirUsable(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	// Entering it takes search permission, which listing does not.
	_, err = os.Lstat(p + string(filepath.Separator) + ".")
	return err == nil
}

// rootCause is the innermost error of err's chain: the operating
// system's words (permission denied), without the paths around them.
func rootCause(err error) string {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return err.Error()
		}
		err = inner
	}
}

// acceptDirName applies the rules that depend only on a directory's path:
// the always-skipped names and the data directory.
func (s *selector) acceptDirName(rel string) bool {
	if alwaysSkipDirs[path.Base(rel)] || (s.dataRel != "" && rel == s.dataRel) {
		s.skip(rel, SkipAlwaysDir, "directory")
		return false
	}
	return true
}

// considerFile applies the file rules to rel, whose directory is accepted,
// and records the verdict. info (an lstat) is called only once the name
// rules pass, so most skips cost no system call.
func (s *selector) considerFile(rel string, info func() (fs.FileInfo, error)) {
	parts := strings.Split(rel, "/")
	set := s.ignores[parentDir(rel)]
	if s.walk && set.gitignored(parts, false) {
		return
	}
	if reason, detail := s.nameRule(rel, set, parts); reason != "" {
		s.skip(rel, reason, detail)
		return
	}
	fi, err := info()
	if err != nil {
		// A tracked file deleted from disk is simply not a file.
		if !errors.Is(err, fs.ErrNotExist) {
			s.skip(rel, SkipUnreadable, err.Error())
		}
		return
	}
	mode := fi.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		reason, detail := s.symlinkRule(rel)
		s.skip(rel, reason, detail)
		return
	case mode.IsDir():
		// Only git lists directories: submodules (gitlinks).
		s.skip(rel, SkipSubmodule, "directory")
		return
	case !mode.IsRegular():
		s.skip(rel, SkipNotRegular, mode.Type().String())
		return
	}
	if fi.Size() > s.maxSize {
		s.skip(rel, SkipTooLarge, fmt.Sprintf("%d bytes is over the limit %d", fi.Size(), s.maxSize))
		return
	}
	s.sel.Files = append(s.sel.Files, Candidate{Path: IndexPath(rel), Size: fi.Size(), ModTime: fi.ModTime()})
}

// nameRule applies the rules that need only the path, in priority order:
// the user's own rules first, so the reason shown is the one they set.
func (s *selector) nameRule(rel string, set *ignoreSet, parts []string) (reason, detail string) {
	if set.viberagignored(parts, false) {
		return SkipViberagignore, ""
	}
	if p, ok := matchPattern(s.opts.Exclude, rel); ok {
		return SkipExcluded, fmt.Sprintf("pattern %q", p)
	}
	if len(s.opts.Include) > 0 && !s.included(rel) {
		return SkipNotIncluded, ""
	}
	name := path.Base(rel)
	lower := strings.ToLower(name)
	switch {
	case isLockFile(name, lower):
		return SkipLockFile, ""
	case !s.opts.IndexSecrets && isSecretName(lower):
		return SkipSecret, ""
	case isMinified(lower):
		return SkipMinified, ""
	case strings.HasSuffix(lower, ".map"):
		return SkipSourceMap, ""
	}
	if ext := path.Ext(lower); ext != "" && binaryExts[ext[1:]] {
		return SkipBinaryExt, ext
	}
	return "", ""
}

// included reports whether an Include pattern matches rel or one of its
// directories, so that --include src selects everything under src.
func (s *selector) included(rel string) bool {
	for p := rel; p != "."; p = path.Dir(p) {
		if _, ok := matchPattern(s.opts.Include, p); ok {
			return true
		}
	}
	return false
}

// symlinkRule classifies the symbolic link rel. Links are never followed:
// each one is skipped with the reason that tells the user what it is.
func (s *selector) symlinkRule(rel string) (reason, detail string) {
	abs := filepath.Join(s.root, filepath.FromSlash(rel))
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if isLoop(err) {
			return SkipSymlinkLoop, err.Error()
		}
		return SkipUnreadable, err.Error()
	}
	trel, err := filepath.Rel(s.root, target)
	if err != nil || trel == ".." || strings.HasPrefix(trel, ".."+string(filepath.Separator)) {
		return SkipSymlinkOutside, target
	}
	trel = IndexPath(filepath.ToSlash(trel))
	fi, err := os.Stat(target)
	if err != nil {
		return SkipUnreadable, err.Error()
	}
	switch {
	case fi.IsDir():
		return SkipSymlinkDir, trel
	case fi.Mode().IsRegular():
		return SkipSymlink, trel
	default:
		return SkipNotRegular, fi.Mode().Type().String()
	}
}

// isLoop reports whether err comes from a cycle of symbolic links.
// filepath.EvalSymlinks gives up after 255 links with its own error rather
// than ELOOP, so both are checked.
func isLoop(err error) bool {
	return errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "too many links")
}

// matchPattern returns the first pattern matching rel or its base name,
// as the file system spells them or in their index form (the form
// answers show, which a pattern may copy).
func matchPattern(patterns []string, rel string) (string, bool) {
	if len(patterns) == 0 {
		return "", false
	}
	forms := []string{rel}
	if ip := IndexPath(rel); ip != rel {
		forms = append(forms, ip)
	}
	for _, p := range patterns {
		for _, f := range forms {
			// Validate ran before any work, so the patterns are well-formed.
			name := path.Base(f)
			if doublestar.MatchUnvalidated(p, f) || (name != f && doublestar.MatchUnvalidated(p, name)) {
				return p, true
			}
		}
	}
	return "", false
}

// indexPatterns returns patterns with each one that is not UTF-8 (bytes
// typed in a shell) in its index form, which matches the index forms of
// the names it spells: doublestar compares runes, and to it every byte
// that is not UTF-8 is the same rune.
func indexPatterns(patterns []string) []string {
	out := patterns
	for i, p := range patterns {
		if ip := IndexPath(p); ip != p && !utf8.ValidString(p) {
			if &out[0] == &patterns[0] {
				out = slices.Clone(patterns)
			}
			out[i] = ip
		}
	}
	return out
}

// parentDir returns the '/'-separated parent of rel, "" for the root.
func parentDir(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}
