//go:build !linux

package tmux

import "errors"

// SocketOf finds a tmux server's socket from its process on Linux only.
func SocketOf(int) (string, error) {
	return "", errors.New("finding a tmux server's socket from its pid needs Linux's /proc")
}
