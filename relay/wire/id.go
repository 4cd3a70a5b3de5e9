package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"unicode/utf8"
)

// MaxID bounds a session id as the daemon holds, publishes and takes it
// back (ack): every pending key, submit and binding holds one, and a
// subscriber's every line.
const MaxID = 1024

// shortHash is how many bytes of the id's SHA-256 its short form keeps
// (128 bits: two long ids never meet by chance).
const shortHash = 16

// BoundID is the id a session is known by: id itself when it is at most
// MaxID bytes, otherwise its short form, its first bytes (cut at a
// character, invalid UTF-8 spelled '?') then "~" and the hex SHA-256 of
// the whole id: valid UTF-8, exactly MaxID bytes or fewer, the same for
// the same id on every event, after a restart and on every host, and
// different for ids that differ anywhere. Both ends of a remote link and
// every feed of the daemon apply it where an id enters, so a short form
// names the session everywhere (ack included); BoundID of a short form is
// itself.
func BoundID(id string) string {
	if len(id) <= MaxID {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	tail := "~" + hex.EncodeToString(sum[:shortHash])
	n := MaxID - len(tail)
	for n > 0 && !utf8.RuneStart(id[n]) {
		n-- // never half a character
	}
	b := make([]byte, 0, MaxID)
	for i := 0; i < n; {
		r, size := utf8.DecodeRuneInString(id[i:n])
		if r == utf8.RuneError && size == 1 {
			b = append(b, '?')
		} else {
			b = append(b, id[i:i+size]...)
		}
		i += size
	}
	return string(append(b, tail...))
}
