package opencode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers/hookmodule/moduletest"
)

// Session ids as OpenCode makes them: a root, its child (the task tool's
// subagent) and the child's own child.
const (
	sesA = "ses_dc926c907ffeO5frdjMwywcUB7"
	sesC = "ses_dc926b1c2ffeAbCdEfGhIjKlMn"
	sesG = "ses_dc926a0b1ffeZyXwVuTsRqPoNm"
)

// step is one thing OpenCode hands the plugin: a bus event (its event
// hook) or a named hook with its input and output.
type step struct {
	Event  map[string]any `json:"event,omitempty"`
	Hook   string         `json:"hook,omitempty"`
	Input  map[string]any `json:"input,omitempty"`
	Output map[string]any `json:"output,omitempty"`
}

type obj = map[string]any

func ev(typ string, props obj) step { return step{Event: obj{"type": typ, "properties": props}} }
func hook(name string, input, output obj) step {
	return step{Hook: name, Input: input, Output: output}
}

// The bus events and hooks of formats/opencode.md §4.2–4.3, shortened to
// the fields the plugin reads (and some it must ignore).
func created(id, parent, dir string) step {
	info := obj{"id": id, "slug": "hidden-tiger", "directory": dir, "title": "New session"}
	if parent != "" {
		info["parentID"] = parent
	}
	return ev("session.created", obj{"sessionID": id, "info": info})
}
func chat(id string) step {
	return hook("chat.message", obj{"sessionID": id, "agent": "build", "model": obj{"providerID": "fake", "modelID": "fake-model"}}, obj{})
}
func status(id, typ string) step {
	return ev("session.status", obj{"sessionID": id, "status": obj{"type": typ}})
}
func idle(id string) step { return ev("session.idle", obj{"sessionID": id}) }
func errored(id, name string) step {
	return ev("session.error", obj{"sessionID": id, "error": obj{"name": name, "data": obj{"message": "Aborted"}}})
}
func toolBefore(id, tool, call string, args obj) step {
	return hook("tool.execute.before", obj{"tool": tool, "sessionID": id, "callID": call}, obj{"args": args})
}
func toolAfter(id, tool, call string, args obj) step {
	return hook("tool.execute.after", obj{"tool": tool, "sessionID": id, "callID": call, "args": args}, obj{"title": "", "output": "ok", "metadata": obj{}})
}
func asked(id, perm, req string, patterns []string, metadata obj) step {
	return ev("permission.asked", obj{"id": req, "sessionID": id, "permission": perm, "patterns": patterns,
		"metadata": metadata, "always": []string{"touch *"}, "tool": obj{"messageID": "msg_1", "callID": "call_1"}})
}
func replied(id, req, reply string) step {
	return ev("permission.replied", obj{"sessionID": id, "requestID": req, "reply": reply})
}

// noise is what comes between the steps that matter: none of it is a hook.
func noise(id string) []step {
	return []step{
		ev("message.updated", obj{"sessionID": id, "info": obj{"id": "msg_1", "role": "assistant", "time": obj{"created": 1}}}),
		ev("message.part.updated", obj{"sessionID": id, "part": obj{"type": "text", "text": ""}}),
		ev("message.part.delta", obj{"sessionID": id, "messageID": "msg_1", "partID": "prt_1", "field": "text", "delta": "Hello "}),
		ev("session.updated", obj{"sessionID": id, "info": obj{"id": id}}),
		ev("session.diff", obj{"sessionID": id, "diff": []any{}}),
		ev("plugin.added", obj{"id": "openai-compatible"}),
		ev("catalog.updated", obj{}),
	}
}

func seq(parts ...any) []step {
	var out []step
	for _, p := range parts {
		switch p := p.(type) {
		case step:
			out = append(out, p)
		case []step:
			out = append(out, p...)
		}
	}
	return out
}

var bash = obj{"command": "touch asked.txt", "description": "Creates a file"}

// TestPlugin runs the plugin logwatch writes in bun (OpenCode's runtime)
// against a fake OpenCode that feeds it the event sequences measured on
// 1.18.33, and checks the hooks it sends: one line per hook, as `Event
// session field=value…` (cwd only when it is not the plugin's directory).
func TestPlugin(t *testing.T) {
	moduletest.Bun(t)
	fake, err := filepath.Abs("testdata/plugin/logwatch")
	if err != nil {
		t.Fatal(err)
	}
	drive, err := os.ReadFile("testdata/plugin/drive.ts")
	if err != nil {
		t.Fatal(err)
	}
	src := plugin.Source(fake)
	abort := errored(sesA, "MessageAbortedError")
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{{
		name: "prompt",
		steps: seq(created(sesA, "", "/w"), chat(sesA), noise(sesA), status(sesA, "busy"), noise(sesA),
			status(sesA, "busy"), status(sesA, "idle"), idle(sesA), noise(sesA)),
		want: []string{"SessionStart " + sesA + " source=startup", "UserPromptSubmit " + sesA, "Stop " + sesA},
	}, {
		name:  "session_directory",
		steps: seq(created(sesA, "", "/p"), chat(sesA), idle(sesA)),
		want:  []string{"SessionStart " + sesA + " cwd=/p source=startup", "UserPromptSubmit " + sesA + " cwd=/p", "Stop " + sesA + " cwd=/p"},
	}, {
		// --continue: nothing of the session until its first prompt.
		name:  "resume",
		steps: seq(noise(sesA), chat(sesA), status(sesA, "busy"), status(sesA, "idle"), idle(sesA)),
		want:  []string{"SessionStart " + sesA + " source=resume", "UserPromptSubmit " + sesA, "Stop " + sesA},
	}, {
		name: "tool",
		steps: seq(created(sesA, "", "/w"), chat(sesA), status(sesA, "busy"),
			toolBefore(sesA, "bash", "call_1", obj{"command": "echo hi", "description": "Prints"}), noise(sesA),
			toolAfter(sesA, "bash", "call_1", obj{"command": "echo hi", "description": "Prints"}),
			status(sesA, "busy"), status(sesA, "idle"), idle(sesA)),
		want: []string{"SessionStart " + sesA + " source=startup", "UserPromptSubmit " + sesA,
			`PreToolUse ` + sesA + ` tool_input={"command":"echo hi"} tool_name=bash`,
			`PostToolUse ` + sesA + ` tool_input={"command":"echo hi"} tool_name=bash`, "Stop " + sesA},
	}, {
		name: "ask_approve",
		steps: seq(chat(sesA), toolBefore(sesA, "bash", "call_1", bash),
			asked(sesA, "bash", "per_1", []string{"touch asked.txt"}, obj{"command": "touch asked.txt"}), noise(sesA),
			replied(sesA, "per_1", "once"), toolAfter(sesA, "bash", "call_1", bash), idle(sesA)),
		want: []string{"SessionStart " + sesA + " source=resume", "UserPromptSubmit " + sesA,
			`PreToolUse ` + sesA + ` tool_input={"command":"touch asked.txt"} tool_name=bash`,
			`PermissionRequest ` + sesA + ` tool_input={"command":"touch asked.txt"} tool_name=bash`,
			`PostToolUse ` + sesA + ` tool_input={"command":"touch asked.txt"} tool_name=bash`,
			`PostToolUse ` + sesA + ` tool_input={"command":"touch asked.txt"} tool_name=bash`, "Stop " + sesA},
	}, {
		// Allow always, for a tool whose request has no detail field in its
		// metadata: its patterns say what it acts on.
		name: "ask_always_patterns",
		steps: seq(chat(sesA), asked(sesA, "edit", "per_2", []string{"src/a.go"}, obj{"filepath": "/w/src/a.go", "diff": "…"}),
			replied(sesA, "per_2", "always"), idle(sesA)),
		want: []string{"SessionStart " + sesA + " source=resume", "UserPromptSubmit " + sesA,
			`PermissionRequest ` + sesA + ` tool_input={"command":"src/a.go"} tool_name=edit`,
			`PostToolUse ` + sesA + ` tool_input={"command":"src/a.go"} tool_name=edit`, "Stop " + sesA},
	}, {
		// Reject (or a single Esc): the tool fails, the turn ends; the wait
		// stays until the Stop.
		name: "ask_reject",
		steps: seq(chat(sesA), toolBefore(sesA, "bash", "call_1", bash),
			asked(sesA, "bash", "per_1", []string{"touch asked.txt"}, obj{"command": "touch asked.txt"}),
			replied(sesA, "per_1", "reject"), noise(sesA), status(sesA, "idle"), idle(sesA)),
		want: []string{"SessionStart " + sesA + " source=resume", "UserPromptSubmit " + sesA,
			`PreToolUse ` + sesA + ` tool_input={"command":"touch asked.txt"} tool_name=bash`,
			`PermissionRequest ` + sesA + ` tool_input={"command":"touch asked.txt"} tool_name=bash`, "Stop " + sesA},
	}, {
		name: "question",
		steps: seq(chat(sesA), toolBefore(sesA, "question", "call_2", obj{"questions": []any{obj{"question": "Which color?"}}}),
			ev("question.asked", obj{"id": "que_1", "sessionID": sesA, "questions": []any{obj{"question": "Which color?", "header": "Color",
				"options": []any{obj{"label": "red"}}}}, "tool": obj{"messageID": "msg_1", "callID": "call_2"}}),
			ev("question.replied", obj{"sessionID": sesA, "requestID": "que_1", "answers": []any{[]any{"red"}}}),
			toolAfter(sesA, "question", "call_2", obj{}), idle(sesA)),
		want: []string{"SessionStart " + sesA + " source=resume", "UserPromptSubmit " + sesA,
			`PreToolUse ` + sesA + ` tool_input={} tool_name=question`,
			`Notification ` + sesA + ` message=Which color? notification_type=elicitation_dialog`,
			`PostToolUse ` + sesA + ` tool_name=question`,
			`PostToolUse ` + sesA + ` tool_input={} tool_name=question`, "Stop " + sesA},
	}, {
		name: "question_dismissed",
		steps: seq(chat(sesA), ev("question.asked", obj{"id": "que_1", "sessionID": sesA, "questions": []any{obj{"header": "Color"}}}),
			ev("question.rejected", obj{"sessionID": sesA, "requestID": "que_1"}), status(sesA, "idle"), idle(sesA)),
		want: []string{"SessionStart " + sesA + " source=resume", "UserPromptSubmit " + sesA,
			`Notification ` + sesA + ` message=Color notification_type=elicitation_dialog`,
			`PostToolUse ` + sesA + ` tool_name=question`, "Stop " + sesA},
	}, {
		// Esc Esc mid-stream: the error, then two idles; the interrupted
		// turn stays interrupted. The next prompt's turn ends as usual.
		name: "esc_streaming",
		steps: seq(chat(sesA), status(sesA, "busy"), noise(sesA), abort, status(sesA, "idle"), idle(sesA), noise(sesA),
			status(sesA, "idle"), idle(sesA), chat(sesA), status(sesA, "busy"), status(sesA, "idle"), idle(sesA)),
		want: []string{"SessionStart " + sesA + " source=resume", "UserPromptSubmit " + sesA, "Stop " + sesA + " is_interrupt=true",
			"UserPromptSubmit " + sesA, "Stop " + sesA},
	}, {
		// Esc Esc while a tool runs: the tool's end comes after the abort
		// and must not reopen the turn.
		name: "esc_tool",
		steps: seq(chat(sesA), toolBefore(sesA, "bash", "call_1", obj{"command": "sleep 9"}), abort, status(sesA, "idle"), idle(sesA),
			toolAfter(sesA, "bash", "call_1", obj{"command": "sleep 9"}), status(sesA, "idle"), idle(sesA)),
		want: []string{"SessionStart " + sesA + " source=resume", "UserPromptSubmit " + sesA,
			`PreToolUse ` + sesA + ` tool_input={"command":"sleep 9"} tool_name=bash`, "Stop " + sesA + " is_interrupt=true"},
	}, {
		name:  "provider_error",
		steps: seq(chat(sesA), errored(sesA, "APIError"), status(sesA, "idle"), idle(sesA), status(sesA, "idle"), idle(sesA)),
		want:  []string{"SessionStart " + sesA + " source=resume", "UserPromptSubmit " + sesA, "StopFailure " + sesA + " error=APIError"},
	}, {
		// A provider 500 retried, then stopped: no error, an idle.
		name:  "retry",
		steps: seq(chat(sesA), ev("session.status", obj{"sessionID": sesA, "status": obj{"type": "retry", "attempt": 1, "message": "fake 500 failure"}}), status(sesA, "idle"), idle(sesA)),
		want:  []string{"SessionStart " + sesA + " source=resume", "UserPromptSubmit " + sesA, "Stop " + sesA},
	}, {
		// /compact: no prompt hook; the compaction hook, its end, an idle.
		name:  "compact",
		steps: seq(created(sesA, "", "/w"), chat(sesA), idle(sesA), status(sesA, "busy"), hook("experimental.session.compacting", obj{"sessionID": sesA}, obj{"context": []any{}}), noise(sesA), ev("session.compacted", obj{"sessionID": sesA}), status(sesA, "busy"), status(sesA, "idle"), idle(sesA)),
		want: []string{"SessionStart " + sesA + " source=startup", "UserPromptSubmit " + sesA, "Stop " + sesA,
			"PreCompact " + sesA, "PostCompact " + sesA, "Stop " + sesA},
	}, {
		// The task tool's child session (and its own child) report on the
		// root as its subagents; their waits are the root's, as a
		// subagent's; their tools, errors and compactions are nothing.
		name: "subagent",
		steps: seq(created(sesA, "", "/w"), chat(sesA), toolBefore(sesA, "task", "call_3", obj{"description": "Look", "prompt": "look around", "subagent_type": "general"}),
			created(sesC, sesA, "/w"), ev("session.updated", obj{"sessionID": sesC, "info": obj{"id": sesC, "parentID": sesA}}),
			chat(sesC), status(sesC, "busy"), toolBefore(sesC, "bash", "call_4", bash),
			asked(sesC, "bash", "per_3", []string{"touch asked.txt"}, obj{"command": "touch asked.txt"}), replied(sesC, "per_3", "once"),
			toolAfter(sesC, "bash", "call_4", bash),
			created(sesG, sesC, "/w"), status(sesG, "idle"), idle(sesG),
			ev("question.asked", obj{"id": "que_2", "sessionID": sesC, "questions": []any{obj{"question": "Sure?"}}}),
			ev("question.replied", obj{"sessionID": sesC, "requestID": "que_2"}),
			errored(sesC, "APIError"), ev("session.compacted", obj{"sessionID": sesC}), hook("experimental.session.compacting", obj{"sessionID": sesC}, obj{}),
			status(sesC, "idle"), idle(sesC), idle(sesC),
			toolAfter(sesA, "task", "call_3", obj{"description": "Look"}), status(sesA, "idle"), idle(sesA)),
		want: []string{"SessionStart " + sesA + " source=startup", "UserPromptSubmit " + sesA,
			`PreToolUse ` + sesA + ` tool_input={} tool_name=task`,
			"SubagentStart " + sesA + " agent_id=" + sesC,
			`PermissionRequest ` + sesA + ` agent_id=` + sesC + ` tool_input={"command":"touch asked.txt"} tool_name=bash`,
			`PostToolUse ` + sesA + ` agent_id=` + sesC + ` tool_input={"command":"touch asked.txt"} tool_name=bash`,
			"SubagentStart " + sesA + " agent_id=" + sesG,
			"SubagentStop " + sesA + " agent_id=" + sesG,
			`Notification ` + sesA + ` agent_id=` + sesC + ` message=Sure? notification_type=elicitation_dialog`,
			`PostToolUse ` + sesA + ` agent_id=` + sesC,
			"SubagentStop " + sesA + " agent_id=" + sesC,
			`PostToolUse ` + sesA + ` tool_input={} tool_name=task`, "Stop " + sesA},
	}, {
		// A deleted session ends; a later idle of it is nothing.
		name:  "deleted",
		steps: seq(created(sesA, "", "/p"), chat(sesA), idle(sesA), ev("session.deleted", obj{"sessionID": sesA, "info": obj{"id": sesA}}), idle(sesA)),
		want: []string{"SessionStart " + sesA + " cwd=/p source=startup", "UserPromptSubmit " + sesA + " cwd=/p", "Stop " + sesA + " cwd=/p",
			"SessionEnd " + sesA + " cwd=/p reason=deleted"},
	}, {
		// What carries no session, or is not a session's at all, or is
		// shaped wrong, sends nothing and throws nothing into OpenCode.
		name: "nothing",
		steps: seq(noise(sesA), idle(sesA), ev("session.error", obj{"sessionID": sesA}), ev("session.idle", obj{}),
			step{Event: obj{"type": "session.created", "properties": nil}}, step{Event: obj{}},
			ev("permission.replied", obj{"sessionID": sesA, "requestID": "per_9", "reply": "reject"}),
			hook("chat.message", obj{}, obj{}), hook("tool.execute.before", obj{"tool": "bash"}, obj{}),
			toolBefore(sesA, "bash", "call_1", bash), toolAfter(sesA, "bash", "call_1", bash),
			hook("experimental.session.compacting", obj{}, obj{})),
		want: nil,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			steps, err := json.Marshal(tc.steps)
			if err != nil {
				t.Fatal(err)
			}
			hooks, _ := moduletest.Run(t, map[string][]byte{"plugin.ts": src, "drive.ts": drive, "steps.json": steps},
				"STEPS=steps.json", fmt.Sprintf("WANT=%d", len(tc.want)))
			got := readHooks(t, hooks)
			if !slices.Equal(got, tc.want) {
				t.Errorf("hooks:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// readHooks reads the fake logwatch's runs as `Event session key=value…`.
func readHooks(t *testing.T, hooks []moduletest.Hook) []string {
	t.Helper()
	var out []string
	for _, h := range hooks {
		if h.Args != "hook --agent opencode --detached" {
			t.Fatalf("the hook client was run as %q", h.Args)
		}
		body := h.Payload
		var p map[string]json.RawMessage
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatalf("payload %q: %v", body, err)
		}
		var event, session, cwd string
		json.Unmarshal(p["hook_event_name"], &event)
		json.Unmarshal(p["session_id"], &session)
		json.Unmarshal(p["cwd"], &cwd)
		if string(p["transcript_path"]) != `""` {
			t.Errorf("payload %s names a transcript", body)
		}
		var fields []string
		if cwd != "/w" {
			fields = append(fields, "cwd="+cwd)
		}
		for k, v := range p {
			switch k {
			case "hook_event_name", "session_id", "cwd", "transcript_path":
				continue
			}
			var s string
			if json.Unmarshal(v, &s) != nil {
				s = string(bytes.TrimSpace(v))
			}
			fields = append(fields, k+"="+s)
		}
		slices.Sort(fields)
		out = append(out, strings.Join(append([]string{event, session}, fields...), " "))
	}
	return out
}

func TestIsSessionID(t *testing.T) {
	for id, want := range map[string]bool{
		sesA: true, sesC: true, "ses_short": false, "ses_dc926c907ffeO5frdjMwywcUB-": false,
		"xyz_dc926c907ffeO5frdjMwywcUB7": false, "6a8b1c2d-0000-4000-8000-000000000000": false, "": false,
	} {
		if got := IsSessionID(id); got != want {
			t.Errorf("IsSessionID(%q) = %v", id, got)
		}
	}
}

func TestPluginSource(t *testing.T) {
	src := plugin.Source("/usr/local/bin/logwatch")
	ext := Spec().Hooks.Extension
	if bin, ours := ext.BinOf(src); !ours || bin != "/usr/local/bin/logwatch" {
		t.Fatalf("BinOf = %q, %v", bin, ours)
	}
	if !bytes.HasPrefix(src, []byte("// logwatch: opencode plugin")) || !bytes.Contains(src, []byte(`const AGENT = "opencode";`)) ||
		bytes.Contains(src, []byte("__LOGWATCH_")) {
		t.Fatalf("plugin:\n%s", src)
	}
}
