package codex

import "testing"

func TestLazyRollout(t *testing.T) {
	for v, want := range map[string]bool{"0.169.0": true, "0.170.2": true, "0.147.0": false, "": false} {
		if got := LazyRollout(v); got != want {
			t.Errorf("LazyRollout(%q) = %v", v, got)
		}
	}
}
