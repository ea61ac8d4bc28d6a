//go:build !unix

package surveyprompt

import "time"

// readableWithin is false where survey does not read keys through
// cancelKeys' Read as bytes (Windows reads console events): no wait.
func readableWithin(fd uintptr, d time.Duration) bool { return false }
