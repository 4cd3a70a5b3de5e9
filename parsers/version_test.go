package parsers

import "testing"

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		cmp  int
		ok   bool
	}{
		{"2.1.328", "2.1.328", 0, true},
		{"2.1.328", "2.1.156", 1, true},  // within a minor: newer
		{"2.1.156", "2.1.328", -1, true}, // numeric, not lexical
		{"2.2.0", "2.1.999", 1, true},
		{"0.169.0", "0.147.0", 1, true},
		{"0.104.0-alpha.1", "0.104.0", 0, true},
		{"0.104.0a1", "0.104.1", -1, true},
		{"v1.0", "1.0.0", 0, true},
		{"", "1.0.0", 0, false},
		{"latest", "1.0.0", 0, false},
		{"1.x.0", "1.0.0", 0, false},
	}
	for _, tc := range tests {
		cmp, ok := CompareVersions(tc.a, tc.b)
		if cmp != tc.cmp || ok != tc.ok {
			t.Errorf("CompareVersions(%q, %q) = %d, %v; want %d, %v", tc.a, tc.b, cmp, ok, tc.cmp, tc.ok)
		}
	}
}

// TestReleaseIn: the release each agent's --version names, as it prints it.
func TestReleaseIn(t *testing.T) {
	for out, want := range map[string]string{
		"2.1.332 (Claude Code)\n": "2.1.332",
		"codex-cli 0.171.0\n":     "0.171.0",
		"GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n": "1.0.102",
		"0.104.0-alpha.1\n": "0.104.0-alpha.1",
	} {
		if got := ReleaseIn(out); got != want {
			t.Errorf("%q: %q, want %q", out, got, want)
		}
	}
}
