//go:build !unix

package fileset

import "os"

// openNoBlock opens path read-only. Without POSIX open flags a named pipe
// could still block here; Windows has no FIFOs in the file system.
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
