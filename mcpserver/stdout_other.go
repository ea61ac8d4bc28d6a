//go:build !unix

package mcpserver

import "os"

// GuardStdout returns the protocol's writer and points os.Stdout at stderr so
// that stray prints from Go code cannot corrupt the stream. (On this platform
// the process's standard output handle itself is not redirected.)
func GuardStdout() (*os.File, error) {
	proto := os.Stdout
	os.Stdout = os.Stderr
	return proto, nil
}
