package omp

import (
	"slices"
	"testing"

	"github.com/logwatch/logwatch/parsers/parsertest"
)

// TestTitles reads omp's title from real files: the title record on the
// first line (empty until the title is generated, then rewritten in place)
// and the title_change entry appended when it arrives; and each prompt.
func TestTitles(t *testing.T) {
	titles, prompts := parsertest.Titles(t, NewParser(), "testdata/captures/approval-1.jsonl")
	if len(titles) == 0 || slices.ContainsFunc(titles, func(s string) bool { return s != "Fake study session" }) {
		t.Errorf("titles %q, want only %q", titles, "Fake study session")
	}
	// Its generated title ("source":"auto") is not the person's.
	p := NewParser()
	if ev, _ := p.Parse([]byte(`{"type":"title_change","id":"1","parentId":"0","timestamp":"2026-12-02T08:20:41.974Z","title":"Fake study session","source":"auto"}`)); ev.Title == "" || ev.TitleByUser {
		t.Errorf("omp's own title: %q by user %v", ev.Title, ev.TitleByUser)
	}
	if !slices.Equal(prompts, []string{"please run a TOOL"}) {
		t.Errorf("prompts %q, want %q", prompts, "please run a TOOL")
	}
}
