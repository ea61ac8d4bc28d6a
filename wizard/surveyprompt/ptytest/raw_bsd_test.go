//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package ptytest

import "golang.org/x/sys/unix"

const getTermios = unix.TIOCGETA
