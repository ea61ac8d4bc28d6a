//go:build !unix

package main

import "fmt"

// strayPrints prints to os.Stdout (see mcp_stray_unix_test.go; here the guard
// does not redirect file descriptor 1 itself).
func strayPrints() {
	fmt.Println("ctx: stray print to os.Stdout")
}
