package parsers

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// fuzzParser checks what must hold for any input: no panic, valid JSON
// objects are never called malformed, and an interrupt is only ever reported
// for a line that holds the exact marker as a whole JSON string.
func fuzzParser(t *testing.T, p Parser, line []byte, markers ...string) {
	ev, err := p.Parse(line)
	trimmed := bytes.TrimSpace(line)
	if err != nil {
		if !errors.Is(err, ErrMalformed) {
			t.Fatalf("error %v is not ErrMalformed", err)
		}
		if json.Valid(line) && len(trimmed) > 0 && trimmed[0] == '{' {
			t.Fatalf("valid JSON object reported malformed: %q", line)
		}
		return
	}
	if ev.Kind != KindInterrupt {
		return
	}
	for _, m := range markers {
		q, _ := json.Marshal(m)
		if bytes.Contains(line, q) {
			return
		}
	}
	// The marker may be written with escapes; decode to be sure.
	var v any
	if json.Unmarshal(line, &v) == nil && containsString(v, markers) {
		return
	}
	t.Fatalf("interrupt %q reported for a line without the exact marker: %q", ev.Interrupt, line)
}

func containsString(v any, want []string) bool {
	switch x := v.(type) {
	case string:
		for _, w := range want {
			if x == w {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if containsString(e, want) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if containsString(e, want) {
				return true
			}
		}
	}
	return false
}

func FuzzClaude(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}]}}`))
	f.Add([]byte(`{"type":"user","message":{"content":"[Request interrupted by user for tool use]"}}`))
	f.Add([]byte(`{"type":"assistant","message":{"stop_reason":"end_turn","content":[{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]}}`))
	f.Add([]byte(`{"type":"system","subtype":"turn_duration","pendingBackgroundAgentCount":2}`))
	f.Add([]byte(`{"type":"user","message":{"content":"<command-name>/compact</command-name>"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		fuzzParser(t, NewClaude(), line, MarkerInterrupt, MarkerInterruptToolUse)
	})
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
			fuzzParser(t, NewCodex(), line)
			return
		}
		// A Codex interrupt is the turn_aborted event with reason interrupted.
		if ev.Kind == KindInterrupt && !bytes.Contains(line, []byte("interrupted")) && !bytes.Contains(line, []byte(`\u`)) {
			t.Fatalf("interrupt without reason interrupted: %q", line)
		}
	})
}
