package claude

import "testing"

// TestLogName: a transcript's name is its session's id and .jsonl; nothing
// else packs.
func TestLogName(t *testing.T) {
	const id = "6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
	for _, c := range []struct {
		base string
		ok   bool
	}{
		{id + ".jsonl", true},
		{id + ".json", false},
		{"x" + id + ".jsonl", false},
		{id[1:] + ".jsonl", false},
		{"rollout-2026-12-01T08-00-00-" + id + ".jsonl", false},
		{"", false},
	} {
		n, ok := logName.Pack(c.base, id)
		if ok != c.ok {
			t.Errorf("%q: packs %v, want %v", c.base, ok, c.ok)
			continue
		}
		if pre, suf := logName.Unpack(n); ok && pre+id+suf != c.base {
			t.Errorf("%q: unpacks to %q", c.base, pre+id+suf)
		}
	}
}
