package relay

import (
	"fmt"
	"testing"
	"time"
)

// cTitle is Claude Code's generated title record.
func cTitle(s, title string) string {
	return fmt.Sprintf(`{"type":"ai-title","aiTitle":%q,"sessionId":%q}`, title, s)
}

// titles are the events published since the last call, as
// "state/rule title".
func (h *harness) titles() []string {
	return h.drain(func(ev Event) string { return fmt.Sprintf("%s/%s %s", ev.State, ev.Rule, ev.Title) })
}

func (h *harness) expectTitles(want ...string) {
	h.t.Helper()
	if got := h.titles(); fmt.Sprint(got) != fmt.Sprint(want) {
		h.t.Fatalf("events:\n got  %q\n want %q", got, want)
	}
}

// TestTitle: the first prompt's first line titles a session; the agent's
// own title, arriving after the state, replaces it in an event of its own
// that keeps the state and its since; a later prompt changes nothing, a
// later agent title replaces the earlier; the hook's prompt titles a turn
// before its log does; a restart keeps the title.
func TestTitle(t *testing.T) {
	h := newHarness(t, Config{TurnQuiet: time.Hour})
	h.line(claude, "s", cPrompt("s", "  fix the flaky test\nin relay/"), false)
	h.expectTitles("working/log.turn_start fix the flaky test")
	since := h.state("s").Since
	h.clock.Advance(time.Second)
	h.line(claude, "s", cTitle("s", "Fix flaky relay test"), false)
	h.expectTitles("working/log.title Fix flaky relay test")
	if got := h.state("s"); got.Since != since || got.Rule != "log.turn_start" || got.Title != "Fix flaky relay test" {
		t.Fatalf("after the title: %+v, want since %v and the state's own rule", got, since)
	}
	h.line(claude, "s", cTurnDuration("s", 0), false)
	h.line(claude, "s", cPrompt("s", "and now the docs"), false)
	h.line(claude, "s", cTitle("s", "Fix flaky relay test"), false) // the same title again: no event
	h.line(claude, "s", cTitle("s", "Fix the relay test and docs"), false)
	h.expectTitles("done/log.turn_end Fix flaky relay test", "working/log.turn_start Fix flaky relay test",
		"working/log.title Fix the relay test and docs")

	// Hooks: the prompt the hook carries titles the turn it starts.
	must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", "k", "prompt", "review the PR")))
	h.line(claude, "k", cPrompt("k", "review the PR"), false)
	h.expectTitles("working/hook.prompt review the PR")

	saved := make(chan Saved, 1)
	h.r.Save(func(s Saved) { saved <- s })
	state := (<-saved).State
	h.stop()
	h2 := newHarness(t, Config{TurnQuiet: time.Hour})
	h2.r.Restore(state)
	h2.r.BootstrapDone()
	for s, want := range map[string]string{"s": "Fix the relay test and docs", "k": "review the PR"} {
		if got := h2.state(s).Title; got != want {
			t.Errorf("%s after a restart: title %q, want %q", s, got, want)
		}
	}
}

// TestTitleAtStartUp: an agent whose title is already in the log when it is
// read at start-up (omp's title record, a resumed Claude session) shows it
// from the first event, which the agent's title wins over the prompt.
func TestTitleAtStartUp(t *testing.T) {
	h := newHarness(t, Config{TurnQuiet: time.Hour})
	h.line(claude, "s", cTitle("s", "Resumed work"), true)
	h.line(claude, "s", cPrompt("s", "go on"), true)
	h.r.BootstrapDone()
	h.expectTitles("working/log.turn_start Resumed work")
}

// TestRemoteTitle: a remote session's title comes with its state, a new
// title alone is republished (the remote's title rule), and a snapshot
// after a reconnect that brings only a new title republishes it too.
func TestRemoteTitle(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	t0 := h.clock.Now()
	ev := rev("r1", "working", "prompt", "hook", t0)
	ev.Title = "fix the bug"
	h.remoteUp("devbox", ev)
	h.expectTitles("working/hook.prompt fix the bug")
	ev.Title, ev.Source, ev.Rule = "Fix the relay bug", "log", "log.title"
	h.remoteEvent("devbox", ev)
	h.expectTitles("working/log.title Fix the relay bug")
	h.remote(RemoteUpdate{Remote: "devbox", Kind: RemoteDown, Error: "ssh devbox: connection reset"})
	h.titles()
	ev.Title = "Fix the relay bug for good"
	h.remoteUp("devbox", ev)
	h.expectTitles("working/log.title Fix the relay bug for good")
}
