//go:build unix

package surveyprompt

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// readableWithin reports whether fd has input to read within d (a key's
// bytes still on their way); false when it has none, is at its end, or
// cannot be polled.
func readableWithin(fd uintptr, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		left := time.Until(deadline)
		if left < 0 {
			left = 0
		}
		n, err := unix.Poll(fds, int(left.Milliseconds()))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n > 0 && fds[0].Revents&unix.POLLIN != 0
	}
}
