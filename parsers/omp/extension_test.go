package omp

import (
	"slices"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers/hookmodule/moduletest"
)

// A tool's end as omp 18.2.3 reports it (tool_execution_end with isError):
// done or failed. omp's context has no run signal, so an aborted tool is
// a failure and the run's Stop says it was interrupted (issue 32: sent as
// a plain PostToolUse it reopened the turn the log had closed).
func TestExtensionToolEnd(t *testing.T) {
	start := moduletest.ExtStep{Name: "tool_execution_start", Event: map[string]any{"toolCallId": "c1", "toolName": "bash", "args": map[string]any{"command": "sleep 9"}}}
	end := func(isError bool) moduletest.ExtStep {
		return moduletest.ExtStep{Name: "tool_execution_end", Aborted: isError,
			Event: map[string]any{"toolCallId": "c1", "toolName": "bash", "isError": isError, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "[Command cancelled]"}}}}}
	}
	got := moduletest.Extension(t, extension.Source, []moduletest.ExtStep{start, end(false), start, end(true)}, 4)
	want := []string{
		"PreToolUse tool_name=bash", "PostToolUse tool_name=bash",
		"PreToolUse tool_name=bash", "PostToolUseFailure tool_name=bash",
	}
	if !slices.Equal(got, want) {
		t.Errorf("hooks:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
