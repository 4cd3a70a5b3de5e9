//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package proxy

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TIOCGETA
