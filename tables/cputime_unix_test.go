//go:build unix

package tables

import (
	"syscall"
	"time"
)

// cpuTime is the user+system CPU time of this process so far. Benchmarks
// report throughput per CPU second too, because wall time is meaningless
// on a machine shared with other work.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
