package pi

import (
	"slices"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers/hookmodule/moduletest"
)

// A tool's end as pi 0.73.1 reports it (tool_execution_end: isError, and
// the run's signal aborted when the user's Esc stopped it): done, failed,
// or aborted, which is the turn's interrupt (issue 32: sent as a plain
// PostToolUse it reopened the turn the log had closed).
func TestExtensionToolEnd(t *testing.T) {
	start := moduletest.ExtStep{Name: "tool_execution_start", Event: map[string]any{"toolCallId": "c1", "toolName": "bash", "args": map[string]any{"command": "sleep 9"}}}
	end := func(isError, aborted bool) moduletest.ExtStep {
		return moduletest.ExtStep{Name: "tool_execution_end", Aborted: aborted,
			Event: map[string]any{"toolCallId": "c1", "toolName": "bash", "isError": isError, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "\n\nCommand aborted"}}}}}
	}
	got := moduletest.Extension(t, extension.Source, []moduletest.ExtStep{start, end(false, false), start, end(true, false), start, end(true, true)}, 6)
	want := []string{
		"PreToolUse tool_name=bash", "PostToolUse tool_name=bash",
		"PreToolUse tool_name=bash", "PostToolUseFailure tool_name=bash",
		"PreToolUse tool_name=bash", "PostToolUseFailure tool_name=bash is_interrupt=true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("hooks:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
