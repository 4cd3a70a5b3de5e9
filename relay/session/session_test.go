package session

import (
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/parsers/codex"
)

// step is one piece of evidence, or quiet, and the state expected after it.
type step struct {
	ev    parsers.Evidence
	quiet bool
	state State
	rule  string // expected rule of the change; "" means no change
}

var (
	prompt     = parsers.Evidence{Kind: parsers.KindTurnStart}
	codexStart = parsers.Evidence{Kind: parsers.KindTurnStart, Explicit: true}
	userMsg    = parsers.Evidence{Kind: parsers.KindPrompt}
	text       = parsers.Evidence{Kind: parsers.KindActivity}
	final      = parsers.Evidence{Kind: parsers.KindActivity, Final: true}
	bash       = parsers.Evidence{Kind: parsers.KindTool, Tool: "Bash", ToolInput: []byte(`{"command":"go test ./..."}`)}
	turnEnd    = parsers.Evidence{Kind: parsers.KindTurnEnd, End: parsers.EndNormal}
	codexEnd   = parsers.Evidence{Kind: parsers.KindTurnEnd, End: parsers.EndNormal, Explicit: true}
	apiError   = parsers.Evidence{Kind: parsers.KindTurnEnd, End: parsers.EndAPIError}
	interrupt  = parsers.Evidence{Kind: parsers.KindInterrupt, Interrupt: parsers.InterruptUser}
	hint       = parsers.Evidence{Kind: parsers.KindInterruptHint}
	compaction = parsers.Evidence{Kind: parsers.KindCompaction}
	sidechain  = parsers.Evidence{Kind: parsers.KindSidechain}
	dialog     = parsers.Evidence{Kind: parsers.KindWait, Wait: ReasonPermission, Tool: "bash", ToolInput: []byte(`{"command":"touch a"}`)}
	approved   = parsers.Evidence{Kind: parsers.KindAnswered, Tool: "bash", ToolInput: []byte(`{"command":"touch a"}`)}
	touch      = parsers.Evidence{Kind: parsers.KindTool, Tool: "bash", ToolInput: []byte(`{"command":"touch a"}`)}
	meta       = parsers.Evidence{Kind: parsers.KindNone}
	quiet      = step{quiet: true}
)

func pendingEnd(n int) parsers.Evidence {
	return parsers.Evidence{Kind: parsers.KindTurnEnd, End: parsers.EndNormal, HasPending: true, PendingAgents: n}
}

func at(ev parsers.Evidence, st State, rule string) step { return step{ev: ev, state: st, rule: rule} }
func quietTo(st State, rule string) step                 { return step{quiet: true, state: st, rule: rule} }

func TestFold(t *testing.T) {
	tests := []struct {
		name  string
		agent parsers.Agent
		steps []step
	}{
		{"claude turn", claude.Name, []step{
			at(prompt, Working, "log.turn_start"),
			at(bash, Working, "log.tool"),
			at(final, Working, ""),
			at(turnEnd, Done, "log.turn_end"),
		}},
		{"interrupt is ready, never done", claude.Name, []step{
			at(prompt, Working, "log.turn_start"),
			at(text, Working, ""),
			at(interrupt, Ready, "log.interrupt"),
			quietTo(Ready, ""),
		}},
		{"api error keeps its reason through turn_duration", claude.Name, []step{
			at(prompt, Working, "log.turn_start"),
			at(apiError, Done, "log.turn_error"),
			at(turnEnd, Done, ""),
		}},
		{"background agents hold done back", claude.Name, []step{
			at(prompt, Working, "log.turn_start"),
			at(pendingEnd(3), Working, "log.subagents_pending"),
			at(prompt, Working, "log.turn_start"),
			at(pendingEnd(0), Done, "log.turn_end"),
		}},
		{"quiet after end_turn ends an SDK turn", claude.Name, []step{
			at(prompt, Working, "log.turn_start"),
			at(final, Working, ""),
			at(meta, Working, ""),
			quietTo(Done, "log.quiet_after_final"),
		}},
		{"quiet mid-response changes nothing", claude.Name, []step{
			at(prompt, Working, "log.turn_start"),
			at(text, Working, ""),
			quietTo(Working, ""),
		}},
		{"quiet after a tool call changes nothing", claude.Name, []step{
			at(prompt, Working, "log.turn_start"),
			at(final, Working, ""),
			at(bash, Working, "log.tool"),
			quietTo(Working, ""),
		}},
		{"claude output after done resumes work", claude.Name, []step{
			at(prompt, Working, "log.turn_start"),
			at(turnEnd, Done, "log.turn_end"),
			at(text, Working, "log.activity_resumes"),
		}},
		{"output after an interrupt does not revive", claude.Name, []step{
			at(prompt, Working, "log.turn_start"),
			at(interrupt, Ready, "log.interrupt"),
			at(text, Ready, ""),
		}},
		{"sidechain lines never drive the parent", claude.Name, []step{
			at(sidechain, Ready, ""),
			at(prompt, Working, "log.turn_start"),
			at(turnEnd, Done, "log.turn_end"),
			at(sidechain, Done, ""),
		}},
		{"compaction without PreCompact changes nothing", claude.Name, []step{
			at(prompt, Working, "log.turn_start"),
			at(compaction, Working, ""),
			at(turnEnd, Done, "log.turn_end"),
			at(compaction, Done, ""),
		}},
		{"codex explicit turn, steering and quiet", codex.Name, []step{
			at(codexStart, Working, "log.turn_start"),
			at(userMsg, Working, ""),
			at(final, Working, ""),
			at(userMsg, Working, ""), // steering inside the turn
			at(final, Working, ""),
			quietTo(Working, ""), // explicit files end only on task_complete
			at(codexEnd, Done, "log.turn_end"),
		}},
		{"codex interrupt hint then event", codex.Name, []step{
			at(codexStart, Working, "log.turn_start"),
			at(hint, Working, ""),
			at(parsers.Evidence{Kind: parsers.KindInterrupt, Interrupt: parsers.InterruptAborted}, Ready, "log.interrupt"),
		}},
		{"codex hint alone is not an interrupt", codex.Name, []step{
			at(codexStart, Working, "log.turn_start"),
			at(hint, Working, ""),
			quietTo(Working, ""),
		}},
		{"codex legacy: prompt opens, quiet ends, prompt after final is a new turn", codex.Name, []step{
			at(userMsg, Working, "log.prompt"),
			at(final, Working, ""),
			at(userMsg, Working, ""), // a new turn, but the same published state
			at(final, Working, ""),
			quietTo(Done, "log.quiet_after_final"),
		}},
		{"codex output after done does not revive", codex.Name, []step{
			at(codexStart, Working, "log.turn_start"),
			at(codexEnd, Done, "log.turn_end"),
			at(text, Done, ""),
		}},
		// Copilot CLI writes its approval dialog (permission.requested)
		// and the answer (permission.completed approved: the tool runs).
		{"a dialog in the log waits; its approval works on", "", []step{
			at(prompt, Working, "log.turn_start"),
			at(touch, Working, "log.tool"),
			at(dialog, Waiting, "log.wait"),
			at(text, Waiting, ""), // the round's end, a hook's echo: still waiting
			at(approved, Working, "log.wait_answered"),
			at(turnEnd, Done, "log.turn_end"),
		}},
		{"a dialog cancelled ends in the interrupt", "", []step{
			at(prompt, Working, "log.turn_start"),
			at(dialog, Waiting, "log.wait"),
			at(text, Waiting, ""),
			at(parsers.Evidence{Kind: parsers.KindInterrupt, Interrupt: parsers.InterruptAborted}, Ready, "log.interrupt"),
		}},
		{"the agent's end record ends it, once", "", []step{
			at(prompt, Working, "log.turn_start"),
			at(turnEnd, Done, "log.turn_end"),
			at(parsers.Evidence{Kind: parsers.KindEnd}, Ended, "log.session_end"),
			at(parsers.Evidence{Kind: parsers.KindEnd}, Ended, ""),
		}},
		{"a dialog outside a turn is an echo", "", []step{
			at(prompt, Working, "log.turn_start"),
			at(turnEnd, Done, "log.turn_end"),
			at(dialog, Done, ""),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.agent)
			for i, st := range tc.steps {
				var ch Change
				var changed bool
				if st.quiet {
					ch, changed = s.Quiet()
				} else {
					ch, changed = s.Log(st.ev)
				}
				if s.State != st.state {
					t.Fatalf("step %d: state %s, want %s", i, s.State, st.state)
				}
				switch {
				case st.rule == "" && changed:
					t.Fatalf("step %d: unexpected change %+v", i, ch)
				case st.rule != "" && !changed:
					t.Fatalf("step %d: no change, want rule %s", i, st.rule)
				case changed && (ch.Rule != st.rule || ch.State != st.state || ch.Source != SourceLog):
					t.Fatalf("step %d: change %+v, want %s by %s", i, ch, st.state, st.rule)
				}
			}
		})
	}
}

func TestCompactingEndsByTurn(t *testing.T) {
	// PreCompact arrives through the relay; the log's compaction line then
	// returns to working inside a turn and to done outside one.
	s := New(claude.Name)
	s.Log(prompt)
	s.State = Compacting
	if ch, ok := s.Log(compaction); !ok || ch.State != Working || ch.Rule != "log.compaction_in_turn" {
		t.Fatalf("in turn: %+v %v", ch, ok)
	}
	s.Log(turnEnd)
	s.State = Compacting
	if ch, ok := s.Log(compaction); !ok || ch.State != Done || ch.Rule != "log.compaction_outside_turn" {
		t.Fatalf("outside turn: %+v %v", ch, ok)
	}
}

// TestCompactionTurnStartAfterHook: Codex's /compact is a turn of its own
// whose PreCompact hook can arrive before the log's task_started: the turn
// opens still compacting (not working/prompt, which hid the compaction),
// the compacted line returns it to working and task_complete ends it.
func TestCompactionTurnStartAfterHook(t *testing.T) {
	s := New(codex.Name)
	s.ID = "c1"
	s.Log(codexStart)
	s.Log(turnEnd)
	if ch, ok := s.Hook(parsers.Hook{Event: "PreCompact", SessionID: "c1", Trigger: "manual"}); !ok || ch.State != Compacting {
		t.Fatalf("PreCompact: %+v %v", ch, ok)
	}
	if ch, ok := s.Log(codexStart); ok {
		t.Fatalf("the compaction's turn start changed %+v", ch)
	}
	if ch, ok := s.Log(compaction); !ok || ch.State != Working || ch.Rule != "log.compaction_in_turn" {
		t.Fatalf("compacted: %+v %v", ch, ok)
	}
	if ch, ok := s.Log(turnEnd); !ok || ch.State != Done || ch.Rule != "log.turn_end" {
		t.Fatalf("task_complete: %+v %v", ch, ok)
	}
}

func TestIdentityFirstWins(t *testing.T) {
	s := New(codex.Name)
	s.Log(parsers.Evidence{SessionID: "child", Cwd: "/c", AgentVersion: "1"})
	s.Log(parsers.Evidence{SessionID: "parent", Cwd: "/p", AgentVersion: "2"})
	if s.ID != "child" || s.Cwd != "/c" || s.AgentVersion != "1" {
		t.Fatalf("identity = %q %q %q", s.ID, s.Cwd, s.AgentVersion)
	}
}

func TestCompactionTrigger(t *testing.T) {
	s := New(codex.Name)
	if got := s.CompactionTrigger(compaction); got != "" {
		t.Fatalf("outside a turn: %q", got)
	}
	s.Log(codexStart)
	if got := s.CompactionTrigger(compaction); got != "manual" {
		t.Fatalf("turn without prompt (/compact): %q", got)
	}
	s.Log(userMsg)
	if got := s.CompactionTrigger(compaction); got != "auto" {
		t.Fatalf("prompted turn: %q", got)
	}
	if got := s.CompactionTrigger(parsers.Evidence{Kind: parsers.KindCompaction, Trigger: "manual"}); got != "manual" {
		t.Fatalf("logged trigger wins: %q", got)
	}
}

func TestToolDetailInChange(t *testing.T) {
	s := New(claude.Name)
	s.Log(parsers.Evidence{Cwd: "/w/app"})
	s.Log(prompt)
	ch, _ := s.Log(parsers.Evidence{Kind: parsers.KindTool, Tool: "Edit", ToolInput: []byte(`{"file_path":"/w/app/internal/x.go"}`)})
	if ch.Detail != "internal/x.go" || ch.Reason != ReasonTool {
		t.Fatalf("change %+v", ch)
	}
}

func TestUrgency(t *testing.T) {
	order := []State{Waiting, Working, Compacting, Done, Ready, Ended}
	for i := 1; i < len(order); i++ {
		if order[i-1].Urgency() <= order[i].Urgency() {
			t.Fatalf("%s must be more urgent than %s", order[i-1], order[i])
		}
	}
}

func TestToolDetail(t *testing.T) {
	const cwd = "/home/u/app"
	long := strings.Repeat("a", 250)
	tests := []struct {
		name, tool, input, want string
	}{
		{"command", "Bash", `{"command":"go test ./...","description":"run tests"}`, "go test ./..."},
		{"command wins over path", "X", `{"file_path":"/home/u/app/a.go","command":"make"}`, "make"},
		{"windows CommandLine", "run_command", `{"CommandLine":"dir /s","Cwd":"C:\\"}`, "dir /s"},
		{"codex cmd", "exec_command", `{"cmd":"rg TODO","yield_time_ms":1000}`, "rg TODO"},
		{"codex argv shell wrapper", "shell", `{"command":["bash","-lc","ls -la"]}`, "ls -la"},
		{"codex argv plain", "shell", `{"command":["git","status"]}`, "git status"},
		{"path inside cwd", "Edit", `{"file_path":"/home/u/app/cmd/main.go"}`, "cmd/main.go"},
		{"path outside cwd keeps base name", "Read", `{"file_path":"/etc/hosts"}`, "hosts"},
		{"sibling dir with common prefix is outside", "Read", `{"file_path":"/home/u/app2/x.go"}`, "x.go"},
		{"relative path", "Read", `{"path":"docs/a.md"}`, "docs/a.md"},
		{"filePath", "X", `{"filePath":"/home/u/app/b.ts"}`, "b.ts"},
		{"TargetFile", "X", `{"TargetFile":"/home/u/app/c.py"}`, "c.py"},
		{"url", "WebFetch", `{"url":"https://go.dev/doc","prompt":"summarize"}`, "https://go.dev/doc"},
		{"query", "WebSearch", `{"query":"fsnotify overflow"}`, "fsnotify overflow"},
		{"Query", "X", `{"Query":"q"}`, "q"},
		{"path wins over url", "X", `{"url":"https://x","path":"/home/u/app/y"}`, "y"},
		{"apply_patch update", "apply_patch", `{"command":"*** Begin Patch\n*** Update File: /home/u/app/src/lib.rs\n@@\n-a\n+b\n*** End Patch"}`, "src/lib.rs"},
		{"apply_patch add relative", "apply_patch", `{"command":"*** Begin Patch\n*** Add File: notes/new.md\n+hi\n*** End Patch"}`, "notes/new.md"},
		{"apply_patch delete", "apply_patch", `{"command":"*** Begin Patch\n*** Delete File: /tmp/old.txt\n*** End Patch"}`, "old.txt"},
		{"apply_patch without file", "apply_patch", `{"command":"*** Begin Patch\n*** End Patch"}`, ""},
		{"patch detected by content", "custom", `{"command":"*** Begin Patch\n*** Update File: a.go\n"}`, "a.go"},
		{"long command capped, not shortened", "Bash", `{"command":"` + long + `"}`, strings.Repeat("a", 199) + "…"},
		{"nothing fits", "TodoWrite", `{"todos":[]}`, ""},
		{"empty command falls through", "X", `{"command":"","path":"/home/u/app/z"}`, "z"},
		{"not an object", "X", `["ls"]`, ""},
		{"no input", "X", ``, ""},
		{"invalid json", "X", `{"command":`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ToolDetail(tc.tool, []byte(tc.input), cwd); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCap(t *testing.T) {
	s := strings.Repeat("é", 300)
	got := Cap(s)
	if n := len([]rune(got)); n != MaxText {
		t.Fatalf("capped to %d runes", n)
	}
	if Cap("short") != "short" {
		t.Fatal("short text changed")
	}
}

// TestRegistryStatus: the registry's status moves only a session without
// hooks, only inside a turn, and only waiting and the busy that ends it.
func TestRegistryStatus(t *testing.T) {
	inTurn := func() *Session {
		s := New(claude.Name)
		s.Log(prompt)
		s.Log(bash)
		return s
	}
	for _, c := range []struct {
		name       string
		s          func() *Session
		status, wf string
		want       string // state/reason/detail/rule, "" for no change
	}{
		{"waiting for permission", inTurn, RegistryWaiting, "permission prompt", "waiting/permission/permission prompt/registry.waiting"},
		{"waiting on a sandbox request", inTurn, RegistryWaiting, "sandbox request", "waiting/permission/sandbox request/registry.waiting"},
		{"waiting on a dialog", inTurn, RegistryWaiting, "dialog open", "waiting/question/dialog open/registry.waiting"},
		{"outside a turn", func() *Session { return New(claude.Name) }, RegistryWaiting, "permission prompt", ""},
		{"busy in a turn", inTurn, RegistryBusy, "", ""},
		{"idle in a turn", inTurn, RegistryIdle, "", ""},
		{"a newer word", inTurn, "thinking", "", ""},
		{"hooks report it", func() *Session {
			s := inTurn()
			s.Hook(parsers.Hook{Event: "UserPromptSubmit", SessionID: "s"})
			return s
		}, RegistryWaiting, "permission prompt", ""},
		{"busy after the wait: the tool goes on", func() *Session {
			s := inTurn()
			s.Registry(RegistryWaiting, "permission prompt")
			return s
		}, RegistryBusy, "", "working/tool/go test ./.../registry.busy_after_wait"},
		{"idle after the wait: the log ends it", func() *Session {
			s := inTurn()
			s.Registry(RegistryWaiting, "permission prompt")
			return s
		}, RegistryIdle, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch, ok := c.s().Registry(c.status, c.wf)
			got := ""
			if ok {
				got = strings.Join([]string{string(ch.State), ch.Reason, ch.Detail, ch.Rule}, "/")
				if ch.Source != SourceRegistry {
					t.Errorf("source %q", ch.Source)
				}
			}
			if got != c.want {
				t.Errorf("Registry(%s, %q) = %q, want %q", c.status, c.wf, got, c.want)
			}
		})
	}
}

// TestCompactionAfterFinalEndsTheRun: for an agent that compacts only
// between runs (pi), a compaction line that comes after the final answer,
// before the quiet period ran out, ends the run; for one that compacts
// inside turns (Claude Code) the turn goes on.
func TestCompactionAfterFinalEndsTheRun(t *testing.T) {
	for _, c := range []struct {
		agent parsers.Agent
		want  State
		rule  string
	}{
		{"pi", Done, "log.compaction_after_final"},
		{"claude", Working, ""},
	} {
		s := New(c.agent)
		s.ID = "s"
		s.Log(parsers.Evidence{Kind: parsers.KindTurnStart})
		s.Log(parsers.Evidence{Kind: parsers.KindActivity, Final: true})
		ch, ok := s.Log(parsers.Evidence{Kind: parsers.KindCompaction})
		if s.State != c.want || ok != (c.rule != "") || ch.Rule != c.rule {
			t.Errorf("%s: state %s, change %+v %v; want %s by %q", c.agent, s.State, ch, ok, c.want, c.rule)
		}
	}
}

// TestCompactionTurn: for an agent whose compaction is a turn of its own
// (OpenCode's /compact: a prompt, then the summary), the compaction's end
// ends the turn, whether a hook said compacting or the log alone tells;
// the plugin's PostCompact and Stop after it change nothing.
func TestCompactionTurn(t *testing.T) {
	for _, hooked := range []bool{false, true} {
		s := New("opencode")
		s.ID = "ses_1"
		s.Log(parsers.Evidence{Kind: parsers.KindTurnStart})
		if hooked {
			s.Hook(parsers.Hook{Event: "PreCompact", SessionID: "ses_1"})
		}
		ch, ok := s.Log(parsers.Evidence{Kind: parsers.KindCompaction})
		if !ok || s.State != Done || s.Reason != ReasonCompaction || ch.Rule != "log.compaction_turn" {
			t.Fatalf("hooked %v: %s/%s by %q (%v)", hooked, s.State, s.Reason, ch.Rule, ok)
		}
		for _, ev := range []string{"PostCompact", "Stop"} {
			if ch, ok := s.Hook(parsers.Hook{Event: ev, SessionID: "ses_1"}); ok {
				t.Fatalf("hooked %v: %s after the compaction's end changed %+v", hooked, ev, ch)
			}
		}
	}
}

// TestAnsweredWithHooks: Copilot's hooks say nothing between the approval
// and the tool's end (PostToolUse), so its log's approval moves the wait
// on, hooked or not; an approval of another dialog (a line read late) does
// not.
func TestAnsweredWithHooks(t *testing.T) {
	s := New("")
	for _, h := range []parsers.Hook{{Event: "UserPromptSubmit"}, {Event: "PreToolUse", ToolName: "bash", ToolInput: []byte(`{"command":"touch a"}`)},
		{Event: "PermissionRequest", ToolName: "bash", ToolInput: []byte(`{"command":"touch a"}`)}} {
		s.Hook(h)
	}
	if s.State != Waiting || s.Detail != "bash: touch a" {
		t.Fatalf("%s %q, want waiting on the command", s.State, s.Detail)
	}
	other := approved
	other.ToolInput = []byte(`{"command":"rm b"}`)
	if ch, ok := s.Log(other); ok {
		t.Fatalf("another dialog's approval changed %+v", ch)
	}
	if ch, ok := s.Log(approved); !ok || ch.State != Working || ch.Rule != "log.wait_answered" || ch.Detail != "touch a" {
		t.Fatalf("approval: %+v, %v", ch, ok)
	}
	if ch, ok := s.Hook(parsers.Hook{Event: "PostToolUse", ToolName: "bash", ToolInput: []byte(`{"command":"touch a"}`)}); ok {
		t.Fatalf("the tool's end changed %+v", ch)
	}
}

// TestStopAfterInterrupt: Gemini CLI fires AfterAgent (Stop) after Esc or
// Ctrl+C mid-stream too, ms after the log's "Request cancelled.": in either
// order the turn is interrupted, never done. An agent without the trait
// keeps the hook's word (Claude Code's Stop after the marker is a new
// turn's end).
func TestStopAfterInterrupt(t *testing.T) {
	interrupt := parsers.Evidence{Kind: parsers.KindInterrupt, Interrupt: parsers.InterruptUser}
	stop := parsers.Hook{Event: "Stop", SessionID: "s"}
	for _, c := range []struct {
		name      string
		agent     parsers.Agent
		stopFirst bool
		want      State
		reason    string
	}{
		{"gemini marker then Stop", "gemini", false, Ready, ReasonInterrupted},
		{"gemini Stop then marker", "gemini", true, Ready, ReasonInterrupted},
		{"claude marker then Stop", "claude", false, Done, ReasonTurnEnd},
		{"claude Stop then marker", "claude", true, Done, ReasonTurnEnd},
	} {
		s := New(c.agent)
		s.ID = "s"
		s.Hook(parsers.Hook{Event: "UserPromptSubmit", SessionID: "s"})
		s.Log(prompt)
		if c.stopFirst {
			s.Hook(stop)
			s.Log(interrupt)
		} else {
			s.Log(interrupt)
			s.Hook(stop)
		}
		if s.State != c.want || s.Reason != c.reason {
			t.Errorf("%s: %s/%s, want %s/%s", c.name, s.State, s.Reason, c.want, c.reason)
		}
	}
	// Cancelled before the CLI wrote its prompt: the file has the marker
	// alone, after the Stop (seen live with Ctrl+C right after Enter).
	s := New("gemini")
	s.ID = "s"
	s.Hook(parsers.Hook{Event: "UserPromptSubmit", SessionID: "s"})
	s.Hook(stop)
	if _, ok := s.Log(interrupt); !ok || s.State != Ready || s.Reason != ReasonInterrupted {
		t.Errorf("marker without the turn's prompt in the log: %s/%s", s.State, s.Reason)
	}
}

// TestGeminiToolAfterQuiet: without hooks, the answer Gemini CLI writes
// before a tool that asks approval looks final, so the quiet ends the turn;
// the tool's outcome written once it ran puts the session back to work
// (LateOutputResumes), and the closing answer ends it again.
func TestGeminiToolAfterQuiet(t *testing.T) {
	s := New("gemini")
	s.ID = "s"
	s.Log(prompt)
	s.Log(parsers.Evidence{Kind: parsers.KindActivity, Final: true})
	if _, ok := s.Quiet(); !ok || s.State != Done {
		t.Fatalf("the quiet after the answer: %s/%s", s.State, s.Reason)
	}
	ch, ok := s.Log(parsers.Evidence{Kind: parsers.KindTool, Tool: "run_shell_command", ToolInput: []byte(`{"command":"touch a"}`)})
	if !ok || s.State != Working || ch.Rule != "log.activity_resumes" || s.Detail != "touch a" {
		t.Fatalf("the tool's outcome: %s/%s %q by %q", s.State, s.Reason, s.Detail, ch.Rule)
	}
	s.Log(parsers.Evidence{Kind: parsers.KindActivity})
	s.Log(parsers.Evidence{Kind: parsers.KindActivity, Final: true})
	if _, ok := s.Quiet(); !ok || s.State != Done {
		t.Fatalf("the closing answer: %s/%s", s.State, s.Reason)
	}
}
