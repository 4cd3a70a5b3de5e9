package all

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/copilot"
)

// TestDetectCopilot: every line the real Copilot CLI wrote is recognised
// as its own, in registration order, by no earlier agent.
func TestDetectCopilot(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "copilot", "testdata", "captures", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no captures")
	}
	var d parsers.Detector
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for n := 1; sc.Scan(); n++ {
			if got := d.Line(sc.Bytes()); got != copilot.Name {
				t.Errorf("%s:%d detected as %s", f, n, got)
			}
		}
		fh.Close()
	}
}

// TestCopilotHooks: Copilot's payloads (camelCase, formats/copilot.md §3),
// with the event the hook client was installed for, in the relay's terms.
func TestCopilotHooks(t *testing.T) {
	for _, tc := range []struct {
		payload string
		want    parsers.Hook
	}{
		{`{"hook_event_name":"sessionStart","sessionId":"s1","timestamp":1764900000000,"cwd":"/w","source":"new","initialPrompt":"say hello"}`,
			parsers.Hook{Event: "SessionStart", SessionID: "s1", Cwd: "/w", Source: "new", Prompt: "say hello"}},
		{`{"hook_event_name":"userPromptSubmitted","sessionId":"s1","timestamp":1,"cwd":"/w","prompt":"fix it\nnow"}`,
			parsers.Hook{Event: "UserPromptSubmit", SessionID: "s1", Cwd: "/w", Prompt: "fix it"}},
		{`{"hook_event_name":"preToolUse","sessionId":"s1","cwd":"/w","toolName":"bash","toolArgs":{"command":"ls","description":"list"}}`,
			parsers.Hook{Event: "PreToolUse", SessionID: "s1", Cwd: "/w", ToolName: "bash", ToolInput: []byte(`{"command":"ls","description":"list"}`)}},
		{`{"hook_event_name":"permissionRequest","hookName":"permissionRequest","sessionId":"s1","cwd":"/w","toolName":"bash","toolInput":{"command":"touch a"},"permissionSuggestions":[]}`,
			parsers.Hook{Event: "PermissionRequest", SessionID: "s1", Cwd: "/w", ToolName: "bash", ToolInput: []byte(`{"command":"touch a"}`)}},
		{`{"hook_event_name":"notification","sessionId":"s1","cwd":"/w","message":"Run command: touch a","notificationType":"permission_prompt","title":"Permission needed"}`,
			parsers.Hook{Event: "Notification", SessionID: "s1", Cwd: "/w", Message: "Run command: touch a", NotificationType: "permission_prompt"}},
		{`{"hook_event_name":"postToolUse","sessionId":"s1","cwd":"/w","toolName":"bash","toolArgs":{"command":"ls"},"toolResult":{"resultType":"success"}}`,
			parsers.Hook{Event: "PostToolUse", SessionID: "s1", Cwd: "/w", ToolName: "bash", ToolInput: []byte(`{"command":"ls"}`)}},
		{`{"hook_event_name":"agentStop","sessionId":"s1","transcriptPath":"/h/.copilot/session-state/s1/events.jsonl","stopReason":"end_turn","stop_hook_active":false}`,
			parsers.Hook{Event: "Stop", SessionID: "s1", TranscriptPath: "/h/.copilot/session-state/s1/events.jsonl"}},
		{`{"hook_event_name":"preCompact","sessionId":"s1","cwd":"/w","transcriptPath":"/t","trigger":"manual","customInstructions":""}`,
			parsers.Hook{Event: "PreCompact", SessionID: "s1", Cwd: "/w", TranscriptPath: "/t", Trigger: "manual"}},
		{`{"hook_event_name":"sessionEnd","sessionId":"s1","reason":"user_exit"}`,
			parsers.Hook{Event: "SessionEnd", SessionID: "s1"}},
	} {
		h, err := parsers.ParseAgentHook(copilot.Name, []byte(tc.payload))
		if err != nil {
			t.Errorf("%s: %v", tc.payload, err)
			continue
		}
		tc.want.Agent = copilot.Name
		if !reflect.DeepEqual(h, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.payload, h, tc.want)
		}
	}
	// No event (a handler installed without --event) and the events the
	// relay has no use for are refused, and counted as bad hooks.
	for _, p := range []string{`{"sessionId":"s1","prompt":"x"}`, `{"hook_event_name":"errorOccurred","sessionId":"s1"}`,
		`{"hook_event_name":"UserPromptSubmit","sessionId":"s1"}`} {
		if _, err := parsers.ParseAgentHook(copilot.Name, []byte(p)); err != parsers.ErrBadHook {
			t.Errorf("%s: %v, want ErrBadHook", p, err)
		}
	}
}
