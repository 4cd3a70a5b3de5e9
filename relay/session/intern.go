package session

import "sync"

// interned holds one copy of each distinct Cwd and AgentVersion: every
// session's own copy came out of its log line, yet thousands of sessions
// share a few projects and agent versions. Bounded, so a stream of
// distinct values costs at most maxInterned entries of at most
// maxInternLen bytes.
var interned struct {
	mu sync.Mutex
	m  map[string]string
}

const (
	maxInterned  = 4096
	maxInternLen = 512
)

// intern returns the shared copy of s, or s itself.
func intern(s string) string {
	if s == "" || len(s) > maxInternLen {
		return s
	}
	interned.mu.Lock()
	defer interned.mu.Unlock()
	if c, ok := interned.m[s]; ok {
		return c
	}
	if interned.m == nil {
		interned.m = make(map[string]string)
	}
	if len(interned.m) < maxInterned {
		interned.m[s] = s
	}
	return s
}
