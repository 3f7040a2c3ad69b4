package tables

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Where SQLite's unix VFS takes its POSIX locks: WAL_WRITE_LOCK, the
// writer's, is byte 120 of the -shm file (UNIX_SHM_BASE); a rollback
// journal's writer locks bytes of the database file from PENDING_BYTE
// (1 GiB) to the end of the shared range (512 bytes on).
const (
	shmWriteLockByte = 120
	pendingByte      = 0x40000000
	sharedLastByte   = pendingByte + 2 + 510 - 1
)

// writeLockOwner returns the process holding a write lock on the index
// at path where SQLite's writer locks, 0 when none or unknown. It reads
// /proc/locks rather than asking fcntl(F_GETLK) on a descriptor of its
// own: closing any descriptor of a file drops every POSIX lock the
// process holds on it, SQLite's connections' included.
func writeLockOwner(path string) int {
	shm, db := lockID(path+"-shm"), lockID(path)
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer f.Close()
	var onDB int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "3: POSIX  ADVISORY  WRITE 30837 fe:00:10141819 120 120"; a
		// waiter's line has "->" after the number.
		fs := strings.Fields(sc.Text())
		if len(fs) < 8 || fs[1] == "->" || fs[1] != "POSIX" || fs[3] != "WRITE" {
			continue
		}
		pid, err := strconv.Atoi(fs[4])
		if err != nil || pid <= 0 {
			continue
		}
		start, _ := strconv.ParseInt(fs[6], 10, 64)
		end, err := strconv.ParseInt(fs[7], 10, 64)
		if err != nil {
			end = 1 << 62 // EOF
		}
		switch {
		case shm != "" && fs[5] == shm && start <= shmWriteLockByte && shmWriteLockByte <= end:
			return pid
		case db != "" && fs[5] == db && start <= sharedLastByte && pendingByte <= end:
			onDB = pid
		}
	}
	return onDB
}

// lockID is the file at path as /proc/locks names it
// (major:minor:inode, the device numbers in hex), "" when missing.
func lockID(path string) string {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return ""
	}
	return fmt.Sprintf("%02x:%02x:%d", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)), st.Ino)
}
