//go:build unix

package mcpserver

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// GuardStdout keeps the protocol stream clean. It duplicates file descriptor
// 1 into a new descriptor for the protocol, then points descriptor 1 and
// os.Stdout at stderr, so that anything else that prints to stdout (a stray
// fmt.Println, a library, a C dependency) lands on stderr instead of
// corrupting the JSON-RPC stream. Call it first, before anything can print.
// It returns the protocol's writer.
func GuardStdout() (*os.File, error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("guarding stdout: dup: %w", err)
	}
	unix.CloseOnExec(fd)
	proto := os.NewFile(uintptr(fd), "/dev/stdout (mcp)")
	if err := unix.Dup2(2, 1); err != nil {
		proto.Close()
		return nil, fmt.Errorf("guarding stdout: dup2: %w", err)
	}
	os.Stdout = os.Stderr
	return proto, nil
}
