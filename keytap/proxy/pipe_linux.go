package proxy

import "golang.org/x/sys/unix"

// nonblockPipe returns a close-on-exec, non-blocking pipe in one call.
func nonblockPipe() (r, w int, err error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return -1, -1, err
	}
	return p[0], p[1], nil
}
