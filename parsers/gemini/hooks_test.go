package gemini_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	_ "github.com/logwatch/logwatch/parsers/all"
)

// TestHookCaptures decodes the payloads the real Gemini CLI gave its hooks
// (testdata/captures/hooks-1.jsonl, one of each event and trigger) into the
// relay's terms, with and without the hook client naming the agent.
func TestHookCaptures(t *testing.T) {
	want := map[string]string{
		"SessionStart/startup": "SessionStart",
		"BeforeAgent":          "UserPromptSubmit hello alpha",
		"PreCompress/auto":     "",
		"AfterAgent":           "Stop",
		"BeforeTool":           `PreToolUse run_shell_command {"command":"touch approved.txt","description":"the conformance suite needs approval"}`,
		"Notification":         "Notification permission_prompt touch approved.txt",
		"AfterTool":            "PostToolUse run_shell_command",
		"SessionEnd":           "SessionEnd",
		"SessionStart/resume":  "SessionStart",
		"PreCompress/manual":   "PreCompact manual",
	}
	f, err := os.Open(filepath.Join("testdata", "captures", "hooks-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		payload := sc.Bytes()
		for _, agent := range []parsers.Agent{"gemini", parsers.AgentUnknown} {
			h, err := parsers.ParseAgentHook(agent, payload)
			key := rawEvent(t, payload)
			w, ok := want[key]
			if !ok {
				t.Fatalf("no expectation for %s", key)
			}
			if w == "" {
				if err == nil {
					t.Errorf("%s (%s): decoded as %q, want refused", key, agent, h.Event)
				}
				continue
			}
			if err != nil || h.Agent != "gemini" {
				t.Fatalf("%s (%s): %v, agent %q", key, agent, err, h.Agent)
			}
			if got := describeHook(h); got != w {
				t.Errorf("%s (%s): %s, want %s", key, agent, got, w)
			}
		}
		n++
	}
	if n != len(want) {
		t.Errorf("%d payloads, want %d", n, len(want))
	}
}

// rawEvent is a payload's own event name, with its trigger or source.
func rawEvent(t *testing.T, payload []byte) string {
	var p struct{ HookEventName, Trigger, Source string }
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	p.HookEventName, _ = m["hook_event_name"].(string)
	p.Trigger, _ = m["trigger"].(string)
	p.Source, _ = m["source"].(string)
	switch {
	case p.Trigger != "":
		return p.HookEventName + "/" + p.Trigger
	case p.Source != "":
		return p.HookEventName + "/" + p.Source
	}
	return p.HookEventName
}

// describeHook is a decoded hook as the table spells it.
func describeHook(h parsers.Hook) string {
	s := h.Event
	switch h.Event {
	case "UserPromptSubmit":
		s += " " + h.Prompt
	case "PreToolUse":
		s += " " + h.ToolName + " " + string(h.ToolInput)
	case "PostToolUse":
		s += " " + h.ToolName
	case "Notification":
		s += " " + h.NotificationType + " " + h.Message
	case "PreCompact":
		s += " " + h.Trigger
	}
	return s
}
