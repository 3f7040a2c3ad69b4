package main

import "golang.org/x/sys/unix"

// threadCPU is the CPU time the calling OS thread has used, in
// milliseconds, and whether the platform can tell. eval measures a query's
// CPU beside its wall time: on a machine shared with other work the wall
// time grows with the load, the CPU a query needs does not.
func threadCPU() (float64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return float64(ts.Nano()) / 1e6, true
}
