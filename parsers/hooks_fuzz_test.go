package parsers

import (
	"errors"
	"testing"

	"github.com/valyala/fastjson"
)

// FuzzParseHook: any payload decodes or is ErrBadHook, never a panic; a
// decoded event always has a name, and a decoded tool input is an object.
func FuzzParseHook(f *testing.F) {
	for _, s := range []string{
		`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"Stop","session_id":"s","background_tasks":[{"type":"local_agent","status":"running"}]}`,
		`{"hook_event_name":"Notification","session_id":"s","notification_type":"permission_prompt","message":"m"}`,
		`{"hook_event_name":"Interrupt","session_id":"s","turn_id":"u"}`,
		`{"hook_event_name":"StopFailure","error":{"type":"rate_limit"}}`,
		`{"hook_event_name":7}`, `{"tool_input":[1]}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		h, err := ParseHook(payload)
		if err != nil {
			if !errors.Is(err, ErrBadHook) {
				t.Fatalf("error %v is not ErrBadHook", err)
			}
			return
		}
		if h.Event == "" {
			t.Fatal("decoded a hook without an event name")
		}
		// Decoding is lenient like the agents' own writers (a raw control
		// character in a string is kept), so the check is that the input
		// reads back as an object, which is how ToolDetail consumes it.
		if len(h.ToolInput) > 0 {
			var p fastjson.Parser
			if v, err := p.ParseBytes(h.ToolInput); err != nil || v.Type() != fastjson.TypeObject {
				t.Fatalf("tool input is not a JSON object: %s", h.ToolInput)
			}
		}
		if h.Background < 0 || (h.Background > 0 && !h.HasBackground) {
			t.Fatalf("background %d without a list", h.Background)
		}
	})
}

func TestParseHook(t *testing.T) {
	h, err := ParseHook([]byte(`{"hook_event_name":"Stop","session_id":"s","transcript_path":"/h/.codex/sessions/2026/01/01/rollout-x.jsonl",
		"background_tasks":[{"type":"local_bash","status":"running"},{"type":"local_agent","status":"running"},
		{"type":"local_workflow","status":"pending"},{"type":"local_agent","status":"completed"},{"kind":"agent"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !h.HasBackground || h.Background != 3 || h.Agent != AgentCodex {
		t.Fatalf("%+v", h)
	}
	h, _ = ParseHook([]byte(`{"hook_event_name":"Stop","session_id":"s","transcript_path":"/h/.claude/projects/-w/s.jsonl"}`))
	if h.HasBackground || h.Agent != AgentClaude {
		t.Fatalf("%+v", h)
	}
	h, _ = ParseHook([]byte(`{"hook_event_name":"StopFailure","session_id":"s","error":"rate_limit"}`))
	if h.Error != "rate_limit" {
		t.Fatalf("%+v", h)
	}
	h, _ = ParseHook([]byte(`{"hook_event_name":"X","conversationId":"c","tool_input":"not an object","is_interrupt":"yes"}`))
	if h.SessionID != "c" || h.ToolInput != nil || h.IsInterrupt {
		t.Fatalf("lenient fields: %+v", h)
	}
}
