package extract

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"testing"
)

// TestDumpList prints, for each path listed in the file $DUMP_LIST, its
// parse status, problem and symbol count: a debugging aid for comparing
// two builds of the readers over a corpus.
func TestDumpList(t *testing.T) {
	list := os.Getenv("DUMP_LIST")
	if list == "" {
		t.Skip("set DUMP_LIST=file of paths")
	}
	f, err := os.Open(list)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := sc.Text()
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		x, err := Extract(context.Background(), p, src, Options{})
		if err != nil {
			fmt.Printf("%s\terror\t%v\t0\n", p, err)
			continue
		}
		fmt.Printf("%s\t%s\t%s\t%d\n", p, x.ParseStatus, x.ParseProblem, len(x.Symbols))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
