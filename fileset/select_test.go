package fileset

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/viberag/viberag/internal/testkit"
)

// hermeticGit points git (ours and the one Select runs) away from the
// machine's configuration, so a global excludesFile or a repository above
// the temp dir cannot change the outcome.
func hermeticGit(t *testing.T, ceiling string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is required by these tests: %v", err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_SYSTEM", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CEILING_DIRECTORIES", ceiling)
	t.Setenv("HOME", ceiling)
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// selectCase is one repository layout and what Select must make of it.
type selectCase struct {
	name  string
	files map[string]string
	// setup runs after the files are written and before the commit; dir
	// is the repository directory, outside a directory beside it that is
	// not under the root.
	setup func(t *testing.T, dir, outside string)
	// git: make dir a repository and commit everything (forced, so that
	// gitignored and always-skipped files are tracked too when listed in
	// commit); afterCommit then runs.
	git         bool
	commit      []string // paths to commit; nil = all (git add -A)
	afterCommit func(t *testing.T, dir string)
	sub         string // Select root relative to dir; "" = dir
	opts        func(dir string) SelectOptions
	want        []string          // selected paths, sorted
	skipped     map[string]string // path → reason, exactly
	wantGit     *bool             // nil: must equal git
}

func runSelectCase(t *testing.T, tc selectCase) {
	t.Helper()
	base := t.TempDir()
	hermeticGit(t, base)
	dir := filepath.Join(base, "repo")
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFiles(t, outside, map[string]string{"secret.txt": "x", "d/f.go": "package d"})
	testkit.WriteFiles(t, dir, tc.files)
	if tc.setup != nil {
		tc.setup(t, dir, outside)
	}
	if tc.git {
		testkit.Git(t, dir, "init", "-q")
		if tc.commit == nil {
			testkit.Git(t, dir, "add", "-A")
		} else {
			testkit.Git(t, dir, append([]string{"add", "-f", "--"}, tc.commit...)...)
		}
		testkit.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "init")
		if tc.afterCommit != nil {
			tc.afterCommit(t, dir)
		}
	}
	var opts SelectOptions
	if tc.opts != nil {
		opts = tc.opts(dir)
	}
	root := filepath.Join(dir, filepath.FromSlash(tc.sub))
	sel, err := Select(context.Background(), root, opts)
	if err != nil {
		t.Fatalf("Select: %v", err)
	}
	checkSelection(t, sel, root, tc)
}

func checkSelection(t *testing.T, sel *Selection, root string, tc selectCase) {
	t.Helper()
	wantGit := tc.git
	if tc.wantGit != nil {
		wantGit = *tc.wantGit
	}
	if sel.Git != wantGit {
		t.Errorf("Git = %v, want %v", sel.Git, wantGit)
	}
	if resolved, _ := filepath.EvalSymlinks(root); sel.Root != resolved {
		t.Errorf("Root = %q, want %q", sel.Root, resolved)
	}
	if !slices.IsSortedFunc(sel.Files, func(a, b Candidate) int { return strings.Compare(a.Path, b.Path) }) {
		t.Errorf("Files not sorted by path")
	}
	if !slices.IsSortedFunc(sel.Skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) }) {
		t.Errorf("Skipped not sorted by path")
	}
	var got []string
	for _, f := range sel.Files {
		got = append(got, f.Path)
		fi, err := os.Stat(filepath.Join(sel.Root, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Errorf("selected %s: %v", f.Path, err)
		} else if fi.Size() != f.Size || !fi.ModTime().Equal(f.ModTime) {
			t.Errorf("%s: Size/ModTime = %d/%v, want %d/%v", f.Path, f.Size, f.ModTime, fi.Size(), fi.ModTime())
		}
	}
	want := slices.Clone(tc.want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Files:\n got  %q\n want %q", got, want)
	}
	gotSkip := make(map[string]string)
	for _, s := range sel.Skipped {
		if prev, dup := gotSkip[s.Path]; dup {
			t.Errorf("%s skipped twice (%s, %s)", s.Path, prev, s.Reason)
		}
		gotSkip[s.Path] = s.Reason
	}
	if tc.skipped == nil {
		tc.skipped = map[string]string{}
	}
	if !maps.Equal(gotSkip, tc.skipped) {
		t.Errorf("Skipped:\n got  %v\n want %v", gotSkip, tc.skipped)
		for _, s := range sel.Skipped {
			t.Logf("  %s\t%s\t%s", s.Path, s.Reason, s.Detail)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestSelect(t *testing.T) {
	lockNames := []string{"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "go.sum",
		"poetry.lock", "Gemfile.lock", "composer.lock", "Pipfile.lock", "bun.lockb", "flake.lock", "sub/custom.lock"}
	lockFiles := map[string]string{"main.go": "package main", "package.json": "{}", "go.mod": "module x"}
	lockSkips := map[string]string{}
	for _, n := range lockNames {
		lockFiles[n] = "lock"
		lockSkips[n] = SkipLockFile
	}

	secretFiles := map[string]string{
		".env": "K=v", ".env.local": "K=v", "prod.env": "K=v", "config/server.pem": "pem",
		"tls.KEY": "key", "id_rsa": "key", "id_rsa.pub": "pub", "aws_credentials.json": "{}",
		"MySecret.txt": "s", "CERT.PEM": "pem",
		"app.go": "package app", "environment.go": "package app", "keys.go": "package app",
		// Source files named after secrets hold code, not secrets: indexed.
		"secret_store.go": "package app", "credentials.go": "package app",
	}
	secretSkips := map[string]string{}
	for p := range secretFiles {
		if !strings.HasSuffix(p, ".go") {
			secretSkips[p] = SkipSecret
		}
	}

	alwaysFiles := map[string]string{
		"main.go": "package main", "node_modules/a/b.js": "x", "vendor/v/x.go": "package x",
		"target/t.rs": "fn", "dist/d.js": "x", "build/b.js": "x", "__pycache__/c.py": "x",
		".venv/lib/l.py": "x", "web/node_modules/z.js": "x", "web/app.js": "x",
		"vendored/ok.go": "package ok",
	}
	alwaysSkips := map[string]string{
		"node_modules": SkipAlwaysDir, "vendor": SkipAlwaysDir, "target": SkipAlwaysDir,
		"dist": SkipAlwaysDir, "build": SkipAlwaysDir, "__pycache__": SkipAlwaysDir,
		".venv": SkipAlwaysDir, "web/node_modules": SkipAlwaysDir,
	}
	alwaysWant := []string{"main.go", "vendored/ok.go", "web/app.js"}

	vibFiles := map[string]string{
		".viberagignore":     "# generated code\n*.gen.go\n!keep.gen.go\ndocs/\r\n",
		"a.go":               "package a",
		"x.gen.go":           "package a",
		"keep.gen.go":        "package a",
		"docs/a.md":          "a",
		"docs/b.md":          "b",
		"local.txt":          "top",
		"sub/.viberagignore": "local.txt\n",
		"sub/local.txt":      "x",
		"sub/other.txt":      "x",
	}
	vibWant := []string{".viberagignore", "a.go", "keep.gen.go", "local.txt", "sub/.viberagignore", "sub/other.txt"}
	vibSkips := map[string]string{"x.gen.go": SkipViberagignore, "docs": SkipViberagignore, "sub/local.txt": SkipViberagignore}

	binFiles := map[string]string{
		"logo.png": "png", "A.JPG": "jpg", "font.woff2": "f", "lib.so": "so", "app.exe": "mz",
		"x.o": "o", "data.sqlite": "db", "Main.class": "c", "m.wasm": "w", "doc.pdf": "p", "a.zip": "z",
		"app.min.js": "x", "style.min.css": "x", "app.js.map": "{}",
		"icon.svg": "<svg/>", "main.go": "package main", "Makefile": "all:",
	}
	binSkips := map[string]string{
		"logo.png": SkipBinaryExt, "A.JPG": SkipBinaryExt, "font.woff2": SkipBinaryExt, "lib.so": SkipBinaryExt,
		"app.exe": SkipBinaryExt, "x.o": SkipBinaryExt, "data.sqlite": SkipBinaryExt, "Main.class": SkipBinaryExt,
		"m.wasm": SkipBinaryExt, "doc.pdf": SkipBinaryExt, "a.zip": SkipBinaryExt,
		"app.min.js": SkipMinified, "style.min.css": SkipMinified, "app.js.map": SkipSourceMap,
	}

	symlinkSetup := func(t *testing.T, dir, outside string) {
		symlink(t, "loop2", filepath.Join(dir, "loop1"))
		symlink(t, "loop1", filepath.Join(dir, "loop2"))
		symlink(t, "self", filepath.Join(dir, "self"))
		symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(dir, "escape.txt"))
		symlink(t, "../outside/d", filepath.Join(dir, "escapedir"))
		symlink(t, "real", filepath.Join(dir, "linkdir"))
		symlink(t, "..", filepath.Join(dir, "real", "up")) // a cycle if followed
		symlink(t, "real/a.go", filepath.Join(dir, "alias.go"))
		symlink(t, ".env", filepath.Join(dir, "notes.txt"))
		symlink(t, "nope", filepath.Join(dir, "dangling"))
	}
	symlinkFiles := map[string]string{"real/a.go": "package real", ".env": "K=v", "main.go": "package main"}
	symlinkWant := []string{"main.go", "real/a.go"}
	symlinkSkips := map[string]string{
		"loop1": SkipSymlinkLoop, "loop2": SkipSymlinkLoop, "self": SkipSymlinkLoop,
		"escape.txt": SkipSymlinkOutside, "escapedir": SkipSymlinkOutside,
		"linkdir": SkipSymlinkDir, "real/up": SkipSymlinkDir,
		"alias.go": SkipSymlink, "notes.txt": SkipSymlink, ".env": SkipSecret,
		"dangling": SkipUnreadable,
	}

	big := strings.Repeat("x", DefaultMaxFileSize+1)
	exact := strings.Repeat("x", DefaultMaxFileSize)

	cases := []selectCase{
		{
			name: "git tracked, untracked and ignored",
			git:  true,
			files: map[string]string{
				".gitignore": "*.log\nout/\n", "a.go": "package a", "gone.go": "package a",
				"debug.log": "log", "out/x.go": "package out",
			},
			commit: []string{".gitignore", "a.go", "gone.go"},
			afterCommit: func(t *testing.T, dir string) {
				testkit.WriteFiles(t, dir, map[string]string{"b.go": "package a", "new/c.go": "package c"})
				// Tracked but deleted: not a file, not a skip.
				if err := os.Remove(filepath.Join(dir, "gone.go")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{".gitignore", "a.go", "b.go", "new/c.go"},
		},
		{
			name: "git tracked file that is gitignored is still listed",
			git:  true,
			files: map[string]string{
				".gitignore": "*.gen\n", "forced.gen": "x", "other.gen": "x",
			},
			commit: []string{".gitignore", "forced.gen"},
			want:   []string{".gitignore", "forced.gen"},
		},
		{
			name: "git root is a subdirectory",
			git:  true,
			files: map[string]string{
				".gitignore": "ignored.txt\n", "top.go": "package top",
				"sub/a.go": "package sub", "sub/inner/b.go": "package inner",
				"sub/.gitignore": "*.tmp\n", "sub/x.tmp": "t", "sub/ignored.txt": "i",
				"subway/c.go": "package subway",
			},
			afterCommit: func(t *testing.T, dir string) {
				testkit.WriteFiles(t, dir, map[string]string{"sub/untracked.go": "package sub", "sub/y.tmp": "t"})
			},
			sub:  "sub",
			want: []string{".gitignore", "a.go", "inner/b.go", "untracked.go"},
		},
		{
			name: "git nested repository",
			git:  true,
			files: map[string]string{
				"a.go": "package a",
			},
			afterCommit: func(t *testing.T, dir string) {
				testkit.WriteFiles(t, dir, map[string]string{"nested/n.go": "package n"})
				testkit.Git(t, filepath.Join(dir, "nested"), "init", "-q")
			},
			want:    []string{"a.go"},
			skipped: map[string]string{"nested": SkipSubmodule},
		},
		{
			name: "walk nested gitignore with negation, anchoring and dir-only",
			files: map[string]string{
				".gitignore":         "# comment\n*.log\n!keep.log\n/anchored.txt\ngen/\n",
				"a.log":              "x",
				"keep.log":           "x",
				"anchored.txt":       "x",
				"other/anchored.txt": "x",
				"gen/x.go":           "package gen",
				"deep/gen":           "a file, not a directory",
				"deep/.gitignore":    "!b.log\n*.txt\n",
				"deep/b.log":         "x",
				"deep/c.log":         "x",
				"deep/n.txt":         "x",
				"other/n.txt":        "x",
			},
			want: []string{".gitignore", "keep.log", "other/anchored.txt", "other/n.txt",
				"deep/.gitignore", "deep/gen", "deep/b.log"},
		},
		{
			name:    "viberagignore, git",
			git:     true,
			files:   vibFiles,
			want:    vibWant,
			skipped: vibSkips,
		},
		{
			name:    "viberagignore, walk",
			files:   vibFiles,
			want:    vibWant,
			skipped: vibSkips,
		},
		{
			name: "include and exclude",
			files: map[string]string{
				"main.go": "package main", "pkg/a.go": "package pkg", "pkg/a_test.go": "package pkg",
				"README.md": "r", "docs/guide.md": "g", "gen/x.go": "package gen", "pkg/gen/y.go": "package gen",
				"internal/skip/z.go": "package skip", "internal/keep.go": "package internal",
				"tools/Makefile": "all:", "tools/run.sh": "echo",
			},
			opts: func(string) SelectOptions {
				return SelectOptions{
					Include: []string{"**/*.go", "docs", "Makefile"},
					Exclude: []string{"**/*_test.go", "gen", "internal/skip/**"},
				}
			},
			want: []string{"main.go", "pkg/a.go", "docs/guide.md", "internal/keep.go", "tools/Makefile"},
			skipped: map[string]string{
				"pkg/a_test.go": SkipExcluded, // exclude wins over include
				"gen":           SkipExcluded, "pkg/gen": SkipExcluded, "internal/skip": SkipExcluded,
				"README.md": SkipNotIncluded, "tools/run.sh": SkipNotIncluded,
			},
		},
		{
			name: "exclude by base name and path in git mode",
			git:  true,
			files: map[string]string{
				"a.go": "package a", "b.pb.go": "package a", "x/c.pb.go": "package x", "x/d.go": "package x",
				"y/d.go": "package y",
			},
			opts: func(string) SelectOptions {
				return SelectOptions{Exclude: []string{"*.pb.go", "y/**/*.go"}}
			},
			want:    []string{"a.go", "x/d.go"},
			skipped: map[string]string{"b.pb.go": SkipExcluded, "x/c.pb.go": SkipExcluded, "y/d.go": SkipExcluded},
		},
		{
			name:    "always-skipped directories, walk",
			files:   alwaysFiles,
			want:    alwaysWant,
			skipped: alwaysSkips,
		},
		{
			name:    "always-skipped directories, git (tracked)",
			git:     true,
			files:   alwaysFiles,
			want:    alwaysWant,
			skipped: alwaysSkips,
		},
		{
			name:    "lock files",
			git:     true,
			files:   lockFiles,
			want:    []string{"main.go", "package.json", "go.mod"},
			skipped: lockSkips,
		},
		{
			name:    "secrets",
			files:   secretFiles,
			want:    []string{"app.go", "credentials.go", "environment.go", "keys.go", "secret_store.go"},
			skipped: secretSkips,
		},
		{
			name:  "secrets with IndexSecrets",
			files: secretFiles,
			opts:  func(string) SelectOptions { return SelectOptions{IndexSecrets: true} },
			want:  slices.Collect(maps.Keys(secretFiles)),
		},
		{
			name:    "max size default",
			files:   map[string]string{"small.txt": "hello", "exact.txt": exact, "big.txt": big},
			want:    []string{"small.txt", "exact.txt"},
			skipped: map[string]string{"big.txt": SkipTooLarge},
		},
		{
			name:    "max size override",
			files:   map[string]string{"small.txt": "hello", "mid.txt": strings.Repeat("x", 200), "big.txt": big},
			opts:    func(string) SelectOptions { return SelectOptions{MaxFileSize: 100} },
			want:    []string{"small.txt"},
			skipped: map[string]string{"big.txt": SkipTooLarge, "mid.txt": SkipTooLarge},
		},
		{
			name:    "binary extensions, minified, source maps",
			files:   binFiles,
			want:    []string{"icon.svg", "main.go", "Makefile"},
			skipped: binSkips,
		},
		{
			name:    "symlinks, walk",
			files:   symlinkFiles,
			setup:   symlinkSetup,
			want:    symlinkWant,
			skipped: symlinkSkips,
		},
		{
			name:    "symlinks, git",
			git:     true,
			files:   symlinkFiles,
			setup:   symlinkSetup,
			want:    symlinkWant,
			skipped: symlinkSkips,
		},
		{
			name:  "data dir inside root, walk",
			files: map[string]string{"a.go": "package a", ".viberag/index.db": "x", ".viberag/meta.json": "{}"},
			opts: func(dir string) SelectOptions {
				return SelectOptions{DataDir: filepath.Join(dir, ".viberag")}
			},
			want:    []string{"a.go"},
			skipped: map[string]string{".viberag": SkipAlwaysDir},
		},
		{
			name:  "data dir inside root, git",
			git:   true,
			files: map[string]string{"a.go": "package a", "data/idx/meta.json": "{}", "data/keep.go": "package data"},
			opts: func(dir string) SelectOptions {
				return SelectOptions{DataDir: filepath.Join(dir, "data", "idx")}
			},
			want:    []string{"a.go", "data/keep.go"},
			skipped: map[string]string{"data/idx": SkipAlwaysDir},
		},
		{
			name:  "data dir outside root",
			files: map[string]string{"a.go": "package a", "idx/meta.json": "{}"},
			opts: func(dir string) SelectOptions {
				return SelectOptions{DataDir: filepath.Join(filepath.Dir(dir), "idx")}
			},
			want: []string{"a.go", "idx/meta.json"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runSelectCase(t, tc) })
	}
}

// TestSelectWithoutGit: with git off the PATH, a repository is walked:
// .gitignore still applies and .git is an always-skipped directory.
func TestSelectWithoutGit(t *testing.T) {
	base := t.TempDir()
	hermeticGit(t, base)
	dir := filepath.Join(base, "repo")
	testkit.WriteFiles(t, dir, map[string]string{".gitignore": "*.log\n", "a.go": "package a", "x.log": "x"})
	testkit.Git(t, dir, "init", "-q")
	t.Setenv("PATH", t.TempDir())
	sel, err := Select(context.Background(), dir, SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSelection(t, sel, dir, selectCase{
		want:    []string{".gitignore", "a.go"},
		skipped: map[string]string{".git": SkipAlwaysDir},
		wantGit: ptr(false),
	})
}

func TestSelectSkipDetails(t *testing.T) {
	base := t.TempDir()
	hermeticGit(t, base)
	testkit.WriteFiles(t, base, map[string]string{
		"big.txt": strings.Repeat("x", 101), "gen/a.go": "package gen", "b_test.go": "package b",
		"node_modules/x.js": "x",
	})
	sel, err := Select(context.Background(), base, SelectOptions{MaxFileSize: 100, Exclude: []string{"gen", "*_test.go"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Skipped{
		{"b_test.go", SkipExcluded, `pattern "*_test.go"`},
		{"big.txt", SkipTooLarge, "101 bytes is over the limit 100"},
		{"gen", SkipExcluded, `directory, pattern "gen"`},
		{"node_modules", SkipAlwaysDir, "directory"},
	}
	if !slices.Equal(sel.Skipped, want) {
		t.Errorf("Skipped = %q, want %q", sel.Skipped, want)
	}
}

func TestSelectOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		opts    SelectOptions
		wantErr string // "" = valid
		bad     bool   // errors.Is(err, doublestar.ErrBadPattern)
	}{
		{SelectOptions{}, "", false},
		{SelectOptions{Include: []string{"**/*.go", "{a,b}/*"}, Exclude: []string{"x/**"}, MaxFileSize: MaxMaxFileSize}, "", false},
		{SelectOptions{Include: []string{"a["}}, `include: invalid pattern "a["`, true},
		{SelectOptions{Exclude: []string{"ok/**", "b[", "c["}}, `exclude: invalid pattern "b["`, true},
		{SelectOptions{Exclude: []string{"{a,b"}}, `exclude: invalid pattern "{a,b"`, true},
		{SelectOptions{Include: []string{""}}, "include: empty pattern", false},
		{SelectOptions{MaxFileSize: 20 << 20}, "max_file_size: 20971520 is over the limit 10485760", false},
		{SelectOptions{MaxFileSize: -1}, "max_file_size: -1 is negative", false},
	} {
		err := tc.opts.Validate()
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("Validate(%+v) = %v, want nil", tc.opts, err)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
			t.Errorf("Validate(%+v) = %v, want prefix %q", tc.opts, err, tc.wantErr)
			continue
		}
		if errors.Is(err, doublestar.ErrBadPattern) != tc.bad {
			t.Errorf("Validate(%+v) = %v: errors.Is(ErrBadPattern) = %v", tc.opts, err, !tc.bad)
		}
		// Select validates before touching the disk: the root does not exist.
		_, serr := Select(context.Background(), filepath.Join(t.TempDir(), "missing"), tc.opts)
		if serr == nil || !strings.Contains(serr.Error(), tc.wantErr) {
			t.Errorf("Select with %+v = %v, want it to contain %q", tc.opts, serr, tc.wantErr)
		}
	}
}

// TestSelectUnreadableIgnoreFile: a directory whose .viberagignore cannot
// be read is skipped whole (indexing it could expose what the file hides);
// at the root the selection fails instead.
func TestSelectUnreadableIgnoreFile(t *testing.T) {
	base := t.TempDir()
	hermeticGit(t, base)
	testkit.WriteFiles(t, base, map[string]string{"a.go": "package a", "odd/b.go": "package b", "odd/.viberagignore/x": "x"})
	sel, err := Select(context.Background(), base, SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSelection(t, sel, base, selectCase{
		want:    []string{"a.go"},
		skipped: map[string]string{"odd": SkipUnreadable},
	})
	if err := os.Mkdir(filepath.Join(base, viberagignoreName), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Select(context.Background(), base, SelectOptions{}); err == nil || !strings.Contains(err.Error(), viberagignoreName) {
		t.Errorf("Select with an unreadable root .viberagignore = %v, want an error naming it", err)
	}
}

func TestSelectBadRoot(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "file.txt")
	testkit.WriteFiles(t, base, map[string]string{"file.txt": "x"})
	missing := filepath.Join(base, "missing")
	for _, tc := range []struct{ root, want string }{
		{missing, missing},
		{file, file + " is not a directory"},
	} {
		_, err := Select(context.Background(), tc.root, SelectOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Select(%s) = %v, want it to contain %q", tc.root, err, tc.want)
		}
	}
}

func TestSelectCancelled(t *testing.T) {
	base := t.TempDir()
	hermeticGit(t, base)
	testkit.WriteFiles(t, base, map[string]string{"a.go": "package a"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, path := range []string{os.Getenv("PATH"), t.TempDir()} { // with git, then walk
		t.Setenv("PATH", path)
		if _, err := Select(ctx, base, SelectOptions{}); !errors.Is(err, context.Canceled) {
			t.Errorf("PATH=%s: Select(cancelled) = %v, want context.Canceled", path, err)
		}
	}
}

// TestSelectRootSymlink: a root reached through a symlink is resolved, so
// links inside it are judged against the real tree.
func TestSelectRootSymlink(t *testing.T) {
	base := t.TempDir()
	hermeticGit(t, base)
	real := filepath.Join(base, "real")
	testkit.WriteFiles(t, real, map[string]string{"a.go": "package a"})
	symlink(t, "a.go", filepath.Join(real, "b.go"))
	link := filepath.Join(base, "link")
	symlink(t, real, link)
	sel, err := Select(context.Background(), link, SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkSelection(t, sel, link, selectCase{
		want:    []string{"a.go"},
		skipped: map[string]string{"b.go": SkipSymlink},
	})
}

func TestCheckContent(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want string
	}{
		{"empty", "", ""},
		{"text", "package main\n", ""},
		{"utf8", "héllo, 世界 🙂", ""},
		{"bom", "\ufeffhello", ""},
		{"nul", "abc\x00def", SkipBinary},
		{"utf16 without a mark", "h\x00i\x00", SkipBinary},
		{"nul at 8KiB-1", strings.Repeat("a", 8<<10-1) + "\x00", SkipBinary},
		// Past the first 8 KiB a NUL is not looked for, and NUL is valid UTF-8.
		{"nul after 8KiB", strings.Repeat("a", 8<<10) + "\x00", ""},
		{"invalid utf8", "abc\xff\xfe", SkipInvalidUTF8},
		{"truncated rune", "abc\xe4\xb8", SkipInvalidUTF8},
		{"latin1", "caf\xe9", SkipInvalidUTF8},
	} {
		if got := CheckContent("f.txt", []byte(tc.data)); got != tc.want {
			t.Errorf("%s: CheckContent = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSkipCounts(t *testing.T) {
	got := SkipCounts([]Skipped{
		{"a", SkipSecret, ""}, {"b", SkipSecret, ""}, {"c", SkipAlwaysDir, "directory"},
	})
	want := map[string]int{SkipSecret: 2, SkipAlwaysDir: 1}
	if !maps.Equal(got, want) {
		t.Errorf("SkipCounts = %v, want %v", got, want)
	}
	if n := len(SkipCounts(nil)); n != 0 {
		t.Errorf("SkipCounts(nil) has %d entries", n)
	}
}
