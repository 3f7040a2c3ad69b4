package query

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/viberag/viberag/indexer"
	"github.com/viberag/viberag/internal/testkit"
	"github.com/viberag/viberag/internal/testkit/indextest"
)

// BenchmarkRefsGoWarm times find_references on Go methods whose name
// several definitions share (the lookups that type-check) as a server
// answers them: one planner, every lookup asked once before the timer
// (warm), then in turn. The cold sub-benchmark asks each on a new
// planner, as a one-shot `viberag refs` does. The index is
// VIBERAG_BENCH_INDEX (an index.db of a Go repository) when set, else a
// generated module of a few packages. It reports the median lookup
// (p50-ms) and the lookups timed (lookups).
func BenchmarkRefsGoWarm(b *testing.B) {
	path := os.Getenv("VIBERAG_BENCH_INDEX")
	if path == "" {
		root := b.TempDir()
		path = indextest.Path(b.TempDir())
		testkit.WriteFiles(b, root, indextest.GoModule(8, 6))
		indextest.Build(b, root, path, indexer.Options{})
	}
	ctx := context.Background()
	ids := indextest.SharedGoMethods(b, plannerOn(b, path, Options{}).db, 20)
	if len(ids) == 0 {
		b.Skip("no Go method of a shared name in the index")
	}
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			p := plannerOn(b, path, Options{KeepGoChecks: true})
			lookup := func(id string) time.Duration {
				if cold {
					p = plannerOn(b, path, Options{})
				}
				start := time.Now()
				if _, err := p.References(ctx, RefsRequest{ID: id, Limit: MaxRefs}); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			indextest.TimeLookups(b, len(ids), func(i int) time.Duration { return lookup(ids[i]) })
		})
	}
}
