//go:build ctxstraytest && unix

package mcpserver

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// strayPrints prints to os.Stdout and to file descriptor 1 right after
// GuardStdout has guarded them. Only a binary built with -tags ctxstraytest
// has it: TestRealBinaryOverStdio builds one to prove that such prints miss
// the protocol stream and land on stderr.
func strayPrints() {
	fmt.Println("ctx: stray print to os.Stdout")
	_, _ = unix.Write(1, []byte("ctx: stray write to fd 1\n"))
}
