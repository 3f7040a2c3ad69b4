//go:build unix

package fileset

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/viberag/viberag/internal/testkit"
)

// readWithin runs ReadRegular and fails the test if it has not returned
// long after any read of a small file would have: the failure this guards
// against is a read that never returns.
func readWithin(t testing.TB, path string, max int64) ([]byte, error) {
	t.Helper()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		d, err := ReadRegular(context.Background(), path, max)
		done <- result{d, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-time.After(20 * time.Second):
		t.Fatalf("ReadRegular(%s) still blocked after 20 s", path)
		return nil, nil
	}
}

// TestReadRegular: regular files are read; anything a listed path may
// have become since (a FIFO, a link, a directory, a device, a bigger
// file) is refused with its reason and never blocks.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		testkit.WriteFile(t, p, s)
		return p
	}
	reg := write("a.go", "package a\n")
	big := write("big.txt", string(bytes.Repeat([]byte("x"), 2000)))
	fifo := filepath.Join(dir, "pipe")
	testkit.FIFO(t, fifo)
	link := filepath.Join(dir, "link.go")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		max        int64
		want       string // content, or "" when a skip is expected
		reason     string
		notExist   bool
	}{
		{name: "regular", path: reg, max: 100, want: "package a\n"},
		{name: "no limit", path: big, max: 0, want: string(bytes.Repeat([]byte("x"), 2000))},
		{name: "at the limit", path: reg, max: 10, want: "package a\n"},
		{name: "over the limit", path: big, max: 1999, reason: SkipTooLarge},
		{name: "fifo without writer", path: fifo, max: 100, reason: SkipNotRegular},
		{name: "symbolic link", path: link, max: 100, reason: SkipNotRegular},
		{name: "directory", path: dir, max: 100, reason: SkipNotRegular},
		{name: "device", path: "/dev/null", max: 100, reason: SkipNotRegular},
		{name: "missing", path: filepath.Join(dir, "gone.go"), max: 100, notExist: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := readWithin(t, tc.path, tc.max)
			var skip *SkipError
			switch {
			case tc.notExist:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("err = %v, want not-exist", err)
				}
			case tc.reason != "":
				if !errors.As(err, &skip) || skip.Reason != tc.reason {
					t.Fatalf("err = %v, want a %s skip", err, tc.reason)
				}
				if data != nil {
					t.Fatalf("read %d bytes of a skipped file", len(data))
				}
			default:
				if err != nil || string(data) != tc.want {
					t.Fatalf("= %q, %v; want %q", data, err, tc.want)
				}
			}
		})
	}
}

// FuzzReadRegular swaps one path between a regular file, a FIFO, a
// symbolic link, a directory and an oversized file, in the order the
// input gives, while ReadRegular reads it over and over. Whatever it
// catches, it must return, and bytes only ever come from a regular file
// within the limit.
func FuzzReadRegular(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0, 3, 0, 4})
	f.Add([]byte{1, 1, 1, 0})
	f.Add([]byte{4, 0, 4, 3, 2, 1})
	f.Fuzz(func(t *testing.T, plan []byte) {
		if len(plan) > 64 {
			plan = plan[:64]
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "f.go")
		small := []byte("package f\n")
		large := bytes.Repeat([]byte("y"), 4096)
		const max = 1024
		// Regular files appear whole (written aside, renamed into place),
		// as editors and git write them, so a read sees all of one.
		regular := func(data []byte) {
			tmp := filepath.Join(dir, "tmp")
			os.WriteFile(tmp, data, 0o644)
			os.RemoveAll(p)
			os.Rename(tmp, p)
		}
		become := func(kind byte) {
			switch kind % 5 {
			case 0:
				regular(small)
				return
			case 4:
				regular(large)
				return
			}
			os.RemoveAll(p)
			switch kind % 5 {
			case 1:
				syscall.Mkfifo(p, 0o644)
			case 2:
				os.Symlink(filepath.Join(dir, "elsewhere"), p)
			case 3:
				os.Mkdir(p, 0o755)
			}
		}
		become(0)
		stop := make(chan struct{})
		swapped := make(chan struct{})
		t.Cleanup(func() { close(stop); <-swapped })
		go func() {
			defer close(swapped)
			for _, k := range plan {
				select {
				case <-stop:
					return
				default:
				}
				become(k)
			}
		}()
		for i := 0; i < 2*len(plan)+1; i++ {
			data, err := readWithin(t, p, max)
			var skip *SkipError
			switch {
			case err == nil:
				if !bytes.Equal(data, small) {
					t.Fatalf("read %d bytes that are not the small regular file", len(data))
				}
			case errors.As(err, &skip):
				if skip.Reason != SkipNotRegular && skip.Reason != SkipTooLarge {
					t.Fatalf("unexpected skip %v", skip)
				}
			}
		}
	})
}
