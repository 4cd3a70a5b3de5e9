package wire

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// An over-long id's short form: bounded, valid UTF-8, stable, distinct,
// and its own short form; an id within the bound is itself.
func TestBoundID(t *testing.T) {
	long := strings.Repeat("x", 5000)
	for _, c := range []struct {
		name, id string
		same     bool
	}{
		{"a UUID", "0d6f7c9e-2b0e-4a55-8f55-0c1f7a8b9c0d", true},
		{"MaxID bytes exactly", strings.Repeat("m", MaxID), true},
		{"one byte more", strings.Repeat("m", MaxID+1), false},
		{"5000 bytes", long, false},
		{"multi-byte characters across the cut", strings.Repeat("é", 800), false},
		{"invalid UTF-8 in the kept part", "\xff" + long, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := BoundID(c.id)
			if c.same {
				if got != c.id {
					t.Fatalf("changed: %q", got)
				}
				return
			}
			if len(got) > MaxID || !utf8.ValidString(got) {
				t.Fatalf("%d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
			}
			if BoundID(c.id) != got || BoundID(got) != got {
				t.Fatal("not stable, or not its own short form")
			}
			if !strings.HasPrefix(c.id, strings.TrimRight(got[:100], "?")) && c.id[0] != '\xff' {
				t.Fatalf("does not start as the id: %q", got[:100])
			}
		})
	}
	// Ids that differ only past the kept prefix stay apart.
	if BoundID(long+"a") == BoundID(long+"b") {
		t.Fatal("two ids, one short form")
	}
}
