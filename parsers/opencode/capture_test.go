package opencode

import (
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/parsertest"
)

// TestCaptures reads the real OpenCode's rows (testdata/captures/
// PROVENANCE.md): every line known and whole, and the turn evidence of each
// scenario, written by hand from what it did on screen (metadata and
// output rows left out).
func TestCaptures(t *testing.T) {
	hello := []string{"turn_start", "turn_end normal"}
	want := map[string][]string{
		// say hello; Esc Esc while streaming; say hello again.
		"prompt-esc-1": append(append(append([]string{}, hello...), "turn_start", "interrupt aborted"), hello...),
		// bash asks (running twice: before the ask, then with its output),
		// is approved, the turn ends; /compact is a prompt and the summary.
		"permission-compact-1": {"turn_start", `tool bash {"command":"touch asked.txt"}`, `tool bash {"command":"touch asked.txt"}`,
			"turn_end normal", "turn_start", "compaction"},
		// say hello; the pane killed; --continue: say hello again.
		"kill-resume-1": append(append([]string{}, hello...), hello...),
		"two-tabs-1":    hello,
		"two-tabs-2":    hello,
		// without the plugin: say hello; Esc Esc while streaming.
		"noplugin-1": append(append([]string{}, hello...), "turn_start", "interrupt aborted"),
	}
	for name, turns := range want {
		t.Run(name, func(t *testing.T) {
			p := NewParser()
			var got []string
			for i, line := range parsertest.CaptureLines(t, name) {
				ev, err := p.Parse(line)
				if err != nil || ev.Unknown {
					t.Fatalf("line %d (%s): %v, unknown %v", i+1, ev.Type, err, ev.Unknown)
				}
				switch ev.Kind {
				case parsers.KindTurnStart:
					got = append(got, "turn_start")
				case parsers.KindTurnEnd:
					got = append(got, "turn_end "+string(ev.End))
				case parsers.KindInterrupt:
					got = append(got, "interrupt "+ev.Interrupt)
				case parsers.KindTool:
					got = append(got, "tool "+ev.Tool+" "+string(ev.ToolInput))
				case parsers.KindCompaction:
					got = append(got, "compaction")
				}
			}
			if g, w := strings.Join(got, "\n"), strings.Join(turns, "\n"); g != w {
				t.Errorf("evidence:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}
