//go:build unix

package gitengine

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading without waiting for a writer when it
// is a fifo (O_NONBLOCK; a regular file ignores it).
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
