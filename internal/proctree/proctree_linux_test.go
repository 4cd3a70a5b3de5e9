package proctree

import (
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	tail := " S 42 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 139066 1000 10 18446744073709551615"
	for _, c := range []struct {
		name, in string
		ppid     int
		start    uint64
		zombie   bool
		bad      bool
	}{
		{"plain", "7 (claude)" + tail, 42, 139066, false, false},
		{"comm with spaces and parens", "7 (a) b (c))" + tail, 42, 139066, false, false},
		{"zombie", "7 (x) Z" + strings.TrimPrefix(tail, " S"), 42, 139066, true, false},
		{"no comm", "7 claude S 42", 0, 0, false, true},
		{"short", "7 (x) S 42 1", 0, 0, false, true},
		{"bad ppid", "7 (x) S x" + strings.TrimPrefix(tail, " S 42"), 0, 0, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := parseStat([]byte(c.in))
			if (err != nil) != c.bad {
				t.Fatalf("parseStat err = %v, want bad %v", err, c.bad)
			}
			if !c.bad && (st.ppid != c.ppid || st.start != c.start || st.zombie != c.zombie) {
				t.Errorf("parseStat = %+v, want ppid %d start %d zombie %v", st, c.ppid, c.start, c.zombie)
			}
		})
	}
}
