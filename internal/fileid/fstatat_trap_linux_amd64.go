//go:build linux

package fileid

import "golang.org/x/sys/unix"

// fstatatTrap is fstatat's system call, the one unix.Fstatat makes here.
const fstatatTrap = unix.SYS_NEWFSTATAT
