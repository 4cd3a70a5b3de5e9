package codex_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/logwatch/logwatch/conformance"
)

// The Codex 0.169 scenarios. Each asserts the exact published timeline:
// every change in order, then quiet past the interrupt window (a flap or a
// repeat fails). Where two reporters race for the same transition (the
// rollout's task_started and the UserPromptSubmit hook open the same turn
// a few milliseconds apart), the step names the alternatives that are
// correct; nothing else passes.

const codexTab = "T1"

var logOrHook = []string{"log", "hook"}

// opening consumes the session's announcement and its first turn start.
// Codex 0.169 creates the rollout at the first prompt (session_meta and
// task_started in the same millisecond) and fires SessionStart lazily,
// after the turn has started. So either the rollout is read first, and
// the session appears working, with the late SessionStart changing
// nothing; or the SessionStart hook wins, and the session appears ready,
// then working. Either way in its tab: the Enter wrap reported just
// before binds it (bind.submit); the hooks, run in Codex's shared
// server, name no tab.
// The Enter's report and the rollout travel apart: when the report comes
// second (wrap's report slowed on a loaded machine), the first change is
// published with no tab and the same state follows at once in the tab
// (bind.submit_late; take allows for it).
func (w *codexWorld) opening(tab string, hooks bool) {
	w.t.Helper()
	logFirst := Step{State: "working", Reason: "prompt", Source: "log", Tab: tab}
	hookFirst := Step{State: "ready", Reason: "session_start", Source: "hook", Tab: tab}
	alts := []Step{logFirst}
	if hooks {
		alts = append(alts, hookFirst)
	}
	if _, i := w.take(codexStep, alts...); i == 1 {
		w.next(race{step: Step{State: "working", Reason: "prompt", Tab: tab}, sources: logOrHook})
	}
}

// turnEnd consumes the done of a finished turn: the Stop hook or the
// rollout's task_complete, whichever comes first.
func (w *codexWorld) turnEnd(tab string, hooks bool) {
	w.t.Helper()
	if !hooks {
		w.step(Step{State: "done", Reason: "turn_end", Source: "log", Tab: tab})
		return
	}
	w.next(race{step: Step{State: "done", Reason: "turn_end", Tab: tab}, sources: logOrHook})
}

// helloTurn runs one short turn in codexTab (hooks installed) and waits
// for Codex's prompt again: how most scenarios begin.
func (w *codexWorld) helloTurn(p *codexPane) {
	w.t.Helper()
	p.submit("say hello")
	w.opening(codexTab, true)
	w.turnEnd(codexTab, true)
	p.waitIdle(1)
}

func TestCodexPrompt(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	p.submit("say hello")
	w.opening(codexTab, true)
	w.turnEnd(codexTab, true)
	p.WaitScreen("Hello from the fake model", codexStep)
	w.quiet()
	// The title request runs beside the turn's: either may come first.
	if got := w.requestKinds(); !slices.Equal(slices.Sorted(slices.Values(got)), []string{OpenAIReqTitle, OpenAIReqTurn}) {
		t.Errorf("model requests %q, want a turn and a title", got)
	}
	// The title it asks for is not written to the rollout (no
	// thread_name_updated without /rename): the prompt titles the session.
	if got := w.Title(w.Timeline.Session()); got != "say hello" {
		t.Errorf("title %q, want the prompt's %q", got, "say hello")
	}
}

func TestCodexApproval(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	p.submit("run " + OpenAITool + " please")
	w.opening(codexTab, true)
	w.step(Step{State: "working", Reason: "tool", Source: "hook", Tab: codexTab, Detail: OpenAIApprovalCommand})
	w.step(Step{State: "waiting", Reason: "permission", Source: "hook", Tab: codexTab, Detail: "Bash: " + OpenAIApprovalCommand})
	p.WaitScreen("Would you like to run the following command?", codexStep)
	w.quiet()      // the prompt stays up: still waiting
	p.Key("Enter") // 1. Yes, proceed
	w.step(Step{State: "working", Reason: "tool", Source: "hook", Tab: codexTab, Detail: OpenAIApprovalCommand})
	w.turnEnd(codexTab, true)
	p.WaitScreen("The command ran. Done.", codexStep)
	w.quiet()
	if _, err := os.Stat(filepath.Join(w.Work, "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
}

// Esc while the answer streams: Codex's Interrupt hook reports it first
// (before the rollout's turn_aborted) and confirms the key (key+hook); the
// marker that follows must not publish a second ready.
func TestCodexEscStreaming(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	p.submit(OpenAISlow + " stream please")
	w.opening(codexTab, true)
	p.WaitScreen("streaming slowly", codexStep)
	p.Press("Escape")
	w.next(race{step: Step{State: "ready", Reason: "interrupted", Tab: codexTab}, sources: []string{"key+hook", "key+log"}})
	p.WaitScreen("Conversation interrupted", codexStep)
	w.quiet()
}

func TestCodexEscApproval(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	p.submit("run " + OpenAITool + " please")
	w.opening(codexTab, true)
	w.step(Step{State: "working", Reason: "tool", Source: "hook", Tab: codexTab, Detail: OpenAIApprovalCommand})
	w.step(Step{State: "waiting", Reason: "permission", Source: "hook", Tab: codexTab, Detail: "Bash: " + OpenAIApprovalCommand})
	p.WaitScreen("Would you like to run the following command?", codexStep)
	p.Press("Escape")
	w.next(race{step: Step{State: "ready", Reason: "interrupted", Tab: codexTab}, sources: []string{"key+hook", "key+log"}})
	p.WaitScreen("You canceled the request", codexStep)
	w.quiet()
	if _, err := os.Stat(filepath.Join(w.Work, "approved.txt")); err == nil {
		t.Error("the rejected command ran")
	}
}

// Ctrl+C while working opens Codex 0.169's "Task is still running" dialog;
// it interrupts nothing, so nothing is published, and the turn ends as
// usual. Esc then closes the dialog at an idle prompt: nothing either.
func TestCodexCtrlC(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	p.submit(OpenAISlow + " stream please")
	w.opening(codexTab, true)
	p.WaitScreen("streaming slowly", codexStep)
	p.Key("C-c")
	p.WaitScreen("Task is still running", codexStep)
	w.quiet()
	w.turnEnd(codexTab, true)
	w.waitTurnsEnded(1)
	p.Key("Escape")
	p.WaitScreenGone("Task is still running", codexStep)
	w.quiet()
	if reqs := w.api.Requests(); len(reqs) == 0 || reqs[0].Outcome != "complete" {
		t.Errorf("the streamed answer was cut: %+v", reqs)
	}
}

// TestCodexCtrlCDialog: the choices of Codex 0.169's Ctrl+C dialog. "Cancel
// task" interrupts the turn (its Interrupt hook says so); "Run in
// background" closes the TUI and leaves the turn to the background server:
// the tab's session ends, and the turn finishing there brings it back with
// no tab, done (outlived).
func TestCodexCtrlCDialog(t *testing.T) {
	t.Run("cancel_task", func(t *testing.T) {
		w := newCodex(t, true)
		p := w.start("a", codexTab)
		p.submit(OpenAISlow + " stream please")
		w.opening(codexTab, true)
		p.WaitScreen("streaming slowly", codexStep)
		p.Key("C-c")
		p.WaitScreen("› 1. Cancel task", codexStep)
		p.Press("Enter")
		// The Ctrl+C's window confirms it when the dialog was answered
		// within it.
		w.next(race{step: Step{State: "ready", Reason: "interrupted", Tab: codexTab}, sources: []string{"hook", "key+hook", "key+log"}})
		p.WaitScreen("Conversation interrupted", codexStep)
		w.quiet()
	})
	t.Run("run_in_background", func(t *testing.T) {
		w := newCodex(t, true)
		p := w.start("a", codexTab)
		p.submit(OpenAISlow + " stream please")
		w.opening(codexTab, true)
		p.WaitScreen("streaming slowly", codexStep)
		p.Key("C-c")
		p.WaitScreen("› 1. Cancel task", codexStep)
		p.Key("Down")
		p.WaitScreen("› 2. Run in background", codexStep)
		p.Key("Enter")
		w.step(Step{State: "ended", Reason: "tab_closed", Source: "api", Tab: codexTab})
		// Its done (the Stop hook, task_complete) is Codex's own word that
		// the turn left to the background finished.
		w.outlived()
	})
}

// Esc at an idle prompt, and Esc that closes the slash-command menu, are
// keys logwatch sees and must not act on.
func TestCodexEscIdle(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	w.helloTurn(p)
	p.Key("Escape")
	w.quiet()
	p.Type("/")
	p.WaitScreen("/model", codexStep)
	p.Key("Escape")
	p.WaitScreenGone("/model", codexStep)
	w.quiet()
}

// /compact in 0.169 is a turn of its own (task_started … compacted …
// task_complete), with the PreCompact hook inside it: compacting, back to
// working when the compaction line lands inside the turn, then done. The
// hook can overtake the log's task_started (CI saw it, 0.4 ms apart): then
// the turn opens still compacting, with no working before it.
func TestCodexCompact(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	w.helloTurn(p)
	p.Submit("/compact")
	w.Timeline.Maybe(Step{State: "working", Reason: "prompt", Source: "log", Tab: codexTab}, codexStep)
	w.step(Step{State: "compacting", Reason: "compaction", Source: "hook", Tab: codexTab, Detail: "manual"})
	w.next(race{step: Step{State: "working", Reason: "compaction", Tab: codexTab}, sources: logOrHook})
	w.turnEnd(codexTab, true)
	p.WaitScreen("Context compacted", codexStep)
	w.quiet()
	if !slices.Contains(w.requestKinds(), OpenAIReqCompact) {
		t.Errorf("no compaction request reached the model: %q", w.requestKinds())
	}
}

// TestCodexAutoCompact: a response reporting the context nearly full makes
// Codex compact inside the turn, before it sends the tool's result back:
// compacting, back to working (the turn goes on), then done.
func TestCodexAutoCompact(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	p.submit(OpenAIHuge + " context please")
	w.opening(codexTab, true)
	w.step(Step{State: "working", Reason: "tool", Source: "hook", Tab: codexTab, Detail: OpenAIHugeCommand})
	w.step(Step{State: "compacting", Reason: "compaction", Source: "hook", Tab: codexTab, Detail: "auto"})
	w.next(race{step: Step{State: "working", Reason: "compaction", Tab: codexTab}, sources: logOrHook})
	w.turnEnd(codexTab, true)
	p.waitIdle(1)
	w.quiet()
	if !slices.Contains(w.requestKinds(), OpenAIReqCompact) {
		t.Errorf("no compaction request reached the model: %q", w.requestKinds())
	}
}

// outlived consumes what follows a tab closed while its turn streams: the
// turn goes on in Codex's background server, and its evidence brings the
// session back, shown in no tab, to done (codex.turn_outlived_tab): working
// again (the rollout's next line) then done, or done at once when the Stop
// hook is the first to report. Stopping the server then ends it again
// (its SessionEnd: the session came back, so this ended is news), once.
func (w *codexWorld) outlived() {
	w.t.Helper()
	e := w.next(race{step: Step{State: Any, Reason: Any}, sources: logOrHook})
	switch {
	case e.State == "working" && e.Reason == "resumed":
		w.next(race{step: Step{State: "done", Reason: "turn_end"}, sources: logOrHook})
	case e.State == "done" && e.Reason == "turn_end":
	default:
		w.t.Fatalf("after the tab closed mid-turn: %s, want working/resumed or done/turn_end, tabless\ntimeline:\n%s", e, w.Timeline)
	}
	w.quiet()
	w.stopServer()
	w.step(Step{State: "ended", Reason: "session_end", Source: "hook"})
	w.quiet()
}

// endedOnce asserts that nothing follows the session's ended. Codex
// 0.169's /quit and /exit only detach the TUI ("Any running work
// continues"); SessionEnd fires when the background server stops. So the
// tab's close ends the session, and stopping the server afterwards (its
// SessionEnd) must not publish a second ended.
func (w *codexWorld) endedOnce(stopServer bool) {
	w.t.Helper()
	w.quiet()
	if stopServer {
		w.stopServer()
		w.quiet()
	}
}

// TestCodexEnd: every way a Codex session ends publishes ended exactly
// once at an idle prompt. While a turn runs, the TUI goes (ended, in its
// tab), the turn goes on in the background server and finishes there: the
// session is back, in no tab, and done (outlived).
func TestCodexEnd(t *testing.T) {
	for _, c := range []struct {
		name    string
		working bool
		end     func(p *codexPane)
	}{
		{"quit", false, func(p *codexPane) { p.Submit("/quit") }},
		{"exit", false, func(p *codexPane) { p.Submit("/exit") }},
		{"kill", false, func(p *codexPane) { _ = syscall.Kill(p.AgentPID(), syscall.SIGKILL) }},
		{"close_pane", false, func(p *codexPane) { p.Close() }},
		{"kill_working", true, func(p *codexPane) { _ = syscall.Kill(p.AgentPID(), syscall.SIGKILL) }},
		{"close_pane_working", true, func(p *codexPane) { p.Close() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newCodex(t, true)
			p := w.start("a", codexTab)
			if c.working {
				p.submit(OpenAISlow + " stream please")
				w.opening(codexTab, true)
				p.WaitScreen("streaming slowly", codexStep)
			} else {
				w.helloTurn(p)
			}
			c.end(p)
			w.step(Step{State: "ended", Reason: "tab_closed", Source: "api", Tab: codexTab})
			if c.working {
				w.outlived()
				return
			}
			w.endedOnce(true)
		})
	}
}

// TestCodexPhantom: a TUI that never got a prompt leaves no session, even
// when its background server stops and flushes a rollout holding only
// session_meta for it.
func TestCodexPhantom(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	p.Submit("/quit")
	p.WaitExit(codexStep)
	w.quiet()
	w.stopServer()
	w.quiet()
	out, err := w.Logwatch("status", "--json")
	if err != nil {
		t.Fatalf("status: %v\n%s", err, out)
	}
	var st struct {
		Sessions []Event `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Sessions) != 0 {
		t.Errorf("status lists %d session(s) for a TUI that never got a prompt (%v):\n%s", len(st.Sessions), err, out)
	}
}

// TestCodexResume: /quit, then `codex resume --last` in a second tab. 0.169
// writes nothing to the rollout and fires no hook until the first prompt
// of the resumed TUI; from then on the session is announced again and its
// turn tracked, in the second tab: its Enter binds it (bind.submit).
// Its hooks run in the background server the first TUI started, with that
// TUI's LOGWATCH_TAB: the resumed session is never shown in the closed
// first tab (SPEC: a wrong tab is worse than none).
func TestCodexResume(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	w.helloTurn(p)
	p.Submit("/quit")
	w.step(Step{State: "ended", Reason: "tab_closed", Source: "api", Tab: codexTab})
	w.endedOnce(false)

	const tab2 = "T2"
	p2 := w.start("b", tab2, "resume", "--last")
	p2.WaitScreen("Hello from the fake model", codexStep) // the resumed history
	w.quiet()
	p2.submit("hello again")
	w.next(race{step: Step{State: "ready", Reason: Any, Tab: tab2}, sources: logOrHook})
	w.next(race{step: Step{State: "working", Reason: "prompt", Tab: tab2}, sources: logOrHook})
	e := w.next(race{step: Step{State: "done", Reason: "turn_end", Tab: tab2}, sources: logOrHook})
	if e.Session != w.Timeline.Session() {
		t.Errorf("the resumed session is %s, want %s", e.Session, w.Timeline.Session())
	}
	w.quiet()
}

// TestCodexSecondTab: two TUIs in one CODEX_HOME share the background
// server the first started, so the second tab's hooks run with the first
// tab's LOGWATCH_TAB (and, while the first TUI lives, under the first
// wrap's process tree). The hook client drops a tab under the shared
// server, and each session is bound to its tab by its own submit
// (bind.submit): every change of the second session is published in
// the second tab, none in the first.
func TestCodexSecondTab(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	w.helloTurn(p)

	const tab2 = "T2"
	p2 := w.start("b", tab2)
	p2.submit("hello from the second tab")
	b := w.openingOf(tab2)
	w.next(race{step: Step{State: "done", Reason: "turn_end", Tab: tab2, Session: b}, sources: logOrHook})
	p2.waitIdle(2)
	w.quiet()
	w.allInTheirTabs(map[string]string{w.Timeline.Session(): codexTab, b: tab2})
}

// openingOf is opening for a session other than the timeline's first: it
// returns the new session's id.
func (w *codexWorld) openingOf(tab string) string {
	w.t.Helper()
	first, i := w.take(codexStep,
		Step{State: "working", Reason: "prompt", Source: "log", Tab: tab, Session: Any},
		Step{State: "ready", Reason: "session_start", Source: "hook", Tab: tab, Session: Any})
	if first.Session == w.Timeline.Session() {
		w.t.Fatalf("tab %s's prompt was published for the first session:\n%s", tab, w.Timeline)
	}
	if i == 1 {
		w.next(race{step: Step{State: "working", Reason: "prompt", Tab: tab, Session: first.Session}, sources: logOrHook})
	}
	return first.Session
}

// allInTheirTabs checks that no published change is in another session's
// tab (a change with no tab before its late binding is take's to check).
func (w *codexWorld) allInTheirTabs(tabs map[string]string) {
	w.t.Helper()
	for _, e := range w.Timeline.Events() {
		if want, ok := tabs[e.Session]; ok && e.Tab != want && e.Tab != "" {
			w.t.Errorf("change %s published in tab %q, want %q", e, e.Tab, want)
		}
	}
}

// TestCodexTwoTabs: two tabs, each with its own session through one shared
// background server, the second started while the first tab's turn runs,
// both streaming at once. Every change carries its own tab, and an Esc in
// the second tab interrupts (key+log) the second session only: the first
// goes on and finishes.
func TestCodexTwoTabs(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	p.submit(OpenAISlow + " stream please")
	w.opening(codexTab, true)
	a := w.Timeline.Session()
	p.WaitScreen("streaming slowly", codexStep)

	const tab2 = "T2"
	p2 := w.start("b", tab2)
	p2.submit(OpenAISlow + " stream please")
	b := w.openingOf(tab2)
	p2.WaitScreen("streaming slowly", codexStep)
	p2.Press("Escape")
	// B's interrupt (Codex's Interrupt hook reports first: key+hook, or
	// the rollout's turn_aborted does: key+log), in B's tab; and A's
	// turn, never touched, finishing in A's tab: in either order.
	interrupted := Step{State: "ready", Reason: "interrupted", Source: Any, Tab: tab2, Session: b}
	finished := Step{State: "done", Reason: "turn_end", Source: Any, Tab: codexTab, Session: a}
	for range 2 {
		e, _ := w.take(OpenAISlowStream+codexStep, Step{State: Any, Reason: Any, Source: Any, Tab: Any, Session: Any})
		switch {
		case interrupted.State != "" && interrupted.Match(e, a) && (e.Source == "key+hook" || e.Source == "key+log"):
			interrupted.State = ""
		case finished.State != "" && finished.Match(e, a) && slices.Contains(logOrHook, e.Source):
			finished.State = ""
		default:
			t.Fatalf("unexpected change %s: want B's interrupt and A's done\ntimeline:\n%s", e, w.Timeline)
		}
	}
	p2.WaitScreen("Conversation interrupted", codexStep)
	p.waitIdle(2)
	w.quiet()
	w.allInTheirTabs(map[string]string{a: codexTab, b: tab2})
}

// TestCodexTabClosedMidTurn: the second tab's pane closes while its turn
// streams; the first tab's session is idle. The closed tab's session ends
// in that tab; the turn goes on in the shared server and brings the session
// back, in no tab, to done (codex.turn_outlived_tab); the first session is
// untouched.
func TestCodexTabClosedMidTurn(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	w.helloTurn(p)
	a := w.Timeline.Session()

	const tab2 = "T2"
	p2 := w.start("b", tab2)
	p2.submit(OpenAISlow + " stream please")
	b := w.openingOf(tab2)
	p2.WaitScreen("streaming slowly", codexStep)
	p2.Close()
	w.step(Step{State: "ended", Reason: "tab_closed", Source: "api", Tab: tab2, Session: b})
	e := w.next(race{step: Step{State: Any, Reason: Any, Session: b}, sources: logOrHook})
	switch {
	case e.State == "working" && e.Reason == "resumed":
		w.next(race{step: Step{State: "done", Reason: "turn_end", Session: b}, sources: logOrHook})
	case e.State == "done" && e.Reason == "turn_end":
	default:
		t.Fatalf("after the tab closed mid-turn: %s, want working/resumed or done/turn_end, tabless\ntimeline:\n%s", e, w.Timeline)
	}
	w.quiet()
	if st := w.status(a); st.State != "done" || st.Tab != codexTab {
		t.Errorf("the first session is %s in tab %q, want done in %s", st.State, st.Tab, codexTab)
	}
}

// TestCodexSimultaneousSubmits: prompts submitted in two tabs in the same
// instant (two tmux send-keys back to back: a few to ~100 ms apart on a
// loaded machine). When one turn start follows both Enters it is
// ambiguous and neither session gets a tab; when the Enters are far enough
// apart each binds its own. Never the other tab: every change of each
// session (told apart by its rollout's prompt) is in its own tab or in
// none. The next prompt, in the first tab alone, binds the session it
// continues.
func TestCodexSimultaneousSubmits(t *testing.T) {
	w := newCodex(t, true)
	p := w.start("a", codexTab)
	p2 := w.start("b", "T2")
	p.Type("say hello")
	p2.Type("say hello from b")
	p.WaitScreen("say hello", codexStep)
	p2.WaitScreen("say hello from b", codexStep)
	p.Key("Enter")
	p2.Key("Enter")
	a, b := w.sessionOfPrompt("say hello"), w.sessionOfPrompt("say hello from b")
	own := map[string]string{a: codexTab, b: "T2"}
	for done := 0; done < 2; {
		e, _ := w.take(codexStep, Step{State: Any, Reason: Any, Source: Any, Tab: Any, Session: Any})
		if e.Tab != "" && e.Tab != own[e.Session] {
			t.Fatalf("change %s is in tab %q, not its own %q\ntimeline:\n%s", e, e.Tab, own[e.Session], w.Timeline)
		}
		switch {
		case e.State == "done" && e.Reason == "turn_end":
			done++
		case e.State == "working" && e.Reason == "prompt", e.State == "ready" && e.Reason == "session_start":
		case e.Rule == "bind.ambiguous" && e.Tab == "": // a binding undone by a late Enter
		default:
			t.Fatalf("unexpected change %s\ntimeline:\n%s", e, w.Timeline)
		}
	}
	w.waitTurnsEnded(2)
	w.quiet()
	p.submit("say hello again")
	w.next(race{step: Step{State: "working", Reason: "prompt", Tab: codexTab, Session: a}, sources: logOrHook})
	w.next(race{step: Step{State: "done", Reason: "turn_end", Tab: codexTab, Session: a}, sources: logOrHook})
	w.waitTurnsEnded(3)
	w.quiet()
}

// sessionOfPrompt waits for the rollout holding prompt and returns its id.
func (w *codexWorld) sessionOfPrompt(prompt string) string {
	w.t.Helper()
	want, _ := json.Marshal(prompt)
	deadline := time.Now().Add(codexStep)
	for time.Now().Before(deadline) {
		files, _ := filepath.Glob(filepath.Join(w.home, "sessions", "*", "*", "*", "rollout-*.jsonl"))
		for _, f := range files {
			// The prompt's input item: {"type":"input_text","text":PROMPT}.
			if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), `"text":`+string(want)) {
				name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
				return name[len(name)-36:] // rollout-<time>-<uuid>
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.t.Fatalf("no rollout holds the prompt %q", prompt)
	return ""
}

// status is one session's row in `logwatch status --json`.
func (w *codexWorld) status(session string) Event {
	w.t.Helper()
	out, err := w.Logwatch("status", "--json")
	if err != nil {
		w.t.Fatalf("status: %v\n%s", err, out)
	}
	var st struct {
		Sessions []Event `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		w.t.Fatal(err)
	}
	for _, e := range st.Sessions {
		if e.Session == session {
			return e
		}
	}
	w.t.Fatalf("status has no session %s:\n%s", session, out)
	return Event{}
}

// No hooks: the rollout alone drives the state, with and without wrap.
// Under wrap the Enter it reports binds the session to its tab
// (bind.submit), so the Esc opens a confirmation window and the
// rollout's turn_aborted confirms it (key+log) when the key's report wins
// the race. Bare, nothing names a tab: turn_aborted alone is the interrupt
// (SPEC §5.5, source log).
func TestCodexNoHooks(t *testing.T) {
	for _, wrap := range []bool{true, false} {
		name := "wrap"
		tab := codexTab
		if !wrap {
			name, tab = "bare", ""
		}
		t.Run("prompt_"+name, func(t *testing.T) {
			w := newCodex(t, false)
			p := w.start("a", tab)
			p.submit("say hello")
			w.opening(tab, false)
			w.turnEnd(tab, false)
			p.WaitScreen("Hello from the fake model", codexStep)
			w.quiet()
		})
		t.Run("esc_streaming_"+name, func(t *testing.T) {
			w := newCodex(t, false)
			p := w.start("a", tab)
			p.submit(OpenAISlow + " stream please")
			w.opening(tab, false)
			p.WaitScreen("streaming slowly", codexStep)
			p.Press("Escape")
			if wrap {
				// Codex writes turn_aborted ~10 ms after the Esc: wrap's key
				// report and the rollout race, and a key that arrives after
				// its marker confirms nothing (the log alone interrupted).
				w.next(race{step: Step{State: "ready", Reason: "interrupted", Tab: tab}, sources: []string{"key+log", "log"}})
			} else {
				w.step(Step{State: "ready", Reason: "interrupted", Source: "log"})
			}
			p.WaitScreen("Conversation interrupted", codexStep)
			w.quiet()
		})
	}
}
