package pi

import (
	"testing"
)

// TestTitles: the prompts of real pi files give the fallback title; the
// name /name writes (a session_info entry, as session-manager.d.ts
// declares it: no capture has one) is the session's title.
func TestTitles(t *testing.T) {
	p := NewParser()
	for _, tc := range []struct{ line, title, prompt string }{ // a session_info name is the person's
		{`{"type":"session_info","id":"a1","parentId":"a0","timestamp":"2026-12-02T08:20:41.974Z","name":"refactor the relay"}`, "refactor the relay", ""},
		{`{"type":"session_info","id":"a2","parentId":"a1","timestamp":"2026-12-02T08:20:41.974Z"}`, "", ""},
		{`{"type":"message","id":"b1","parentId":"a2","timestamp":"2026-12-02T08:20:42.000Z","message":{"role":"user","content":"fix\nthe bug"}}`, "", "fix"},
		{`{"type":"message","id":"b2","parentId":"b1","timestamp":"2026-12-02T08:20:42.000Z","message":{"role":"user","content":[{"type":"image"},{"type":"text","text":"look at this"}]}}`, "", "look at this"},
	} {
		ev, err := p.Parse([]byte(tc.line))
		if err != nil || ev.Title != tc.title || ev.Prompt != tc.prompt || ev.TitleByUser != (ev.Title != "") {
			t.Errorf("%s: title %q prompt %q (%v), want %q %q", tc.line, ev.Title, ev.Prompt, err, tc.title, tc.prompt)
		}
	}
}
