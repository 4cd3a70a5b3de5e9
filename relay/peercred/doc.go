// Package peercred asks the kernel which uid is at the other end of a unix
// socket: the daemon uses it to refuse other users' clients, and the client
// to refuse a server another user started (a squatted socket).
package peercred

import (
	"os/user"
	"strconv"
)

// Describe names a uid for an error message: "uid 65534 (nobody)".
func Describe(uid int) string {
	s := "uid " + strconv.Itoa(uid)
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		s += " (" + u.Username + ")"
	}
	return s
}
