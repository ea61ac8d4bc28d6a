//go:build !unix

package mcpserver

import (
	"fmt"
	"os"
)

// GuardStdout returns the protocol's writer and points os.Stdout at stderr so
// that stray prints from Go code cannot corrupt the stream. (On this platform
// the process's standard output handle itself is not redirected.)
func GuardStdout() (*os.File, error) {
	proto := os.Stdout
	os.Stdout = os.Stderr
	if os.Getenv("CTX_MCP_TEST_STRAY_STDOUT") != "" {
		fmt.Println("ctx: stray print to os.Stdout")
		fmt.Fprintln(os.Stderr, "ctx: stray write to fd 1 (not redirected on this platform)")
	}
	return proto, nil
}
