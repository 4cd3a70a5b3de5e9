package session

import "sync"

// table holds one copy of each distinct string and numbers them, so that a
// frozen session (frozen.go) names a string by a small code. Its backing
// array never moves: a code's string is read without the lock (whoever
// holds a code got it after the string was stored).
type table struct {
	mu  sync.Mutex
	m   map[string]uint16
	n   int      // codes handed out, "" (code 0) included
	all []string // all[code], fixed length: the table's room
}

// code returns s's code, adding s while there is room.
func (t *table) code(s string) (uint16, bool) {
	if s == "" {
		return 0, true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.m[s]; ok {
		return c, true
	}
	if t.m == nil {
		t.m = make(map[string]uint16)
		t.n = 1
	}
	if t.n >= len(t.all) {
		return 0, false
	}
	c := uint16(t.n)
	t.m[s] = c
	t.all[c] = s
	t.n++
	return c, true
}

// str is the string with code c.
func (t *table) str(c uint16) string { return t.all[c] }

// interned holds one copy of each distinct Cwd and AgentVersion (and, for
// the relay, log directory): every session's own copy came out of its log
// line, yet thousands of sessions share a few projects and agent versions.
// Bounded, so a stream of distinct values costs at most maxInterned
// entries of at most maxInternLen bytes.
var (
	interned    = table{all: internedAll[:]}
	internedAll [maxInterned]string // untouched pages cost no memory
)

const (
	maxInterned  = 4096
	maxInternLen = 512
)

// intern returns the shared copy of s, or s itself.
func intern(s string) string {
	if c, ok := Intern(s); ok {
		return interned.str(c)
	}
	return s
}

// Intern is the code of the shared copy of s (0 for ""), false when s is
// too long or the table is full.
func Intern(s string) (uint16, bool) {
	if len(s) > maxInternLen {
		return 0, false
	}
	return interned.code(s)
}

// Interned is the string Intern gave code c.
func Interned(c uint16) string { return interned.str(c) }
