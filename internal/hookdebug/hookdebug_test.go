package hookdebug

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBounded: the file never grows past MaxBytes, keeps whole lines, and
// its last line is the newest drop.
func TestBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "debug.log")
	at := time.Date(2026, 12, 4, 23, 0, 0, 0, time.UTC)
	for i := range 3000 {
		if err := Record(p, at, "pi", fmt.Sprintf("no daemon: attempt %d\nsecond line", i), time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(p); err != nil || fi.Size() > MaxBytes {
			t.Fatalf("after %d: %v bytes, %v", i, fi.Size(), err)
		}
	}
	lines, err := Last(p, 3)
	if err != nil || len(lines) != 3 {
		t.Fatalf("%q %v", lines, err)
	}
	want := "2026-12-04T23:00:00Z pi took 1ms: no daemon: attempt 2999 second line"
	if lines[2] != want {
		t.Errorf("last %q, want %q", lines[2], want)
	}
	b, _ := os.ReadFile(p)
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(l, "2026-12-04T23:00:00Z pi took") {
			t.Fatalf("a cut line: %q", l)
		}
	}
}
