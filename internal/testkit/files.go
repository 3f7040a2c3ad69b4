package testkit

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// Root is the root of the module the tests run in: the nearest directory
// above the working directory (a package's, under go test) that holds
// go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", dir)
		}
	}
}

// FixtureDir is the directory of the fixture repository fixtures/<name>
// (all of fixtures/ when name is ""), to be read, not written: Fixture
// gives a copy to change.
func FixtureDir(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join(Root(t), "fixtures", name)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("no fixture %q: %v", name, err)
	}
	return dir
}

// Fixture copies fixtures/<name> (all of fixtures/ when name is "") into
// a fresh temporary directory and
// returns its real path (symbolic links resolved, as the indexer records
// a root).
func Fixture(t testing.TB, name string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(FixtureDir(t, name))); err != nil {
		t.Fatalf("copy fixture %s: %v", name, err)
	}
	real, err := filepath.EvalSymlinks(dst)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// WriteFiles writes files (slash-separated path → content) under root,
// making the directories they need.
func WriteFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		WriteFile(t, filepath.Join(root, filepath.FromSlash(p)), content)
	}
}

// WriteFile writes content to path, making the directories it needs.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ReadTree reads every regular file under root: slash-separated path
// relative to root → content.
func ReadTree(t testing.TB, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Git runs git with args in dir, with a fixed identity and away from the
// machine's configuration, and fails the test when it fails. The test is
// skipped, saying so, where git is not installed.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	full := append([]string{"-C", dir,
		"-c", "user.name=viberag test", "-c", "user.email=test@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false",
		"-c", "core.autocrlf=false"}, args...)
	cmd := exec.Command("git", full...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_SYSTEM="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// UTF16LE encodes s as UTF-16, little-endian, after its byte order mark:
// how Visual Studio and Windows editors save C# and resource files.
func UTF16LE(s string) string {
	b := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return string(b)
}
