package opencode

import (
	"slices"
	"testing"

	"github.com/logwatch/logwatch/parsers/parsertest"
)

// TestTitles reads the session title OpenCode generates (never its
// placeholder "New session - <time>") and the first prompt's text from
// the captured rows.
func TestTitles(t *testing.T) {
	for _, tc := range []struct{ capture, prompt string }{
		{"prompt-esc-1", "say hello"},
		{"noplugin-1", "say hello"},
		{"permission-compact-1", "please ASK"},
	} {
		titles, prompts := parsertest.Titles(t, NewParser(), "testdata/captures/"+tc.capture+".jsonl")
		if len(titles) == 0 || slices.ContainsFunc(titles, func(s string) bool { return s != "Fake title" }) {
			t.Errorf("%s: titles %q, want only %q", tc.capture, titles, "Fake title")
		}
		if len(prompts) == 0 || prompts[0] != tc.prompt {
			t.Errorf("%s: prompts %q, want first %q", tc.capture, prompts, tc.prompt)
		}
	}
}
