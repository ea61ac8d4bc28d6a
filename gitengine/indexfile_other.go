//go:build !unix

package gitengine

import "os"

// openNoBlock opens path for reading: a system without Unix fifos in its
// file system (Windows' named pipes live under \\.\pipe\) has nothing to
// wait for.
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
