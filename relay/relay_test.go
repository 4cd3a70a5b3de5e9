package relay

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/parsers"
)

// The real agents the tests drive, as the relay names them.
const (
	claude   = parsers.Agent("claude")
	codex    = parsers.Agent("codex")
	agClaude = claude // where a local variable shadows claude
	agCodex  = codex
	// agOpenCode keeps its log in a database (parsers.Store).
	agOpenCode = parsers.Agent("opencode")
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestHookRules covers SPEC §3: each hook row and each rule from field
// experience, through the real relay.
func TestHookRules(t *testing.T) {
	bash := `{"command":"go test ./..."}`
	tests := []struct {
		name string
		run  func(h *harness)
	}{
		{"session start is ready", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("SessionStart", "s", "source", "startup")))
			h.expect("ready/session_start/hook.session_start")
		}},
		{"prompt, tools with detail, stop", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s", "prompt", "hi")))
			must(h.t, h.hook("", "claude", claudeHook("PreToolUse", "s", "tool_name", "Bash", "tool_input", bash)))
			must(h.t, h.hook("", "claude", claudeHook("PostToolUse", "s", "tool_name", "Edit", "tool_input", `{"file_path":"/w/app/a.go"}`)))
			must(h.t, h.hook("", "claude", claudeHook("Stop", "s")))
			h.expect("working/prompt/hook.prompt", "working/tool/hook.pre_tool", "working/tool/hook.post_tool", "done/turn_end/hook.stop")
			if d := h.state("s"); d.Detail != "" || d.State != "done" {
				h.t.Fatalf("after stop: %+v", d)
			}
		}},
		{"permission wait, cleared by PostToolUse", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("PreToolUse", "s", "tool_name", "Bash", "tool_input", bash)))
			must(h.t, h.hook("", "claude", claudeHook("Notification", "s", "notification_type", "permission_prompt", "message", "Claude needs your permission to use Bash")))
			must(h.t, h.hook("", "claude", claudeHook("PreToolUse", "s", "tool_name", "Read", "tool_input", `{"file_path":"/w/app/x"}`)))
			must(h.t, h.hook("", "claude", claudeHook("PostToolUse", "s", "tool_name", "Bash", "tool_input", bash)))
			h.expect("working/prompt/hook.prompt", "working/tool/hook.pre_tool",
				"waiting/permission/hook.notification_permission", "working/tool/hook.post_tool")
		}},
		{"waiting detail is Claude's message", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("Notification", "s", "notification_type", "permission_prompt", "message", "Claude needs your permission to use Bash")))
			if d := h.state("s").Detail; d != "Claude needs your permission to use Bash" {
				h.t.Fatalf("detail %q", d)
			}
		}},
		{"codex permission request detail is tool: detail", func(h *harness) {
			must(h.t, h.hook("", "codex", claudeHook("PermissionRequest", "s", "tool_name", "Bash", "tool_input", `{"command":"rm -rf build"}`)))
			h.expect("waiting/permission/hook.permission_request")
			if d := h.state("s").Detail; d != "Bash: rm -rf build" {
				h.t.Fatalf("detail %q", d)
			}
		}},
		{"elicitation dialog is a question", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("Notification", "s", "notification_type", "elicitation_dialog", "message", "Pick one")))
			h.expect("waiting/question/hook.notification_elicitation")
		}},
		{"codex request_user_input tool is a question", func(h *harness) {
			must(h.t, h.hook("", "codex", claudeHook("PreToolUse", "s", "tool_name", "request_user_input", "tool_input", `{"questions":[]}`)))
			h.expect("waiting/question/hook.question_tool")
		}},
		{"idle_prompt notification changes nothing", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("Stop", "s")))
			must(h.t, h.hook("", "claude", claudeHook("Notification", "s", "notification_type", "idle_prompt", "message", "Claude is waiting for your input")))
			h.expect("working/prompt/hook.prompt", "done/turn_end/hook.stop")
		}},
		{"denied permission stays waiting until stop", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("PermissionRequest", "s", "tool_name", "Bash", "tool_input", bash)))
			h.changes()
			h.clock.Advance(time.Minute)
			if st := h.state("s").State; st != "waiting" {
				h.t.Fatalf("state %s", st)
			}
			must(h.t, h.hook("", "claude", claudeHook("Stop", "s")))
			h.expect("done/turn_end/hook.stop")
		}},
		{"precompact then postcompact inside and outside a turn", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("PreCompact", "s", "trigger", "auto")))
			must(h.t, h.hook("", "claude", claudeHook("PostCompact", "s", "trigger", "auto")))
			must(h.t, h.hook("", "claude", claudeHook("Stop", "s")))
			must(h.t, h.hook("", "claude", claudeHook("PreCompact", "s", "trigger", "manual")))
			must(h.t, h.hook("", "claude", claudeHook("PostCompact", "s", "trigger", "manual")))
			h.expect("working/prompt/hook.prompt", "compacting/compaction/hook.pre_compact", "working/compaction/hook.post_compact_in_turn",
				"done/turn_end/hook.stop", "compacting/compaction/hook.pre_compact", "done/compaction/hook.post_compact_outside_turn")
		}},
		{"precompact then the log's compaction line, in a turn and outside", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			h.line(claude, "s", cPrompt("s", "go"), false)
			must(h.t, h.hook("", "claude", claudeHook("PreCompact", "s", "trigger", "auto")))
			h.line(claude, "s", cCompact("s"), false)
			must(h.t, h.hook("", "claude", claudeHook("Stop", "s")))
			h.line(claude, "s", cTurnDuration("s", 0), false)
			must(h.t, h.hook("", "claude", claudeHook("PreCompact", "s", "trigger", "manual")))
			h.line(claude, "s", cCompact("s"), false)
			h.expect("working/prompt/hook.prompt", "compacting/compaction/hook.pre_compact", "working/compaction/log.compaction_in_turn",
				"done/turn_end/hook.stop", "compacting/compaction/hook.pre_compact", "done/compaction/log.compaction_outside_turn")
		}},
		{"stop failure is done with error", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("StopFailure", "s", "error_type", "rate_limit")))
			h.expect("working/prompt/hook.prompt", "done/error/hook.stop_failure")
		}},
		{"interrupt-flavoured hooks are a confirmed interrupt", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "a")))
			must(h.t, h.hook("", "claude", claudeHook("PostToolUseFailure", "a", "tool_name", "Bash", "is_interrupt", "true")))
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "b")))
			must(h.t, h.hook("", "claude", claudeHook("Stop", "b", "is_interrupt", "true")))
			must(h.t, h.hook("", "codex", claudeHook("UserPromptSubmit", "c")))
			must(h.t, h.hook("", "codex", claudeHook("Interrupt", "c")))
			h.expect("working/prompt/hook.prompt", "ready/interrupted/hook.tool_interrupted",
				"working/prompt/hook.prompt", "ready/interrupted/hook.stop_interrupted",
				"working/prompt/hook.prompt", "ready/interrupted/hook.interrupt")
		}},
		{"tool failure without interrupt keeps working", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("PostToolUseFailure", "s", "tool_name", "Bash", "tool_input", bash)))
			h.expect("working/prompt/hook.prompt", "working/tool/hook.post_tool_failure")
		}},
		{"session end", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("SessionEnd", "s", "reason", "prompt_input_exit")))
			h.expect("working/prompt/hook.prompt", "ended/session_end/hook.session_end")
		}},
		{"unknown events are accepted and counted", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("TeleportRequested", "s")))
			h.expect()
			if n := h.sync().Counters.HooksUnknown; n != 1 {
				h.t.Fatalf("unknown = %d", n)
			}
		}},
		{"subagent payloads never move the parent to working nor change its detail", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("PreToolUse", "s", "tool_name", "Task", "tool_input", `{"command":"agent"}`)))
			must(h.t, h.hook("", "claude", claudeHook("PreToolUse", "s", "agent_id", "a1", "tool_name", "Bash", "tool_input", bash)))
			must(h.t, h.hook("", "claude", claudeHook("Stop", "s")))
			must(h.t, h.hook("", "claude", claudeHook("PostToolUse", "s", "agent_id", "a2", "tool_name", "Bash", "tool_input", bash)))
			h.expect("working/prompt/hook.prompt", "working/tool/hook.pre_tool", "done/turn_end/hook.stop")
		}},
		{"stop with running subagents stays working until the last stops", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("SubagentStart", "s", "agent_id", "a1")))
			must(h.t, h.hook("", "claude", claudeHook("SubagentStart", "s", "agent_id", "a2")))
			must(h.t, h.hook("", "claude", claudeHook("Stop", "s")))
			must(h.t, h.hook("", "claude", claudeHook("SubagentStop", "s", "agent_id", "a1")))
			h.expect("working/prompt/hook.prompt", "working/subagents_pending/hook.subagents_pending")
			must(h.t, h.hook("", "claude", claudeHook("SubagentStop", "s", "agent_id", "a2")))
			h.expect("done/turn_end/hook.subagents_done")
		}},
		{"a late SubagentStop never revives a finished session", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("Stop", "s")))
			must(h.t, h.hook("", "claude", claudeHook("SubagentStart", "s", "agent_id", "late")))
			must(h.t, h.hook("", "claude", claudeHook("SubagentStop", "s", "agent_id", "late")))
			must(h.t, h.hook("", "claude", claudeHook("SubagentStop", "s", "agent_id", "never-started")))
			h.expect("working/prompt/hook.prompt", "done/turn_end/hook.stop")
		}},
		{"stop payload task list: only running subagents and workflows count", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("Stop", "s", "background_tasks",
				`[{"type":"local_bash","status":"running","command":"npm run dev"},{"type":"local_agent","status":"completed"}]`)))
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("Stop", "s", "background_tasks",
				`[{"type":"local_agent","status":"running"},{"type":"local_workflow","status":"pending"}]`)))
			must(h.t, h.hook("", "claude", claudeHook("Stop", "s", "background_tasks", `[]`)))
			h.expect("working/prompt/hook.prompt", "done/turn_end/hook.stop", "working/prompt/hook.prompt",
				"working/subagents_pending/hook.subagents_pending", "done/turn_end/hook.stop")
		}},
		{"transcript turn_duration pending counts hold done back without hooks", func(h *harness) {
			h.line(claude, "s", cPrompt("s", "launch agents"), false)
			h.line(claude, "s", cTurnDuration("s", 2), false)
			h.line(claude, "s", cPrompt("s", "<task-notification>\n<status>completed</status>"), false)
			h.line(claude, "s", cTurnDuration("s", 0), false)
			h.expect("working/prompt/log.turn_start", "working/subagents_pending/log.subagents_pending",
				"working/prompt/log.turn_start", "done/turn_end/log.turn_end")
		}},
		{"the generic permission notification never replaces the specific detail", func(h *harness) {
			// Claude 2.1.328: PermissionRequest, then ~6 s later Notification
			// permission_prompt "Claude needs your permission" for the same dialog.
			echo := `{"command":"echo hi > f.txt","description":"Write hi to f.txt"}`
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("PreToolUse", "s", "tool_name", "Bash", "tool_input", echo)))
			must(h.t, h.hook("", "claude", claudeHook("PermissionRequest", "s", "tool_name", "Bash", "tool_input", echo)))
			h.clock.Advance(6 * time.Second)
			must(h.t, h.hook("", "claude", claudeHook("Notification", "s", "notification_type", "permission_prompt", "message", "Claude needs your permission")))
			h.expect("working/prompt/hook.prompt", "working/tool/hook.pre_tool", "waiting/permission/hook.permission_request")
			if d := h.state("s").Detail; d != "Bash: echo hi > f.txt" {
				h.t.Fatalf("detail %q", d)
			}
			// The next wait of the same session is a new one.
			must(h.t, h.hook("", "claude", claudeHook("PostToolUse", "s", "tool_name", "Bash", "tool_input", echo)))
			must(h.t, h.hook("", "claude", claudeHook("Notification", "s", "notification_type", "permission_prompt", "message", "Claude needs your permission")))
			h.expect("working/tool/hook.post_tool", "waiting/permission/hook.notification_permission")
		}},
		{"a subagent's generic permission notification keeps the specific detail", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("PermissionRequest", "s", "agent_id", "a1", "tool_name", "Bash", "tool_input", bash)))
			must(h.t, h.hook("", "claude", claudeHook("Notification", "s", "agent_id", "a1", "notification_type", "permission_prompt", "message", "Claude needs your permission")))
			h.expect("working/prompt/hook.prompt", "waiting/permission/hook.subagent_wait")
			if d := h.state("s").Detail; d != "Bash: go test ./..." {
				h.t.Fatalf("detail %q", d)
			}
		}},
		{"ended is published once: SessionEnd then the tab closes", func(h *harness) {
			must(h.t, h.hook("t1", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("t1", "claude", claudeHook("Stop", "s")))
			must(h.t, h.hook("t1", "claude", claudeHook("SessionEnd", "s", "reason", "prompt_input_exit")))
			// Claude flushes metadata after SessionEnd: no resume.
			h.line(claude, "s", cMeta("s"), false)
			if _, err := h.r.TabClosed(h.ctx, "t1"); err != nil {
				h.t.Fatal(err)
			}
			must(h.t, h.r.Gone(h.ctx, "s"))
			h.expect("working/prompt/hook.prompt", "done/turn_end/hook.stop", "ended/session_end/hook.session_end")
		}},
		{"ended is published once: the tab closes, then SessionEnd", func(h *harness) {
			must(h.t, h.hook("t1", "claude", claudeHook("UserPromptSubmit", "s")))
			if _, err := h.r.TabClosed(h.ctx, "t1"); err != nil {
				h.t.Fatal(err)
			}
			must(h.t, h.hook("", "claude", claudeHook("SessionEnd", "s", "reason", "other")))
			must(h.t, h.hook("", "claude", claudeHook("SessionEnd", "s", "reason", "other")))
			h.expect("working/prompt/hook.prompt", "ended/tab_closed/api.tab_closed")
		}},
		{"claude: metadata after SessionEnd is no resume; a turn is", func(h *harness) {
			h.line(claude, "s", cPrompt("s", "hi"), false)
			h.line(claude, "s", cTurnDuration("s", 0), false)
			must(h.t, h.hook("", "claude", claudeHook("SessionEnd", "s", "reason", "prompt_input_exit")))
			h.line(claude, "s", cMeta("s"), false)
			h.line(claude, "s", cPrompt("s", "hello after continue"), false)
			h.expect("working/prompt/log.turn_start", "done/turn_end/log.turn_end", "ended/session_end/hook.session_end",
				"ready/resumed/log.session_resumed", "working/prompt/log.turn_start")
		}},
		{"codex: SessionStart after task_started does not flap the open turn", func(h *harness) {
			// Codex 0.169 writes session_meta and task_started at the first
			// prompt, then runs SessionStart and UserPromptSubmit.
			h.line(codex, "x", `{"timestamp":"t","type":"session_meta","payload":{"id":"x","cwd":"/w/app","cli_version":"0.169.0"}}`, false)
			h.line(codex, "x", xEvent("task_started", `,"turn_id":"t1"`), false)
			must(h.t, h.hook("A1", "codex", claudeHook("SessionStart", "x", "source", "startup")))
			must(h.t, h.hook("A1", "codex", claudeHook("UserPromptSubmit", "x", "turn_id", "t1", "prompt", "say hello")))
			must(h.t, h.hook("A1", "codex", claudeHook("Stop", "x", "turn_id", "t1")))
			h.line(codex, "x", xEvent("task_complete", `,"turn_id":"t1"`), false)
			// The hook brings the tab the log could not: shown in it at once.
			h.expect("working/prompt/log.turn_start", "working/prompt/hook.tab", "done/turn_end/hook.stop")
			if st := h.state("x"); st.Tab != "A1" || st.State != "done" {
				h.t.Fatalf("after the turn: %+v", st)
			}
			// A later SessionStart with no turn open (a resume before the
			// prompt, as older Codex fires it) is still ready.
			must(h.t, h.hook("A1", "codex", claudeHook("SessionStart", "x", "source", "resume")))
			h.expect("ready/session_start/hook.session_start")
		}},
		{"codex: a turn that outlives its closed tab is back, tabless, and done; a new turn is a resume", func(h *harness) {
			// Codex 0.169 runs the turn in its background server: the tab
			// closes mid-turn, the turn goes on and finishes there
			// (codex.turn_outlived_tab).
			h.line(codex, "x", `{"timestamp":"t","type":"session_meta","payload":{"id":"x","cwd":"/w/app","cli_version":"0.169.0"}}`, false)
			h.line(codex, "x", xEvent("task_started", `,"turn_id":"t1"`), false)
			must(h.t, h.hook("A1", "codex", claudeHook("UserPromptSubmit", "x", "turn_id", "t1")))
			if _, err := h.r.TabClosed(h.ctx, "A1"); err != nil {
				h.t.Fatal(err)
			}
			h.line(codex, "x", `{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"late"}]}}`, false)
			h.line(codex, "x", `{"timestamp":"t","type":"token_usage_record","payload":{"turn_id":"t1"}}`, false)
			// The server's hooks no longer name the tab: the wrap that set
			// LOGWATCH_TAB is not their ancestor any more (proxy.TabFromEnv).
			must(h.t, h.hook("", "codex", claudeHook("PostToolUse", "x", "turn_id", "t1", "tool_name", "Bash", "tool_input", `{"command":"ls"}`)))
			must(h.t, h.hook("", "codex", claudeHook("Stop", "x", "turn_id", "t1")))
			h.line(codex, "x", xEvent("task_complete", `,"turn_id":"t1"`), false)
			h.expect("working/prompt/log.turn_start", "working/prompt/hook.tab", "ended/tab_closed/api.tab_closed",
				"working/resumed/log.turn_outlived_tab", "working/tool/hook.post_tool", "done/turn_end/hook.stop")
			if st := h.state("x"); st.Tab != "" {
				h.t.Fatalf("the outlived turn is shown in its closed tab %q", st.Tab)
			}
			// The server stopping ends it again: it came back, so once more.
			must(h.t, h.hook("", "codex", claudeHook("SessionEnd", "x")))
			h.expect("ended/session_end/hook.session_end")
			// `codex resume` in a new tab: its first prompt starts a turn.
			h.line(codex, "x", xEvent("thread_settings_applied", ""), false)
			h.line(codex, "x", xEvent("task_started", `,"turn_id":"t2"`), false)
			h.expect("ready/resumed/log.session_resumed", "working/prompt/log.turn_start")
			if st := h.state("x"); st.Tab != "" {
				h.t.Fatalf("the resumed session is shown in its closed tab %q", st.Tab)
			}
		}},
		{"claude: SessionStart with a stale open turn is ready", func(h *harness) {
			// A killed process left its turn open; --continue starts afresh.
			h.line(claude, "s", cPrompt("s", "SLOW then kill"), false)
			must(h.t, h.hook("", "claude", claudeHook("SessionStart", "s", "source", "resume")))
			h.expect("working/prompt/log.turn_start", "ready/session_start/hook.session_start")
		}},
		{"a subagent's permission prompt needs the user; its tool run clears it", func(h *harness) {
			must(h.t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
			must(h.t, h.hook("", "claude", claudeHook("Notification", "s", "agent_id", "a1", "notification_type", "permission_prompt", "message", "Allow Bash?")))
			must(h.t, h.hook("", "claude", claudeHook("PostToolUse", "s", "agent_id", "a1", "tool_name", "Bash", "tool_input", bash)))
			h.expect("working/prompt/hook.prompt", "waiting/permission/hook.subagent_wait", "working/tool/hook.subagent_resumed")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(newHarness(t, Config{}))
		})
	}
}

// TestCodexPhantom: a Codex 0.169 rollout holding only session_meta (the
// background server flushed it for a TUI that never got a prompt) is not a
// row, live or bootstrapped; it becomes one with its first turn or hook.
// Older Codex writes the rollout at start, so its new log is announced.
func TestCodexPhantom(t *testing.T) {
	meta := func(id, version string) string {
		return fmt.Sprintf(`{"timestamp":"t","type":"session_meta","payload":{"id":%q,"cwd":"/w/app","cli_version":%q}}`, id, version)
	}
	rows := func(h *harness) []string {
		var ids []string
		for _, s := range h.sync().Sessions {
			ids = append(ids, s.Session)
		}
		return ids
	}
	h := newHarness(t, Config{})
	h.line(codex, "boot", meta("boot", "0.169.0"), true)
	h.r.BootstrapDone()
	h.line(codex, "live", meta("live", "0.169.0"), false)
	h.line(codex, "live", `{"timestamp":"t","type":"turn_context","payload":{"cwd":"/w/app"}}`, false)
	h.line(codex, "old", meta("old", "0.147.0"), false)
	h.expect("ready/session_start/log.new_session")
	if got := strings.Join(rows(h), ","); got != "old" {
		t.Fatalf("rows %q, want only the 0.147 session", got)
	}
	sub, err := h.r.Subscribe(h.ctx)
	must(t, err)
	if ev := <-sub.C(); ev.Session != "old" || !ev.Snapshot {
		t.Fatalf("snapshot %+v", ev)
	}
	select {
	case ev := <-sub.C():
		t.Fatalf("a phantom in the snapshot: %+v", ev)
	default:
	}
	// The first turn makes it a row, in one change; a hook does too.
	h.line(codex, "live", xEvent("task_started", `,"turn_id":"t1"`), false)
	must(t, h.hook("", "codex", claudeHook("SessionStart", "boot", "source", "resume")))
	h.expect("working/prompt/log.turn_start", "ready/session_start/hook.session_start")
	if got := strings.Join(rows(h), ","); got != "boot,live,old" {
		t.Fatalf("rows %q", got)
	}
}

// TestCodexPhantomEnd: stopping Codex 0.169's background server fires
// SessionEnd for a TUI that never got a prompt, beside the session_meta-only
// rollout it flushes for it (in either order). Nothing was ever shown about
// that session, so its end is not news either: no change, no row.
func TestCodexPhantomEnd(t *testing.T) {
	meta := func(id string) string {
		return fmt.Sprintf(`{"timestamp":"t","type":"session_meta","payload":{"id":%q,"cwd":"/w/app","cli_version":"0.169.0"}}`, id)
	}
	h := newHarness(t, Config{})
	h.line(codex, "a", meta("a"), false)
	must(t, h.hook("T1", "codex", claudeHook("SessionEnd", "a", "reason", "other")))
	must(t, h.hook("T2", "codex", claudeHook("SessionEnd", "b", "reason", "other")))
	h.line(codex, "b", meta("b"), false)
	h.expect()
	if st := h.sync(); len(st.Sessions) != 0 {
		t.Fatalf("rows for sessions nothing showed: %+v", st.Sessions)
	}
	// A session that was shown still ends.
	h.line(codex, "c", meta("c"), false)
	h.line(codex, "c", xEvent("task_started", `,"turn_id":"t1"`), false)
	must(t, h.hook("", "codex", claudeHook("SessionEnd", "c", "reason", "other")))
	h.expect("working/prompt/log.turn_start", "ended/session_end/hook.session_end")
}

// TestNestedAgents: a tab is bound to the first conversation reporting from
// it; another conversation's reports on that tab are dropped and counted,
// until the bound one ends.
func TestNestedAgents(t *testing.T) {
	h := newHarness(t, Config{})
	must(t, h.hook("tab1", "claude", claudeHook("UserPromptSubmit", "outer")))
	must(t, h.hook("tab1", "claude", claudeHook("SessionStart", "nested", "source", "startup")))
	must(t, h.hook("tab1", "claude", claudeHook("Stop", "nested")))
	h.expect("working/prompt/hook.prompt")
	if st := h.sync(); st.Counters.HooksDropped != 2 || len(st.Sessions) != 1 {
		t.Fatalf("dropped %d, sessions %d", st.Counters.HooksDropped, len(st.Sessions))
	}
	// /clear: the bound conversation ends, the next one takes the tab.
	must(t, h.hook("tab1", "claude", claudeHook("SessionEnd", "outer", "reason", "clear")))
	must(t, h.hook("tab1", "claude", claudeHook("SessionStart", "fresh", "source", "clear")))
	h.expect("ended/session_end/hook.session_end", "ready/session_start/hook.session_start")
	if e := h.state("fresh"); e.Tab != "tab1" {
		t.Fatalf("fresh session tab %q", e.Tab)
	}
	// Codex 0.169's shared server stopping ends every TUI's thread, each
	// SessionEnd with the first tab's LOGWATCH_TAB: the bound one ended,
	// another conversation's end does not take its tab.
	must(t, h.hook("tab2", "codex", claudeHook("UserPromptSubmit", "x1")))
	must(t, h.hook("", "codex", claudeHook("UserPromptSubmit", "x2")))
	must(t, h.hook("tab2", "codex", claudeHook("SessionEnd", "x1")))
	must(t, h.hook("tab2", "codex", claudeHook("SessionEnd", "x2")))
	h.expect("working/prompt/hook.prompt", "working/prompt/hook.prompt", "ended/session_end/hook.session_end", "ended/session_end/hook.session_end")
	if e := h.state("x2"); e.Tab != "" {
		t.Fatalf("the second conversation took the ended one's tab %q", e.Tab)
	}
}

// TestLogAndHookDedupe: whichever source reports a transition first wins;
// the other's duplicate is absorbed, and a lagging log never flaps a newer
// state.
func TestLogAndHookDedupe(t *testing.T) {
	h := newHarness(t, Config{})
	must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
	h.line(claude, "s", cPrompt("s", "first"), false)
	h.line(claude, "s", cFinal("s"), false)
	must(t, h.hook("", "claude", claudeHook("Stop", "s")))
	// The next prompt's hook beats the previous turn's turn_duration.
	must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
	h.line(claude, "s", cTurnDuration("s", 0), false)
	h.line(claude, "s", cPrompt("s", "second"), false)
	h.line(claude, "s", cFinal("s"), false)
	h.line(claude, "s", cTurnDuration("s", 0), false) // the log wins this end
	must(t, h.hook("", "claude", claudeHook("Stop", "s")))
	h.expect("working/prompt/hook.prompt", "done/turn_end/hook.stop", "working/prompt/hook.prompt", "done/turn_end/log.turn_end")
	// A lagging final line after Stop does not put a spinner back.
	h.line(claude, "s", cFinal("s"), false)
	h.expect()
}

// TestLogOnly: sessions without hooks are driven by their logs alone.
func TestLogOnly(t *testing.T) {
	h := newHarness(t, Config{TurnQuiet: 3 * time.Second})
	h.line(claude, "s", cPrompt("s", "hi"), false)
	h.line(claude, "s", cFinal("s"), false)
	h.expect("working/prompt/log.turn_start")
	h.clock.Advance(2 * time.Second)
	h.expect()
	h.clock.Advance(2 * time.Second)
	h.expect("done/turn_end/log.quiet_after_final")
	h.line(claude, "s", cPrompt("s", "again"), false)
	h.line(claude, "s", cMarker("s", false), false)
	h.expect("working/prompt/log.turn_start", "ready/interrupted/log.interrupt")

	x := "x1"
	h.line(codex, x, xEvent("task_started", `,"turn_id":"t1"`), false)
	h.line(codex, x, xEvent("user_message", `,"message":"go"`), false)
	h.line(codex, x, xEvent("task_complete", `,"turn_id":"t1"`), false)
	h.expect("working/prompt/log.turn_start", "done/turn_end/log.turn_end")
	if e := h.state("s"); e.Cwd != "/w/app" || e.Agent != "claude" {
		t.Fatalf("identity from the log: %+v", e)
	}
}

// TestBootstrap: history read at start-up builds state without publishing
// historic transitions; an old marker does not count as a live interrupt.
func TestBootstrap(t *testing.T) {
	h := newHarness(t, Config{})
	h.line(claude, "s", cPrompt("s", "old"), true)
	h.line(claude, "s", cMarker("s", false), true)
	h.line(claude, "s", cPrompt("s", "older still running"), true)
	h.expect()
	if st := h.state("s").State; st != "working" {
		t.Fatalf("bootstrapped state %s", st)
	}
	h.r.BootstrapDone()
	h.expect("working/prompt/log.turn_start")
	h.line(claude, "s", cMarker("s", false), false)
	h.expect("ready/interrupted/log.interrupt")
}

// A history that ends on a final message with no end record (SDK, 1.0.x,
// old Codex) ends its turn on quiet, at start-up too: at once when the
// message is older than the quiet period (published with the bootstrap, as
// verify says), else once the start-up's quiet period passes unless a new
// line comes first. Never working forever.
func TestBootstrapEndsOnQuiet(t *testing.T) {
	final := func(s, at string) string {
		if at == "" {
			return cFinal(s)
		}
		return strings.Replace(cFinal(s), `{"type":"assistant",`, `{"type":"assistant","timestamp":"`+at+`",`, 1)
	}
	tests := []struct {
		name   string
		at     string   // the final message's timestamp; the clock reads 2026-11-29T12:00:00Z
		boot   []string // published at BootstrapDone
		later  []string // after the quiet period
		prompt bool     // a new prompt comes before the quiet period ends
	}{
		{"an old final message ended the turn", "2026-11-29T11:00:00.000Z",
			[]string{"done/turn_end/log.quiet_after_final"}, nil, false},
		{"a recent one ends it after the quiet period", "2026-11-29T11:59:59.500Z",
			[]string{"working/prompt/log.turn_start"}, []string{"done/turn_end/log.quiet_after_final"}, false},
		{"without a timestamp too", "",
			[]string{"working/prompt/log.turn_start"}, []string{"done/turn_end/log.quiet_after_final"}, false},
		{"a new prompt first keeps it working", "",
			[]string{"working/prompt/log.turn_start"}, nil, true},
		{"an unparsable timestamp counts as none", "yesterday",
			[]string{"working/prompt/log.turn_start"}, []string{"done/turn_end/log.quiet_after_final"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Config{TurnQuiet: 3 * time.Second})
			h.line(claude, "s", cPrompt("s", "hi"), true)
			h.line(claude, "s", final("s", tt.at), true)
			h.r.BootstrapDone()
			h.expect(tt.boot...)
			h.clock.Advance(2 * time.Second)
			if tt.prompt {
				h.line(claude, "s", cPrompt("s", "more"), false)
			}
			h.expect()
			h.clock.Advance(2 * time.Second)
			h.expect(tt.later...)
			if tt.prompt {
				h.clock.Advance(10 * time.Second)
				h.expect()
				if st := h.state("s").State; st != "working" {
					t.Fatalf("state %s after a new prompt, want working", st)
				}
			}
		})
	}
}

func TestAckAndTabClosed(t *testing.T) {
	h := newHarness(t, Config{})
	must(t, h.hook("t1", "claude", claudeHook("UserPromptSubmit", "s")))
	must(t, h.hook("t1", "claude", claudeHook("Stop", "s")))
	must(t, h.r.Ack(h.ctx, "s"))
	must(t, h.r.Ack(h.ctx, "s")) // idempotent
	if err := h.r.Ack(h.ctx, "nope"); !errors.Is(err, ErrUnknownSession) {
		t.Fatalf("ack unknown: %v", err)
	}
	n, err := h.r.TabClosed(h.ctx, "t1")
	if err != nil || n != 1 {
		t.Fatalf("tab closed: %d %v", n, err)
	}
	h.expect("working/prompt/hook.prompt", "done/turn_end/hook.stop", "ready/acknowledged/api.ack", "ended/tab_closed/api.tab_closed")
}

// TestTabClosedCountsWhatItEnded: the answer counts the sessions the close
// ended, not one that had already ended in that tab.
func TestTabClosedCountsWhatItEnded(t *testing.T) {
	h := newHarness(t, Config{})
	must(t, h.hook("t1", "claude", claudeHook("UserPromptSubmit", "s")))
	must(t, h.hook("t1", "claude", claudeHook("SessionEnd", "s")))
	n, err := h.r.TabClosed(h.ctx, "t1")
	if err != nil || n != 0 {
		t.Fatalf("tab closed: %d %v", n, err)
	}
	h.expect("working/prompt/hook.prompt", "ended/session_end/hook.session_end")
}

func TestWorktreeAggregation(t *testing.T) {
	h := newHarness(t, Config{Worktrees: []string{"/w", "/w/app/", "/w/application"}})
	must(t, h.hook("", "claude", jsonObj("hook_event_name", "UserPromptSubmit", "session_id", "a", "cwd", "/w/app/sub")))
	must(t, h.hook("", "claude", jsonObj("hook_event_name", "Notification", "session_id", "b", "cwd", "/w/app", "notification_type", "permission_prompt")))
	must(t, h.hook("", "claude", jsonObj("hook_event_name", "UserPromptSubmit", "session_id", "c", "cwd", "/w/docs")))
	must(t, h.hook("", "claude", jsonObj("hook_event_name", "Stop", "session_id", "c", "cwd", "/w/docs")))
	st := h.sync()
	where := map[string]string{}
	for _, s := range st.Sessions {
		where[s.Session] = s.Worktree
	}
	if where["a"] != "/w/app" || where["b"] != "/w/app" || where["c"] != "/w" {
		t.Fatalf("worktrees %v", where)
	}
	rows := map[string]string{}
	for _, w := range st.Worktrees {
		rows[w.Path] = w.State
	}
	if rows["/w/app"] != "waiting" || rows["/w"] != "done" || rows["/w/application"] != "" {
		t.Fatalf("rows %v", rows)
	}
}

func TestBadHooks(t *testing.T) {
	h := newHarness(t, Config{})
	for _, p := range []string{`not json`, `[]`, `{"session_id":"s"}`, `{"hook_event_name":"Stop"}`, `{"hook_event_name":7,"session_id":"s"}`} {
		if err := h.hook("", "claude", p); err == nil {
			t.Errorf("%s: accepted", p)
		}
	}
	if err := h.hook("", "aider", claudeHook("Stop", "s")); err == nil || !strings.Contains(err.Error(), "unknown agent") {
		t.Errorf("unknown agent: %v", err)
	}
	if n := h.sync().Counters.BadRequests; n != 6 {
		t.Fatalf("bad requests = %d", n)
	}
	h.expect()
}

// TestSlowSubscriberCoalesced: a subscriber that stops reading is never
// dropped; past the backlog it gets the latest change of each session that
// changed, marked resync, and then live changes again.
func TestSlowSubscriberCoalesced(t *testing.T) {
	h := newHarness(t, Config{Backlog: 4})
	slow, err := h.r.Subscribe(h.ctx)
	must(t, err)
	for i := 0; i < 10; i++ {
		must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
		must(t, h.hook("", "claude", claudeHook("Stop", "s")))
		must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", "t")))
		h.changes() // the harness's own subscriber keeps up
	}
	var got []string
	for len(slow.C()) > 0 {
		ev := <-slow.C()
		got = append(got, ev.Session+" "+ev.State)
	}
	select {
	case <-slow.More():
	default:
		t.Fatal("More did not fire")
	}
	for _, ev := range slow.Resync() {
		if !ev.Resync {
			t.Fatalf("coalesced change not marked: %+v", ev)
		}
		got = append(got, "resync "+ev.Session+" "+ev.State)
	}
	want := "s working|s done|t working|s working|resync s done"
	if strings.Join(got, "|") != want {
		t.Fatalf("slow subscriber got\n %s\nwant\n %s", strings.Join(got, "|"), want)
	}
	// Caught up: live again.
	must(t, h.hook("", "claude", claudeHook("Stop", "t")))
	h.sync()
	if ev := <-slow.C(); ev.Resync || ev.Session != "t" || ev.State != "done" {
		t.Fatalf("after resync: %+v", ev)
	}
	if n := h.sync().Counters.SubscriberResyncs; n != 1 {
		t.Fatalf("resyncs = %d", n)
	}
}

func TestSnapshot(t *testing.T) {
	h := newHarness(t, Config{})
	must(t, h.hook("t", "claude", claudeHook("UserPromptSubmit", "s")))
	h.sync()
	sub, err := h.r.Subscribe(h.ctx)
	must(t, err)
	ev := <-sub.C()
	if !ev.Snapshot || ev.Session != "s" || ev.State != "working" || ev.Tab != "t" || ev.Seq != 1 {
		t.Fatalf("snapshot %+v", ev)
	}
	sub.Cancel()
}

func TestFollowsTranscriptPath(t *testing.T) {
	h := newHarness(t, Config{Roots: []string{"/logs"}})
	must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
	must(t, h.hook("", "claude", claudeHook("Stop", "s")))
	h.sync()
	h.follow.mu.Lock()
	defer h.follow.mu.Unlock()
	if len(h.follow.follows) != 1 || h.follow.follows[0] != "/logs/s.jsonl" {
		t.Fatalf("follows %v", h.follow.follows)
	}
}

func TestWorktreeMatch(t *testing.T) {
	wts := []string{"/", "/home/u/src", "/home/u/src/app", "/home/u/src/app2"}
	tests := map[string]string{
		"/home/u/src/app":        "/home/u/src/app",
		"/home/u/src/app/x/y":    "/home/u/src/app",
		"/home/u/src/app2":       "/home/u/src/app2",
		"/home/u/src/applesauce": "/home/u/src",
		"/etc":                   "/",
	}
	for cwd, want := range tests {
		if got := Worktree(wts, cwd); got != want {
			t.Errorf("%s: %s, want %s", cwd, got, want)
		}
	}
	if got := Worktree([]string{"/a"}, "/b"); got != "" {
		t.Errorf("unregistered: %q", got)
	}
}

// TestHistoryAfterStartUp: history read after start-up (a session database
// moved in) is settled and published at once when it comes a line at a
// time, but once, after its last line, when its lines say more follows
// (BootMore): a finished turn is one bootstrap change, not a working then
// a done (issue 32 item 9: a database of 200 recent sessions published 12
// changes each). A line at a time, a line that changes nothing publishes
// nothing (the final answer after the prompt).
func TestHistoryAfterStartUp(t *testing.T) {
	for _, together := range []bool{false, true} {
		t.Run(map[bool]string{false: "a line at a time", true: "together"}[together], func(t *testing.T) {
			h := newHarness(t, Config{})
			h.r.BootstrapDone()
			h.expect()
			lines := []string{cPrompt("s", "old"), cFinal("s"), cTurnDuration("s", 0)}
			p := parsers.New(claude)
			var off int64
			for i, l := range lines {
				ev, err := p.Parse([]byte(l))
				h.r.Log(LogLine{Path: "/logs/s.jsonl", Session: "s", Agent: claude, Offset: off, End: off + int64(len(l)) + 1,
					Evidence: ev, Malformed: err != nil, Bootstrap: true, BootMore: together && i < len(lines)-1, Raw: []byte(l)})
				off += int64(len(l)) + 1
			}
			h.sync()
			if together {
				h.expect("done/turn_end/log.turn_end")
			} else {
				h.expect("working/prompt/log.turn_start", "done/turn_end/log.turn_end")
			}
		})
	}
}

// TestHookedSessionHistoryOnce: a session its SessionStart hook announced,
// whose log the watcher then read as history a line at a time (a log the
// hook named once it existed: Gemini CLI 0.61.0's new chat file, in a
// CI-like run, before the watcher read such a file live), is not published
// again for lines that change nothing: that run published the hook's
// ready/session_start three times.
func TestHookedSessionHistoryOnce(t *testing.T) {
	h := newHarness(t, Config{})
	h.r.BootstrapDone()
	must(t, h.hook("T3", "gemini", jsonObj("session_id", "g", "cwd", "/w", "hook_event_name", "SessionStart", "source", "startup")))
	h.expect("ready/session_start/hook.session_start")
	h.line("gemini", "g", `{"sessionId":"g","projectHash":"28242e51","startTime":"2026-12-05T08:48:13.558Z","lastUpdated":"2026-12-05T08:48:13.558Z","kind":"main"}`, true)
	h.line("gemini", "g", `{"$set":{"messages":[{"id":"d049","timestamp":"2026-12-05T08:48:13.558Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI.\n</session_context>"}]}],"lastUpdated":"2026-12-05T08:48:13.558Z"}}`, true)
	h.expect()
	if e := h.state("g"); e.State != "ready" || e.Tab != "T3" {
		t.Fatalf("%+v, want ready in T3", e)
	}
}
