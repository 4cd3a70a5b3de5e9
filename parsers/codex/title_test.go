package codex

import (
	"slices"
	"testing"

	"github.com/logwatch/logwatch/parsers/parsertest"
)

// TestTitles reads the thread name and the prompts real rollouts carry:
// the envelope era's user_message and thread_name_updated events, and the
// bare era's user items.
func TestTitles(t *testing.T) {
	const real = "../../../shared/realworld/codex/"
	for _, tc := range []struct {
		file          string
		title, prompt string // the first of each; "" none
	}{
		{"agent-sessions-trimmed-catalog-0.146-mixed.jsonl", "[trimmed for fixture]", "List the files"},
		{"irrlicht-0.130.0-tui-interrupted-turn.jsonl", "", "Write a long detailed essay about the history of computing,…"},
		{"irrlicht-legacy-bare-format-record-type-state.jsonl", "", "checkout 90 and work on it. add tests. when done create pr"},
	} {
		titles, prompts := parsertest.Titles(t, NewCodex(), real+tc.file)
		if first := append(titles, "")[0]; first != tc.title {
			t.Errorf("%s: titles %q, want first %q", tc.file, titles, tc.title)
		}
		if len(prompts) == 0 || prompts[0] != tc.prompt || slices.Contains(prompts, "") {
			t.Errorf("%s: prompts %q, want first %q", tc.file, prompts, tc.prompt)
		}
	}
}
