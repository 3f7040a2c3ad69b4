package tables

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/viberag/viberag/extract"
	"github.com/viberag/viberag/tables/fulltext"
)

// crashEnv names the index the helper process writes to.
const crashEnv = "VIBERAG_TABLES_CRASH_DB"

const crashFiles = 12

// crashBatch is generation gen of the files the helper writes: every file
// carries gen in its texts and has a gen-dependent number of symbols, and
// odd generations delete the last file.
func crashBatch(gen int) (files []*extract.File, deleted []string) {
	for i := range crashFiles {
		p := fmt.Sprintf("pkg%d/file%d.go", i%3, i)
		if i == crashFiles-1 && gen%2 == 1 {
			deleted = append(deleted, p)
			continue
		}
		files = append(files, synthFile(p, gen, 2+(gen+i)%5))
	}
	return files, deleted
}

// TestHelperProcess is the child of TestCrash: it writes generation after
// generation into the index until it is killed, printing each generation
// once committed.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("helper process for TestCrash")
	}
	ctx := context.Background()
	db, err := Open(ctx, path, OpenOptions{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	start, _ := strconv.Atoi(os.Getenv(crashEnv + "_GEN"))
	for gen := start; ; gen++ {
		files, deleted := crashBatch(gen)
		if err := db.Writer().Write(ctx, files, deleted); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("committed", gen)
	}
}

// TestCrash kills a writing process with SIGKILL at random moments and
// checks that each time the index reopens intact, holding exactly the
// last committed generation or the one in flight (a whole batch or none
// of it), never a mix.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "index.db")
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	gen := 1
	for round := range 4 {
		committed := runAndKill(t, path, gen, rng)
		t.Logf("round %d: killed after generation %d", round, committed)

		db, err := Open(context.Background(), path, OpenOptions{})
		if err != nil {
			t.Fatalf("reopen after kill: %v", err)
		}
		checkIntegrity(t, db)
		got := checkGeneration(t, db)
		// A committed batch survives a process crash (its WAL frames are
		// written before commit returns); the batch in flight may or may
		// not have committed.
		if got != committed && got != committed+1 {
			t.Errorf("index holds generation %d, last reported commit %d", got, committed)
		}
		db.Close()
		gen = got + 1
	}
}

// runAndKill starts the helper writing from generation gen, lets it
// commit a few batches, kills it mid-write and returns the last
// generation it reported committed.
func runAndKill(t *testing.T, path string, gen int, rng *rand.Rand) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), crashEnv+"="+path, crashEnv+"_GEN="+strconv.Itoa(gen))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()

	last := gen - 1
	want := 2 + rng.IntN(4) // batches to see before killing
	for seen := 0; seen < want; {
		line, ok := <-lines
		if !ok {
			cmd.Wait()
			t.Fatalf("helper exited early")
		}
		if strings.HasPrefix(line, "error") {
			t.Fatalf("helper: %s", line)
		}
		if n, ok := strings.CutPrefix(line, "committed "); ok {
			last, _ = strconv.Atoi(n)
			seen++
		}
	}
	// Let the next batch get somewhere before the kill.
	time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for line := range lines { // commits reported before the kill landed
		if n, ok := strings.CutPrefix(line, "committed "); ok {
			last, _ = strconv.Atoi(n)
		}
	}
	cmd.Wait()
	return last
}

// checkGeneration checks that every row of the index belongs to one
// generation, with exactly the rows crashBatch produces for it, and
// returns that generation.
func checkGeneration(t *testing.T, db *DB) int {
	t.Helper()
	docs := queryStrings(t, db, `SELECT DISTINCT doc FROM files`)
	if len(docs) != 1 {
		t.Fatalf("files from several generations: %q", docs)
	}
	var gen int
	if _, err := fmt.Sscanf(docs[0], "Package synth is generation %d.", &gen); err != nil {
		t.Fatalf("file doc %q: %v", docs[0], err)
	}
	files, _ := crashBatch(gen)
	var wantSyms, wantChunks, wantRefs int64
	for _, f := range files {
		wantSyms += int64(len(f.Symbols))
		wantChunks += int64(len(f.Chunks))
		wantRefs += int64(rowCount(f) - 1 - len(f.Symbols) - len(f.Chunks))
	}
	c, err := db.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.Files != int64(len(files)) || c.Symbols != wantSyms || c.Chunks != wantChunks || c.Refs != wantRefs {
		t.Errorf("generation %d: counts %+v, want files %d symbols %d chunks %d refs %d",
			gen, c, len(files), wantSyms, wantChunks, wantRefs)
	}
	ids := queryInts(t, db, `SELECT id FROM symbols`)
	decls, err := db.Reader().SymbolDecls(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	suffix := fmt.Sprintf("generation %d.", gen)
	other := len(ids) - len(decls)
	for _, d := range decls {
		if !strings.HasSuffix(d.Doc, suffix) {
			other++
		}
	}
	if other != 0 {
		t.Errorf("%d symbols from another generation", other)
	}
	if n := int64(len(wordMatchIDs(t, db, symbolWords, in("doc", fulltext.Term(fmt.Sprintf("generation %d", gen)))))); n != wantSyms {
		t.Errorf("the symbols' word index finds %d symbols of generation %d, want %d", n, gen, wantSyms)
	}
	return gen
}
