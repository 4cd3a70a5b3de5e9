package codex

import "testing"

// TestLogName: a rollout's name packs into its stamp and back exactly, and
// what is not a rollout of that session does not pack.
func TestLogName(t *testing.T) {
	const id = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
	for _, c := range []struct {
		base string
		ok   bool
	}{
		{"rollout-2026-12-01T08-00-00-" + id + ".jsonl", true},
		{"rollout-2000-01-01T00-00-00-" + id + ".jsonl", true},
		{"rollout-2136-02-07T06-28-15-" + id + ".jsonl", true}, // the last second a uint32 holds
		{"rollout-2136-02-07T06-28-16-" + id + ".jsonl", false},
		{"rollout-1999-12-31T23-59-59-" + id + ".jsonl", false},
		{"rollout-2026-13-01T08-00-00-" + id + ".jsonl", false},
		{"rollout-2026-2-01T08-00-00-" + id + ".jsonl", false},
		{"rollout-2026-12-01T08-00-00_" + id + ".jsonl", false},
		{"rollout-2026-12-01T08-00-00-" + id + ".json", false},
		{"rollout-2026-12-01T08-00-00-" + id[1:] + "0.jsonl", false}, // another session's
		{id + ".jsonl", false},
		{"", false},
	} {
		n, ok := logName.Pack(c.base, id)
		if ok != c.ok {
			t.Errorf("%q: packs %v, want %v", c.base, ok, c.ok)
			continue
		}
		if ok {
			if pre, suf := logName.Unpack(n); pre+id+suf != c.base {
				back := pre + id + suf
				t.Errorf("%q: packs to %d, which unpacks to %q", c.base, n, back)
			}
		}
	}
}
