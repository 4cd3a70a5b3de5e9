package copilot

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/parsertest"
)

// describe is one line's evidence as the goldens write it.
func describe(ev parsers.Evidence) string {
	s := fmt.Sprintf("%s %s", ev.Kind, ev.Type)
	switch ev.Kind {
	case parsers.KindTool:
		s += " " + ev.Tool + " " + string(ev.ToolInput)
	case parsers.KindWait:
		s += " " + ev.Wait + " " + ev.Tool + " " + string(ev.ToolInput)
	case parsers.KindAnswered:
		s += " " + ev.Tool + " " + string(ev.ToolInput)
	case parsers.KindInterrupt:
		s += " " + ev.Interrupt
	case parsers.KindCompaction:
		s += " " + ev.Trigger
	case parsers.KindTurnStart:
		s += " " + ev.Prompt
	}
	return s
}

// TestCaptures reads the real Copilot CLI's files (testdata/captures/
// PROVENANCE.md): each line's evidence, written by hand from what the
// scenario did on screen, and the scan path equal to the full parse.
func TestCaptures(t *testing.T) {
	const touch, sleep = `bash {"command":"touch approved.txt"}`, `bash {"command":"sleep 30"}`
	answer := []string{"activity assistant.turn_start", "activity session.usage_record", "activity assistant.message"}
	var want []string
	add := func(l ...string) { want = append(want, l...) }
	add("none session.start", "none session.model_change")
	// say hello: answered.
	add("turn_start user.message say hello", "none system.message")
	add(answer...)
	add("turn_end assistant.turn_end")
	// A TOOL, approved (1. Yes): the dialog, the tool, a second round.
	add("turn_start user.message please run a TOOL")
	add(answer...)
	add("tool tool.execution_start "+touch, "wait permission.requested permission "+touch, "answered permission.completed "+touch,
		"activity tool.execution_complete", "activity assistant.turn_end")
	add(answer...)
	add("turn_end assistant.turn_end")
	// A TOOL again, Esc at the dialog: the round ends, then the abort.
	add("turn_start user.message please run a TOOL again")
	add(answer...)
	add("tool tool.execution_start "+touch, "wait permission.requested permission "+touch,
		"activity assistant.turn_end", "none permission.completed", "interrupt abort aborted")
	// SLOW, Esc mid-stream (nothing written), then Ctrl+C: no answer.
	add("turn_start user.message SLOW one", "activity assistant.turn_start", "activity assistant.turn_end", "interrupt abort aborted")
	// A LONG TOOL approved, ran 30 s; Copilot read its shell once more.
	add("turn_start user.message please LONG TOOL")
	add(answer...)
	add("tool tool.execution_start "+sleep, "wait permission.requested permission "+sleep, "answered permission.completed "+sleep,
		"activity tool.execution_complete", "activity assistant.turn_end",
		"activity assistant.turn_start", "none system.notification", "activity assistant.message",
		"tool tool.execution_start read_bash {}", "activity tool.execution_complete")
	add(answer[1:]...)
	add("turn_end assistant.turn_end")
	// /compact: no prompt, its own model call.
	add("none session.compaction_start", "none model.turn_started", "none model.model_call_started",
		"none model.model_call_success", "none model.message", "none model.response", "none model.turn_ended",
		"none model.messages_snapshot", "compaction session.compaction_complete manual")
	// /exit.
	add("end session.shutdown")

	// The suite's captures (with hooks: each hook's run is a hook.start and
	// a hook.end, bookkeeping).
	hook := []string{"none hook.start", "none hook.end"}
	opened := append([]string{"none session.start", "none session.model_change"}, append(hook, hook...)...)
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	one := func(s ...string) []string { return s }
	golden := map[string][]string{
		"manual-1": want,
		// Hello, /exit (agentStop, sessionEnd, the end), copilot
		// --continue: the resume at its first prompt (sessionStart,
		// userPromptSubmitted), hello again.
		"resume-1": cat(opened, one("turn_start user.message say hello", "none system.message"), answer,
			one("turn_end assistant.turn_end"), hook, hook, one("end session.shutdown", "none session.resume"), hook, hook,
			one("turn_start user.message say hello again"), answer, one("turn_end assistant.turn_end"), hook),
		// A TOOL, its dialog (preToolUse, permissionRequest), Esc.
		"approval-hooks-esc-1": cat(opened, one("turn_start user.message please run a TOOL", "none system.message"), answer,
			one("tool tool.execution_start "+touch), hook, hook, one("wait permission.requested permission "+touch,
				"activity assistant.turn_end", "none permission.completed", "interrupt abort aborted")),
		// SLOW, Esc mid-stream: nothing written for it, the turn ends as
		// it would have.
		"esc-streaming-1": cat(opened, one("turn_start user.message SLOW stream please", "none system.message"), answer,
			one("turn_end assistant.turn_end"), hook),
		// SLOW, Ctrl+C while Copilot ran the prompt's hook: the abort
		// before the turn's user.message, then an answerless round, which
		// ends that turn interrupted; the scenario's end (sessionEnd).
		"ctrlc-at-prompt-hooks-1": cat(opened, one("interrupt abort aborted", "turn_start user.message SLOW stream please",
			"none system.message", "activity assistant.turn_start", "interrupt assistant.turn_end aborted"), hook,
			one("end session.shutdown")),
		// No hooks of logwatch's, a person's own slow userPromptSubmitted
		// hook (sleep 3): Ctrl+C while it ran. The abort at once, the
		// user.message once the hook ended, the answerless round ends
		// that turn interrupted; then "say hello", answered.
		"ctrlc-at-prompt-log_only-1": cat(one("none session.start", "none session.model_change", "none hook.start",
			"interrupt abort aborted", "none hook.end", "turn_start user.message SLOW stream please", "none system.message",
			"activity assistant.turn_start", "interrupt assistant.turn_end aborted"), hook,
			one("turn_start user.message say hello"), answer, one("turn_end assistant.turn_end")),
		// The same in a CI-like run, the machine loaded: Copilot had not
		// started the person's hook when the Ctrl+C came, so the abort
		// precedes the hook's run too; the scenario's end (/exit's
		// shutdown, after the test gave up on the old parser).
		"ctrlc-at-prompt-log_only-2": cat(one("none session.start", "none session.model_change", "interrupt abort aborted"),
			hook, one("turn_start user.message SLOW stream please", "none system.message", "activity assistant.turn_start",
				"interrupt assistant.turn_end aborted", "end session.shutdown")),
	}
	parsertest.Captures(t, func() parsers.Parser { return NewParser() }, describe, golden)
}

// TestCaptureIdentity: session.start names the session, its cwd and the
// release; the prompts title it.
func TestCaptureIdentity(t *testing.T) {
	raw := parsertest.CaptureLines(t, "manual-1")
	ev, err := NewParser().Parse(raw[0])
	if err != nil || ev.SessionID != "cd4c80f3-0100-4a9f-820c-b2db92c8772e" || ev.Cwd != "/tmp/cpcap/run1/work" || ev.AgentVersion != "1.0.102" {
		t.Errorf("session.start: %+v, %v", ev, err)
	}
	_, prompts := parsertest.Titles(t, NewParser(), "testdata/captures/manual-1.jsonl")
	if len(prompts) != 5 || prompts[0] != "say hello" {
		t.Errorf("prompts %q, want 5 from %q", prompts, "say hello")
	}
}

// Lines as Copilot CLI 1.0.102 writes them (the capture's, shortened), and
// the shapes it could write that it did not.
const (
	lineUser    = `{"type":"user.message","data":{"content":"say hello","delivery":"idle","turnId":"0"},"id":"u1","timestamp":"2026-12-05T01:05:27.109Z","parentId":"p0"}`
	lineAnswer  = `{"type":"assistant.message","data":{"content":"Hi.","toolRequests":[]},"id":"a1","timestamp":"2026-12-05T01:05:27.945Z","parentId":"u1"}`
	lineAsks    = `{"type":"assistant.message","data":{"content":"","toolRequests":[{"toolCallId":"c","name":"bash","arguments":{"command":"ls"}}]},"id":"a2","timestamp":"2026-12-05T01:05:27.945Z","parentId":"u1"}`
	lineEnd     = `{"type":"assistant.turn_end","data":{"turnId":"0"},"id":"e1","timestamp":"2026-12-05T01:05:27.958Z","parentId":"a1"}`
	lineRound   = `{"type":"assistant.turn_start","data":{"turnId":"0"},"id":"r1","timestamp":"2026-12-05T01:05:27.182Z","parentId":"u1"}`
	lineAbort   = `{"type":"abort","data":{"reason":"user_initiated"},"id":"x1","timestamp":"2026-12-05T01:05:45.398Z","parentId":"e1"}`
	lineTool    = `{"type":"tool.execution_start","data":{"toolCallId":"c","toolName":"bash","arguments":{"command":"ls","description":"list"}},"id":"t1","timestamp":"2026-12-05T01:05:33.997Z","parentId":"a2"}`
	linePerm    = `{"type":"permission.requested","data":{"requestId":"q","permissionRequest":{"kind":"shell","toolCallId":"c","fullCommandText":"ls"}},"id":"q1","timestamp":"2026-12-05T01:05:34.385Z","parentId":"t1"}`
	lineDenied  = `{"type":"permission.completed","data":{"requestId":"q","toolCallId":"c","result":{"kind":"denied-interactively-by-user"}},"id":"q2","timestamp":"2026-12-05T01:05:36.559Z","parentId":"q1"}`
	lineCompact = `{"type":"session.compaction_complete","data":{"success":true,"outcome":"applied"},"id":"k1","timestamp":"2026-12-05T01:06:51.077Z","parentId":"k0"}`
	lineResume  = `{"type":"session.resume","data":{"resumeTime":"2026-12-05T01:10:00.000Z","context":{"cwd":"/w"},"alreadyInUse":false},"id":"s2","timestamp":"2026-12-05T01:10:01.000Z","parentId":"e1"}`
)

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before []string // lines read first, in order
		line   string
		want   parsertest.Want
	}{
		{"prompt", nil, lineUser, parsertest.Want{Kind: parsers.KindTurnStart, Typ: "user.message"}},
		{"answer", nil, lineAnswer, parsertest.Want{Kind: parsers.KindActivity}},
		{"final round's end", []string{lineRound, lineAnswer}, lineEnd, parsertest.Want{Kind: parsers.KindTurnEnd, End: parsers.EndNormal}},
		{"tool round's end", []string{lineRound, lineAsks}, lineEnd, parsertest.Want{Kind: parsers.KindActivity}},
		{"cut round's end", []string{lineRound}, lineEnd, parsertest.Want{Kind: parsers.KindActivity}},
		// The next round starts afresh: an answer two rounds back ends nothing.
		{"answer of a round before", []string{lineRound, lineAnswer, lineRound}, lineEnd, parsertest.Want{Kind: parsers.KindActivity}},
		{"abort", nil, lineAbort, parsertest.Want{Kind: parsers.KindInterrupt, Interrupt: parsers.InterruptAborted}},
		{"abort of a running tool", nil, strings.Replace(lineAbort, "user_initiated", "user_abort", 1), parsertest.Want{Kind: parsers.KindInterrupt, Interrupt: parsers.InterruptAborted}},
		{"abort of another reason", nil, strings.Replace(lineAbort, "user_initiated", "timeout", 1), parsertest.Want{}},
		{"abort without data", nil, `{"type":"abort","data":null,"id":"x","timestamp":"t","parentId":null}`, parsertest.Want{}},
		{"tool", nil, lineTool, parsertest.Want{Kind: parsers.KindTool, Tool: "bash"}},
		{"permission", []string{lineTool}, linePerm, parsertest.Want{Kind: parsers.KindWait, Tool: "bash"}},
		{"denied", []string{lineTool, linePerm}, lineDenied, parsertest.Want{}},
		{"compaction", nil, lineCompact, parsertest.Want{Kind: parsers.KindCompaction}},
		{"failed compaction", nil, strings.Replace(lineCompact, "true", "false", 1), parsertest.Want{}},
		{"resume", nil, lineResume, parsertest.Want{Typ: "session.resume"}},
		// A subagent's lines (the task tool's; how cli-main.js tells them,
		// not measured) never move the parent, nor end its round.
		{"subagent's answer", nil, strings.Replace(lineAnswer, `"data":{`, `"agentId":"a1","data":{`, 1), parsertest.Want{Kind: parsers.KindSidechain}},
		{"subagent's abort", nil, strings.Replace(lineAbort, `"data":{`, `"data":{"agentId":"a1",`, 1), parsertest.Want{Kind: parsers.KindSidechain}},
		{"subagent's prompt", nil, strings.Replace(lineUser, `"data":{`, `"data":{"parentToolCallId":"call_9",`, 1), parsertest.Want{Kind: parsers.KindSidechain}},
		{"subagent's unknown type", nil, `{"type":"subagent.started","agentId":"a1","data":{},"id":"n","timestamp":"t","parentId":"p"}`, parsertest.Want{Kind: parsers.KindSidechain}},
		{"parent's round past a subagent's", []string{lineRound, lineAsks, strings.Replace(lineRound, `"data":{`, `"agentId":"a1","data":{`, 1),
			strings.Replace(lineAnswer, `"data":{`, `"agentId":"a1","data":{`, 1), strings.Replace(lineEnd, `"data":{`, `"agentId":"a1","data":{`, 1)},
			lineEnd, parsertest.Want{Kind: parsers.KindActivity}},
		{"empty agent id", nil, strings.Replace(lineAbort, `"data":{`, `"agentId":"","data":{`, 1), parsertest.Want{Kind: parsers.KindInterrupt, Interrupt: parsers.InterruptAborted}},
		// A new release's type: drift, counted, never a state.
		{"unknown type", nil, `{"type":"session.title_changed","data":{"title":"x"},"id":"n","timestamp":"t","parentId":"p"}`, parsertest.Want{Typ: "session.title_changed", Unknown: true}},
		// An escaped type is the same type, read by the full parse.
		{"escaped type", nil, strings.Replace(lineAbort, `"abort"`, `"abor\u0074"`, 1), parsertest.Want{Kind: parsers.KindInterrupt, Interrupt: parsers.InterruptAborted}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser()
			for _, l := range tc.before {
				if _, err := p.Parse([]byte(l)); err != nil {
					t.Fatal(err)
				}
			}
			ev, err := p.Parse([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			parsertest.Check(t, ev, tc.want)
			lines := [][]byte{}
			for _, l := range append(tc.before, tc.line) {
				lines = append(lines, []byte(l))
			}
			parsertest.Same(t, func() parsers.Parser { return NewParser() }, tc.name, lines)
		})
	}
}

func TestMalformed(t *testing.T) {
	for _, l := range []string{``, `[]`, `{"type":"abort"`, `"abort"`, `{"type":"abort","data":{"reason":"user_initiated"}}x`} {
		if _, err := NewParser().Parse([]byte(l)); err != parsers.ErrMalformed {
			t.Errorf("%q: %v, want ErrMalformed", l, err)
		}
	}
}

func TestLayout(t *testing.T) {
	const p = "/h/.copilot/session-state/cd4c80f3-0100-4a9f-820c-b2db92c8772e/events.jsonl"
	s := Spec()
	if id, sub := s.Layout.SessionOf(p); id != "cd4c80f3-0100-4a9f-820c-b2db92c8772e" || sub {
		t.Errorf("SessionOf = %q, %v", id, sub)
	}
	if !s.Layout.Claims(p) || s.Layout.Claims("/h/.copilot/session-state/x/workspace.yaml") || s.Layout.Claims("/h/x/events.jsonl") {
		t.Error("Claims")
	}
	if !s.Layout.WantDir(1, "cd4c80f3") || s.Layout.WantDir(2, "checkpoints") ||
		!s.Layout.WantFile(2, "events.jsonl") || s.Layout.WantFile(2, "inuse.1.lock") || s.Layout.WantFile(1, "events.jsonl") {
		t.Error("WantDir/WantFile")
	}
}

func FuzzCopilotParse(f *testing.F) {
	for _, l := range []string{lineUser, lineAnswer, lineAsks, lineEnd, lineRound, lineAbort, lineTool, linePerm, lineDenied, lineCompact, lineResume} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		parsertest.Fuzz(t, NewParser(), line, abortUser, abortTool)
		parsertest.Same(t, func() parsers.Parser { return NewParser() }, "fuzz", [][]byte{line})
	})
}

// TestPkgCache: Copilot's payload is read from the user's own cache only
// once a Copilot unpacked it there (then a run writes nothing to it); with
// none, a private home unpacks its own and the user's home stays as it was.
func TestPkgCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	if env := pkgCache(); env != nil {
		t.Fatalf("no payload yet: %q", env)
	}
	if err := os.MkdirAll(filepath.Join(cache, "copilot", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if env := pkgCache(); len(env) != 1 || env[0] != "COPILOT_PKG_CACHE_HOME="+filepath.Join(cache, "copilot") {
		t.Fatalf("with the payload: %q", env)
	}
}
