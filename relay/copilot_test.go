package relay

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Copilot CLI 1.0.102's events.jsonl lines (formats/copilot.md §2.2).
func cpLine(typ, data string) string {
	return fmt.Sprintf(`{"type":%q,"data":%s,"id":"i","timestamp":"2026-12-05T01:05:27.109Z","parentId":"p"}`, typ, data)
}

// cpPrompt is the prompt's line stamped at.
func cpPrompt(at time.Time) string { return cpAt(cpUser, at) }

// cpAt is a line stamped at.
func cpAt(line string, at time.Time) string {
	return strings.Replace(line, "2026-12-05T01:05:27.109Z", at.UTC().Format("2006-01-02T15:04:05.000Z"), 1)
}

var (
	cpUser      = cpLine("user.message", `{"content":"SLOW one","delivery":"idle"}`)
	cpRound     = cpLine("assistant.turn_start", `{"turnId":"0"}`)
	cpRoundEnd  = cpLine("assistant.turn_end", `{"turnId":"0"}`)
	cpAbort     = cpLine("abort", `{"reason":"user_initiated"}`)
	cpAsks      = cpLine("assistant.message", `{"content":"","toolRequests":[{"toolCallId":"c","name":"bash","arguments":{"command":"sleep 30"}}]}`)
	cpToolStart = cpLine("tool.execution_start", `{"toolCallId":"c","toolName":"bash","arguments":{"command":"sleep 30"}}`)
	cpToolEnd   = cpLine("tool.execution_complete", `{"toolCallId":"c","success":true}`)
	cpDialog    = cpLine("permission.requested", `{"requestId":"q","permissionRequest":{"kind":"shell","toolCallId":"c"}}`)
	cpCancelled = cpLine("permission.completed", `{"requestId":"q","toolCallId":"c","result":{"kind":"cancelled","reason":"Session aborted"}}`)
	cpApproved  = cpLine("permission.completed", `{"requestId":"q","toolCallId":"c","result":{"kind":"approved"}}`)
)

func cpHook(event string, kv ...string) string {
	return jsonObj(append([]string{"hook_event_name", event, "sessionId", "s"}, kv...)...)
}

// TestEscKeepsCopilotsStream: Copilot ignores Esc while its answer streams
// (Traits.EscKeepsStream; copilot.md §2.4, measured in three runs): such an
// Esc is no interrupt candidate, so it cannot take the abort a Ctrl+C
// wrote; Ctrl+C there is one, and so is Esc at an approval dialog or while
// a tool runs, which it does stop.
func TestEscKeepsCopilotsStream(t *testing.T) {
	for _, hooks := range []bool{true, false} {
		t.Run(map[bool]string{true: "hooks", false: "log_only"}[hooks], func(t *testing.T) {
			h := newHarness(t, Config{InterruptWindow: 2 * time.Second, TurnQuiet: time.Hour})
			candidates := func(want int64) {
				t.Helper()
				if c := h.sync().Counters; c.InterruptCandidates != want {
					t.Fatalf("%d interrupt candidates, want %d (%+v)", c.InterruptCandidates, want, c)
				}
			}
			prompt := func() {
				t.Helper()
				if hooks {
					must(t, h.hook("t1", "copilot", cpHook("userPromptSubmitted", "prompt", "SLOW one")))
				} else {
					h.enter("t1", 100*time.Millisecond) // binds the prompt that follows (BindBySubmit)
				}
				h.line("copilot", "s", cpPrompt(h.clock.Now()), false)
				h.line("copilot", "s", cpRound, false)
			}
			prompt()
			h.expect("working/prompt/" + map[bool]string{true: "hook.prompt", false: "log.turn_start"}[hooks])

			// Mid-stream: Esc is nothing, Ctrl+C the candidate its abort confirms.
			must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
			candidates(0)
			h.clock.Advance(time.Second)
			must(t, h.r.Key(h.ctx, "t1", KeyCtrlC, time.Time{}))
			candidates(1)
			h.clock.Advance(time.Second)
			h.line("copilot", "s", cpRoundEnd, false)
			h.line("copilot", "s", cpAbort, false)
			h.expect("ready/interrupted/key.confirmed")

			// Esc at the approval dialog is a candidate; its abort confirms it.
			prompt()
			h.line("copilot", "s", cpAsks, false)
			h.line("copilot", "s", cpToolStart, false)
			if hooks {
				must(t, h.hook("t1", "copilot", cpHook("preToolUse", "toolName", "bash", "toolArgs", `{"command":"sleep 30"}`)))
				must(t, h.hook("t1", "copilot", cpHook("permissionRequest", "toolName", "bash", "toolInput", `{"command":"sleep 30"}`)))
				h.expect("working/prompt/hook.prompt", "working/tool/hook.pre_tool", "waiting/permission/hook.permission_request")
			} else {
				h.line("copilot", "s", cpDialog, false)
				h.expect("working/prompt/log.turn_start", "working/tool/log.tool", "waiting/permission/log.wait")
			}
			must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
			candidates(2)
			h.clock.Advance(500 * time.Millisecond)
			h.line("copilot", "s", cpRoundEnd, false)
			h.line("copilot", "s", cpCancelled, false)
			h.line("copilot", "s", cpAbort, false)
			h.expect("ready/interrupted/key.confirmed")

			// Esc while the approved tool runs is a candidate; once the
			// tool has ended and the answer streams, it is nothing again.
			prompt()
			h.line("copilot", "s", cpAsks, false)
			h.line("copilot", "s", cpToolStart, false)
			h.line("copilot", "s", cpDialog, false)
			h.line("copilot", "s", cpApproved, false)
			h.clock.Advance(3 * time.Second)
			h.sync()
			must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
			candidates(3)
			h.clock.Advance(3 * time.Second) // unconfirmed: Copilot went on
			if hooks {
				must(t, h.hook("t1", "copilot", cpHook("postToolUse", "toolName", "bash", "toolArgs", `{"command":"sleep 30"}`)))
			}
			h.line("copilot", "s", cpToolEnd, false)
			h.line("copilot", "s", cpRoundEnd, false)
			h.line("copilot", "s", cpRound, false)
			must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
			candidates(3)
			if e := h.state("s"); e.State != "working" {
				t.Fatalf("state %s after the keys, want working", e.State)
			}
		})
	}
}

// TestCopilotShutdownEndsAndResumes: without hooks, Copilot's own end
// record (session.shutdown, on /exit) ends the session; the next process
// (copilot --continue) writes session.resume at its first prompt, which
// takes it up again. A killed Copilot writes no end: its tab's close ends it.
func TestCopilotShutdownEndsAndResumes(t *testing.T) {
	h := newHarness(t, Config{InterruptWindow: 2 * time.Second, TurnQuiet: time.Hour})
	h.enter("t1", 100*time.Millisecond)
	h.line("copilot", "s", cpPrompt(h.clock.Now()), false)
	h.line("copilot", "s", cpRound, false)
	h.line("copilot", "s", cpLine("assistant.message", `{"content":"Hi.","toolRequests":[]}`), false)
	h.line("copilot", "s", cpRoundEnd, false)
	h.line("copilot", "s", cpLine("session.shutdown", `{"accountingSnapshot":{}}`), false)
	h.expect("working/prompt/log.turn_start", "done/turn_end/log.turn_end", "ended/session_end/log.session_end")
	if _, err := h.r.TabClosed(h.ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	h.expect() // ended once
	h.clock.Advance(time.Minute)
	h.line("copilot", "s", cpLine("session.resume", `{"context":{"cwd":"/w"},"alreadyInUse":false}`), false)
	h.line("copilot", "s", cpPrompt(h.clock.Now()), false)
	h.expect("ready/resumed/log.session_resumed", "working/prompt/log.turn_start")
}

// TestCopilotCtrlCBeforeItsPrompt: Ctrl+C right after the prompt, before
// Copilot CLI 1.0.102 asked the model (84 ms in a CI-like run, while it
// waited for the prompt's hook), makes it write its abort before the
// turn's user.message, which follows, with an answerless round and no
// agentStop, once the prompt's hooks have run (at once, or 3 s later
// behind a person's slow hook). With hooks the turn was open and the log a
// turn behind: the abort is this turn's (confirming the key where wrap saw
// one), and the stopped turn's lines that follow are its echo. Without
// hooks the user.message opens the turn and the answerless round ends it.
// An abort read in an open turn of the log's own is that turn's, and the
// one that follows is a turn of its own.
func TestCopilotCtrlCBeforeItsPrompt(t *testing.T) {
	answer := cpLine("assistant.message", `{"content":"Hi.","toolRequests":[]}`)
	for _, tc := range []struct {
		name       string
		hooks, key bool
		want       []string
	}{
		{"hooks and the key", true, true, []string{"working/prompt/hook.prompt", "ready/interrupted/key.confirmed"}},
		{"hooks, no key", true, false, []string{"working/prompt/hook.prompt", "ready/interrupted/log.interrupt"}},
		{"log only", false, true, []string{"working/prompt/log.turn_start", "ready/interrupted/log.interrupt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Config{InterruptWindow: 2 * time.Second, TurnQuiet: time.Hour})
			if tc.hooks {
				must(t, h.hook("t1", "copilot", cpHook("sessionStart")))
				h.expect("ready/session_start/hook.session_start")
				must(t, h.hook("t1", "copilot", cpHook("userPromptSubmitted", "prompt", "SLOW one")))
			} else {
				h.enter("t1", 100*time.Millisecond)
			}
			press := h.clock.Now()
			if tc.key {
				must(t, h.r.Key(h.ctx, "t1", KeyCtrlC, press))
			}
			h.clock.Advance(100 * time.Millisecond)
			h.line("copilot", "s", cpAt(cpAbort, press.Add(84*time.Millisecond)), false)
			if tc.hooks {
				// Ready at the abort: the prompt's hooks still run.
				h.expect(tc.want...)
			}
			h.clock.Advance(3 * time.Second)
			h.line("copilot", "s", cpPrompt(h.clock.Now()), false)
			h.line("copilot", "s", cpRound, false)
			h.line("copilot", "s", cpRoundEnd, false)
			if !tc.hooks {
				h.expect(tc.want...)
			}
			h.expect()
			// turn is a prompt (its hook first, with hooks) and its lines;
			// it returns the change its start makes.
			turn := func(lines ...string) string {
				t.Helper()
				if tc.hooks {
					must(t, h.hook("t1", "copilot", cpHook("userPromptSubmitted", "prompt", "SLOW one")))
				}
				for _, l := range append([]string{cpPrompt(h.clock.Now())}, lines...) {
					h.line("copilot", "s", l, false)
				}
				if tc.hooks {
					return "working/prompt/hook.prompt"
				}
				return "working/prompt/log.turn_start"
			}
			// The next prompt is a turn of its own, and ends as one.
			start := turn(cpRound, answer, cpRoundEnd)
			if tc.hooks {
				must(t, h.hook("t1", "copilot", cpHook("agentStop")))
			}
			h.expect(start, "done/turn_end/log.turn_end")
			// Ctrl+C mid-answer: the abort in the log's open turn.
			h.expect(turn(cpRound, cpRoundEnd, cpAbort), "ready/interrupted/log.interrupt")
		})
	}
}
