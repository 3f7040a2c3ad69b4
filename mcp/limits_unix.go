//go:build unix

package mcp

import "syscall"

// descriptorLimit is the process's limit on open descriptors (the soft
// limit, which Go raises to the hard one at start).
func descriptorLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 1 << 16
	}
	return int(rl.Cur)
}
