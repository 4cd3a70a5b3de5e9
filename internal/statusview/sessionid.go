package statusview

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// minIDLen is the shortest session id prefix the views show: long enough to
// read as an id, and Codex's time-ordered ids get longer ones when needed.
const minIDLen = 8

// ShortIDs gives every id its shortest unique prefix of at least minIDLen
// characters (the whole id when shorter), so what a view shows is what
// `ack --session` accepts.
func ShortIDs(ids []string) map[string]string {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make(map[string]string, len(sorted))
	for i, id := range sorted {
		n := minIDLen
		for _, j := range []int{i - 1, i + 1} { // in sorted order the longest shared prefix is with a neighbour
			if j >= 0 && j < len(sorted) {
				n = max(n, commonPrefix(id, sorted[j])+1)
			}
		}
		out[id] = id[:min(n, len(id))]
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// ErrAmbiguous marks a prefix that names more than one session.
var ErrAmbiguous = errors.New("ambiguous session prefix")

// Resolve finds the session an argument names among ids: the id
// itself, else the only id it prefixes. No match returns arg unchanged (the
// daemon then answers "unknown session"); several are an error listing them.
func Resolve(ids []string, arg string) (string, error) {
	var matches []string
	for _, id := range ids {
		if id == arg {
			return id, nil
		}
		if strings.HasPrefix(id, arg) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return arg, nil
	case 1:
		return matches[0], nil
	}
	slices.Sort(matches)
	return "", fmt.Errorf("%w %q matches %d sessions: %s", ErrAmbiguous, arg, len(matches), strings.Join(matches, ", "))
}
