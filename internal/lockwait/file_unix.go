//go:build unix

package lockwait

import "syscall"

// noFollow makes an open fail on a symbolic link at the path's end.
const noFollow = syscall.O_NOFOLLOW
