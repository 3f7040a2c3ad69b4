package indexer

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/tables"
)

func TestMain(m *testing.M) {
	testkit.Main(m, map[string]testkit.Role{"index": indexRole})
}

// indexRole indexes the tree args[0] into the data directory args[1]
// with one worker, printing "done N" as files are done: the process
// TestInterruptedIndex kills.
func indexRole(args []string) error {
	ctx := context.Background()
	db, err := tables.Open(ctx, filepath.Join(args[1], IndexFile), tables.OpenOptions{})
	if err != nil {
		return err
	}
	_, err = Run(ctx, db, args[0], Options{Workers: 1, Progress: func(p Progress) {
		fmt.Printf("done %d\n", p.Done)
	}})
	return err
}
