package pi

import (
	"fmt"
	"slices"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/parsertest"
)

// TestCaptures reads the real pi's files (testdata/captures/PROVENANCE.md):
// each line's evidence, written by hand from what each scenario did on
// screen, and the scan path equal to the full parse on every line. The
// retry settings are the scenarios' (testdata/settings: one retry).
func TestCaptures(t *testing.T) {
	t.Setenv("PI_CODING_AGENT_DIR", "testdata/settings")
	meta := []string{"none session", "none model_change", "none thinking_level_change"}
	hello := slices.Clip(append(meta, "turn_start message/user", "activity message/assistant final", "turn_start message/user"))
	want := map[string][]string{
		"prompt-1":        append(meta, "turn_start message/user", "activity message/assistant final"),
		"tool-1":          append(meta, "turn_start message/user", "tool message/assistant bash {\"command\":\"echo TOOL-START; sleep 2; echo TOOL-END\"}", "activity message/toolResult", "activity message/assistant final"),
		"esc-extension-1": append(meta, "turn_start message/user", "interrupt message/assistant aborted"),
		"esc-log-1":       append(meta, "turn_start message/user", "activity message/assistant final", "turn_start message/user", "interrupt message/assistant aborted"),
		"nohooks-1":       append(meta, "turn_start message/user", "activity message/assistant final", "turn_start message/user", "activity message/assistant final"),
		// A 500, pi's retry after its backoff, the retry's answer; a 500,
		// the retry's 500, pi idle with "Error: 500 …" on screen.
		"retry-log-1":           append(hello, "activity message/assistant retry", "activity message/assistant final"),
		"retry-exhausted-log-1": append(hello, "activity message/assistant retry", "activity message/assistant final api_error"),
		"compact-1":             append(meta, "turn_start message/user", "activity message/assistant final", "turn_start message/user", "activity message/assistant final", "compaction compaction"),
	}
	parsertest.Captures(t, func() parsers.Parser { return NewParser() }, describe, want)
}

func describe(ev parsers.Evidence) string {
	s := fmt.Sprintf("%s %s", ev.Kind, ev.Type)
	switch {
	case ev.Kind == parsers.KindTool:
		s += " " + ev.Tool + " " + string(ev.ToolInput)
	case ev.Kind == parsers.KindInterrupt:
		s += " " + ev.Interrupt
	case ev.Retry:
		s += " retry"
	case ev.Final:
		s += " final"
		if ev.End != "" {
			s += " " + string(ev.End)
		}
	}
	return s
}

// TestCaptureTitles: a real prompt's first line is the fallback title.
func TestCaptureTitles(t *testing.T) {
	for name, want := range map[string]string{"prompt-1": "say hello", "esc-extension-1": "SLOW stream please"} {
		_, prompts := parsertest.Titles(t, NewParser(), "testdata/captures/"+name+".jsonl")
		if len(prompts) == 0 || prompts[0] != want {
			t.Errorf("%s: prompts %q, want first %q", name, prompts, want)
		}
	}
}
