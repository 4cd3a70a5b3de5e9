package pi

import (
	"os"
	"path/filepath"
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

// A failed run pi retries by itself (pi 0.73.1: agent_end of the failed
// run, then the retry's agent_start with no input) is neither a turn end
// nor a prompt: one working, one turn end. The failure after the last
// retry, one never retried, and a retry that does not start after its
// backoff (the user's Esc cancelled it) end the turn as a failure.
func TestExtensionRetry(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"retry":{"maxRetries":1,"baseDelayMs":300}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PI_CODING_AGENT_DIR", dir)
	start := moduletest.ExtStep{Name: "agent_start"}
	retry := moduletest.ExtStep{Name: "agent_start", Wait: 300}
	end := func(stop, msg string, wait int) moduletest.ExtStep {
		return moduletest.ExtStep{Name: "agent_end", Wait: wait, Event: map[string]any{"messages": []any{
			map[string]any{"role": "user"}, map[string]any{"role": "assistant", "stopReason": stop, "errorMessage": msg}}}}
	}
	e500 := end("error", "500 fake server error 500", 0)
	steps := []moduletest.ExtStep{
		start, e500, retry, end("stop", "", 0), // retried, then answered
		start, e500, retry, e500, // the last retry failed
		start, e500, // the backoff cancelled: no retry starts
		{Name: "agent_start", Wait: 2600}, end("error", "400 bad request", 0), // not retryable
	}
	got := moduletest.Extension(t, extension.Source, steps, 8)
	want := []string{"UserPromptSubmit", "Stop", "UserPromptSubmit", "StopFailure", "UserPromptSubmit", "StopFailure", "UserPromptSubmit", "StopFailure"}
	if !slices.Equal(got, want) {
		t.Errorf("hooks:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
