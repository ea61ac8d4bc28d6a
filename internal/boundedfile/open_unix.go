//go:build unix

package boundedfile

import (
	"errors"
	"os"
	"syscall"
)

// NonBlock is the open flag with which an open of a fifo does not wait
// for the other end (a regular file ignores it): for a caller that opens
// a file of a shared folder for writing (then checks it is regular).
const NonBlock = syscall.O_NONBLOCK

// noFollowOpen: the open itself refuses a link (O_NOFOLLOW).
const noFollowOpen = true

func openFlags(path string, noFollow bool) (*os.File, error) {
	flag := os.O_RDONLY | syscall.O_NONBLOCK
	if noFollow {
		flag |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(path, flag, 0)
}

// isLoop: O_NOFOLLOW's answer for a link.
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
