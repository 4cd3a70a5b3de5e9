package codex

import (
	"bytes"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/parsertest"
)

func TestCodex(t *testing.T) {
	const ts = `"timestamp":"2026-05-16T20:54:07.895Z"`
	ev := func(payload string) string { return `{` + ts + `,"type":"event_msg","payload":` + payload + `}` }
	item := func(payload string) string { return `{` + ts + `,"type":"response_item","payload":` + payload + `}` }
	tests := []struct {
		name string
		line string
		want parsertest.Want
	}{
		{"session meta", `{` + ts + `,"type":"session_meta","payload":{"id":"t1","cwd":"/w","cli_version":"0.130.0"}}`,
			parsertest.Want{Kind: parsers.KindNone, Session: "t1"}},
		{"task started", ev(`{"type":"task_started","turn_id":"u1"}`), parsertest.Want{Kind: parsers.KindTurnStart, Typ: "event_msg/task_started"}},
		{"turn started alias", ev(`{"type":"turn_started","turn_id":"u1"}`), parsertest.Want{Kind: parsers.KindTurnStart}},
		{"task complete", ev(`{"type":"task_complete","turn_id":"u1","last_agent_message":"ok"}`), parsertest.Want{Kind: parsers.KindTurnEnd, End: parsers.EndNormal}},
		{"turn complete alias", ev(`{"type":"turn_complete","turn_id":"u1"}`), parsertest.Want{Kind: parsers.KindTurnEnd, End: parsers.EndNormal}},
		{"task complete with error", ev(`{"type":"task_complete","turn_id":"u1","error":{"message":"boom"}}`), parsertest.Want{Kind: parsers.KindTurnEnd, End: parsers.EndAPIError}},
		{"task complete with null error", ev(`{"type":"task_complete","turn_id":"u1","error":null}`), parsertest.Want{Kind: parsers.KindTurnEnd, End: parsers.EndNormal}},
		{"turn aborted interrupted", ev(`{"type":"turn_aborted","turn_id":"u1","reason":"interrupted"}`), parsertest.Want{Kind: parsers.KindInterrupt, Interrupt: parsers.InterruptAborted}},
		{"turn aborted without turn id", ev(`{"type":"turn_aborted","reason":"interrupted"}`), parsertest.Want{Kind: parsers.KindInterrupt, Interrupt: parsers.InterruptAborted}},
		{"turn aborted replaced", ev(`{"type":"turn_aborted","reason":"replaced"}`), parsertest.Want{Kind: parsers.KindNone}},
		{"turn aborted budget", ev(`{"type":"turn_aborted","reason":"budget_limited"}`), parsertest.Want{Kind: parsers.KindTurnEnd, End: parsers.EndAPIError}},
		{"turn aborted review ended", ev(`{"type":"turn_aborted","reason":"review_ended"}`), parsertest.Want{Kind: parsers.KindTurnEnd, End: parsers.EndNormal}},
		{"aborted marker item is a hint", item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>"}]}`),
			parsertest.Want{Kind: parsers.KindInterruptHint}},
		{"marker text in tool output", item(`{"type":"function_call_output","call_id":"c","output":"<turn_aborted>"}`), parsertest.Want{Kind: parsers.KindActivity}},
		{"user message", ev(`{"type":"user_message","message":"do it","images":[]}`), parsertest.Want{Kind: parsers.KindPrompt}},
		{"user response item duplicates the event", item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"do it"}]}`), parsertest.Want{Kind: parsers.KindNone}},
		{"paginated user message", ev(`{"type":"item_completed","turn_id":"u1","item":{"type":"UserMessage","content":[]}}`), parsertest.Want{Kind: parsers.KindPrompt, Typ: "event_msg/item_completed/UserMessage"}},
		{"paginated agent message", ev(`{"type":"item_completed","item":{"type":"AgentMessage"}}`), parsertest.Want{Kind: parsers.KindActivity, Final: true}},
		{"paginated compaction", ev(`{"type":"item_completed","item":{"type":"ContextCompaction"}}`), parsertest.Want{Kind: parsers.KindCompaction}},
		{"paginated unknown item", ev(`{"type":"item_completed","item":{"type":"Teleport"}}`), parsertest.Want{Kind: parsers.KindActivity}},
		{"compacted", `{` + ts + `,"type":"compacted","payload":{"message":"","replacement_history":[]}}`, parsertest.Want{Kind: parsers.KindCompaction}},
		{"context compacted alone", ev(`{"type":"context_compacted"}`), parsertest.Want{Kind: parsers.KindCompaction}},
		{"assistant message", item(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}`), parsertest.Want{Kind: parsers.KindActivity, Final: true}},
		{"function call", item(`{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"ls\"}","call_id":"c"}`), parsertest.Want{Kind: parsers.KindTool, Tool: "exec_command"}},
		{"custom tool call", item(`{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c"}`), parsertest.Want{Kind: parsers.KindTool, Tool: "apply_patch"}},
		{"web search", item(`{"type":"web_search_call","action":{"type":"search","query":"go fsnotify"}}`), parsertest.Want{Kind: parsers.KindTool, Tool: "web_search"}},
		{"token count", ev(`{"type":"token_count","info":null}`), parsertest.Want{Kind: parsers.KindNone}},
		{"agent reasoning", ev(`{"type":"agent_reasoning","text":"hm"}`), parsertest.Want{Kind: parsers.KindActivity}},
		{"unknown event", ev(`{"type":"telepathy"}`), parsertest.Want{Kind: parsers.KindNone, Typ: "event_msg/telepathy", Unknown: true}},
		{"unknown item", item(`{"type":"hologram"}`), parsertest.Want{Kind: parsers.KindNone, Unknown: true}},
		{"unknown outer type", `{` + ts + `,"type":"security_risk_score","payload":{}}`, parsertest.Want{Kind: parsers.KindNone, Unknown: true}},
		{"world state", `{` + ts + `,"type":"world_state","payload":{"full":true}}`, parsertest.Want{Kind: parsers.KindNone}},
		{"token usage record (0.169)", `{` + ts + `,"ordinal":11,"type":"token_usage_record","payload":{"thread_id":"t1","usage":{}}}`,
			parsertest.Want{Kind: parsers.KindNone, Typ: "token_usage_record"}},
		{"turn context", `{` + ts + `,"type":"turn_context","payload":{"cwd":"/w"}}`, parsertest.Want{Kind: parsers.KindNone}},
		{"bare state line", `{"record_type":"state"}`, parsertest.Want{Kind: parsers.KindNone}},
		{"bare user prompt", `{"type":"message","role":"user","content":[{"type":"input_text","text":"checkout 90"}]}`, parsertest.Want{Kind: parsers.KindPrompt}},
		{"bare injected context", `{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>"}]}`, parsertest.Want{Kind: parsers.KindNone}},
		{"bare function call", `{"type":"function_call","name":"shell","arguments":"{\"command\":[\"zsh\",\"-lc\",\"pwd\"]}","call_id":"c"}`, parsertest.Want{Kind: parsers.KindTool, Tool: "shell"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := NewCodex().Parse([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			parsertest.Check(t, ev, tc.want)
		})
	}
}

// TestCodexFirstSessionMetaWins: a fork copies the parent's session_meta
// after its own; only the first names the file's session.
func TestCodexFirstSessionMetaWins(t *testing.T) {
	p := NewCodex()
	first, _ := p.Parse([]byte(`{"timestamp":"t","type":"session_meta","payload":{"id":"child","cwd":"/c"}}`))
	second, _ := p.Parse([]byte(`{"timestamp":"t","type":"session_meta","payload":{"id":"parent","cwd":"/p"}}`))
	if first.SessionID != "child" || second.SessionID != "" || second.Cwd != "" {
		t.Fatalf("first %q, second %q/%q", first.SessionID, second.SessionID, second.Cwd)
	}
}

// TestCodexCompactionEcho: compacted then context_compacted (or a
// ContextCompaction item) is one compaction, not two.
func TestCodexCompactionEcho(t *testing.T) {
	p := NewCodex()
	var kinds []parsers.Kind
	for _, l := range []string{
		`{"timestamp":"t","type":"compacted","payload":{"message":""}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count"}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"context_compacted"}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"task_complete"}}`,
		`{"timestamp":"t","type":"event_msg","payload":{"type":"context_compacted"}}`,
	} {
		ev, err := p.Parse([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, ev.Kind)
	}
	want := []parsers.Kind{parsers.KindCompaction, parsers.KindNone, parsers.KindNone, parsers.KindTurnEnd, parsers.KindCompaction}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("kinds = %v, want %v", kinds, want)
		}
	}
}

func FuzzCodex(f *testing.F) {
	f.Add([]byte(`{"timestamp":"t","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`))
	f.Add([]byte(`{"timestamp":"t","type":"session_meta","payload":{"id":"x","cwd":"/w","cli_version":"0.1"}}`))
	f.Add([]byte(`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}"}}`))
	f.Add([]byte(`{"id":"x","timestamp":"t","instructions":"i"}`))
	f.Add([]byte(`{"record_type":"state"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		p := NewCodex()
		ev, err := p.Parse(line)
		if err != nil {
			parsertest.Fuzz(t, NewCodex(), line)
			return
		}
		// A Codex interrupt is the turn_aborted event with reason interrupted.
		if ev.Kind == parsers.KindInterrupt && !bytes.Contains(line, []byte("interrupted")) && !bytes.Contains(line, []byte(`\u`)) {
			t.Fatalf("interrupt without reason interrupted: %q", line)
		}
	})
}
