package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hookArgs runs the real hook client with args after "hook" and payload on
// stdin.
func (e *e2e) hookArgs(tab, payload string, args ...string) {
	e.t.Helper()
	cmd := exec.Command(bin, append([]string{"hook"}, args...)...)
	cmd.Env = append(append([]string{}, e.env...), "LOGWATCH_TAB="+tab)
	cmd.Stdin = strings.NewReader(payload)
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		e.t.Fatalf("hook client: err %v, output %q", err, out)
	}
}

// TestE2ECopilotHooks: Copilot CLI's payloads name no event and speak
// camelCase (formats/copilot.md §3): the handler logwatch installs says the
// event (--event), the client puts it into the payload, and the daemon reads
// it in Copilot's dialect. A payload without it is dropped, counted.
func TestE2ECopilotHooks(t *testing.T) {
	e := startE2E(t)
	copilot := func(event, payload string) {
		e.t.Helper()
		e.hookArgs("tab1", payload, "--agent", "copilot", "--event", event)
	}
	const sid = "cd4c80f3-0100-4a9f-820c-b2db92c8772e"
	copilot("sessionStart", `{"sessionId":"`+sid+`","timestamp":1764900000000,"cwd":"/w","source":"new","initialPrompt":"say hello"}`)
	e.want(sid, "ready", "session_start", "hook")
	copilot("userPromptSubmitted", `{"sessionId":"`+sid+`","timestamp":1764900000001,"cwd":"/w","prompt":"say hello"}`)
	e.want(sid, "working", "prompt", "hook")
	copilot("preToolUse", `{"sessionId":"`+sid+`","cwd":"/w","toolName":"bash","toolArgs":{"command":"touch approved.txt","description":"x"}}`)
	if ev := e.want(sid, "working", "tool", "hook"); ev["detail"] != "touch approved.txt" {
		t.Fatalf("detail %v", ev["detail"])
	}
	copilot("permissionRequest", `{"hookName":"permissionRequest","sessionId":"`+sid+`","cwd":"/w","toolName":"bash","toolInput":{"command":"touch approved.txt"},"permissionSuggestions":[]}`)
	e.want(sid, "waiting", "permission", "hook")
	copilot("postToolUse", `{"sessionId":"`+sid+`","cwd":"/w","toolName":"bash","toolArgs":{"command":"touch approved.txt"},"toolResult":{"resultType":"success"}}`)
	e.want(sid, "working", "tool", "hook")
	copilot("agentStop", `{"sessionId":"`+sid+`","transcriptPath":"/nowhere/session-state/`+sid+`/events.jsonl","stopReason":"end_turn","stop_hook_active":false}`)
	e.want(sid, "done", "turn_end", "hook")
	// A handler without --event (or an old one): nothing to read, dropped.
	before := counter(e.status(), "bad_requests")
	e.hookArgs("tab1", `{"sessionId":"`+sid+`","prompt":"again"}`, "--agent", "copilot")
	e.quiet(sid, 300*time.Millisecond)
	if got := counter(e.status(), "bad_requests"); got != before+1 {
		t.Errorf("bad_requests %v, want %v", got, before+1)
	}
	// A payload that names its event keeps it: --event only fills a gap.
	copilot("agentStop", `{"hook_event_name":"userPromptSubmitted","sessionId":"`+sid+`","prompt":"next"}`)
	e.want(sid, "working", "prompt", "hook")
	copilot("sessionEnd", `{"sessionId":"`+sid+`","reason":"user_exit"}`)
	e.want(sid, "ended", "session_end", "hook")
}

// TestVerifyCopilotCaptures: verify reads the real Copilot CLI's files
// through the seam (parsers/copilot, registered in parsers/all) and every
// hand-written expectation beside them holds.
func TestVerifyCopilotCaptures(t *testing.T) {
	stdout, stderr, code := cli(t, nil, "verify", filepath.Join("..", "..", "parsers", "copilot", "testdata", "captures"))
	if code != 0 || !strings.Contains(stdout, "(copilot=7)") || !strings.Contains(stdout, "every expectation held (7 files") {
		t.Fatalf("verify: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
