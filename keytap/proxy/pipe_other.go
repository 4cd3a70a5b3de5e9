//go:build !linux

package proxy

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// nonblockPipe returns a close-on-exec, non-blocking pipe. Without pipe2(2)
// (macOS, the BSDs) the flags are set after the call, under ForkLock so no
// fork in between inherits the descriptors.
func nonblockPipe() (r, w int, err error) {
	var p [2]int
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := unix.Pipe(p[:]); err != nil {
		return -1, -1, err
	}
	for _, fd := range p {
		unix.CloseOnExec(fd)
		if err := unix.SetNonblock(fd, true); err != nil {
			unix.Close(p[0])
			unix.Close(p[1])
			return -1, -1, err
		}
	}
	return p[0], p[1], nil
}
