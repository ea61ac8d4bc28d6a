//go:build unix

package main

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// strayPrints prints to os.Stdout and to file descriptor 1: ctx mcp calls it
// right after guarding stdout when it is this test binary started with
// CTX_TEST_STRAY_PRINTS=1 (TestMain; TestRealBinaryOverStdio), to prove
// that such prints miss the protocol stream and land on stderr.
func strayPrints() {
	fmt.Println("ctx: stray print to os.Stdout")
	_, _ = unix.Write(1, []byte("ctx: stray write to fd 1\n"))
}
