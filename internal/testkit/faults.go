package testkit

import (
	"math/rand/v2"
	"os"
	"testing"
)

// Overwrite writes n pseudo-random bytes at offset off of the file at
// path, as a failing disk or a stray write would; the bytes depend on off
// alone, so a failure reproduces.
func Overwrite(t testing.TB, path string, off int64, n int) {
	t.Helper()
	garbage := make([]byte, n)
	r := rand.New(rand.NewPCG(1, uint64(off)))
	for i := range garbage {
		garbage[i] = byte(r.Uint32())
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(garbage, off); err != nil {
		t.Fatal(err)
	}
}

// SQLitePageSize reads the page size from the header of the SQLite file
// at path (bytes 16 and 17, big-endian; 1 means 65536).
func SQLitePageSize(t testing.TB, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [2]byte
	if _, err := f.ReadAt(b[:], 16); err != nil {
		t.Fatal(err)
	}
	n := int64(b[0])<<8 | int64(b[1])
	if n == 1 {
		n = 65536
	}
	return n
}
