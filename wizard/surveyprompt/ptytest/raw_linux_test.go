package ptytest

import "golang.org/x/sys/unix"

const getTermios = unix.TCGETS
