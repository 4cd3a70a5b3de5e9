package claude_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/logwatch/logwatch/conformance"

	"github.com/logwatch/logwatch/parsers"
	claudeagent "github.com/logwatch/logwatch/parsers/claude"
)

// Timeouts: generous, since two cores run several agents at once.
const (
	tStart = 60 * time.Second // an agent's first screen
	tStep  = 30 * time.Second // one published change, a screen, an exit
	// settle is how long "nothing more" is watched for: past the 2 s
	// confirmation window, and past the ~6 s generic Notification that
	// follows a permission dialog.
	settle = 3 * time.Second
)

// claude is one Claude Code scenario: the world, the fake Messages server
// and the agent's executable.
type claude struct {
	*Scenario
	api *Anthropic
	bin string
}

// newClaude makes a Claude Code world; hooks says whether logwatch's hooks
// are installed (the real `logwatch hooks install --agent claude`).
func newClaude(t *testing.T, hooks bool) *claude {
	t.Helper()
	a, bin := RequireAgent(t, "claude")
	t.Parallel()
	s := NewScenario(t, "claude")
	api, err := StartAnthropic(s.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	c := &claude{Scenario: s, api: api, bin: bin}
	// Every first-run screen already seen, the work dir trusted: as
	// selftest sets Claude Code up.
	env, err := claudeagent.Offline().Setup(parsers.OfflineHome{Home: s.Home, Work: s.Work, URL: api.URL, Version: a.Version})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEnv(env...)
	if hooks {
		s.InstallHooks("claude")
	}
	return c
}

// start runs `claude --permission-mode default ARGS…` in a new pane (under
// wrap unless bare) and waits for its input prompt.
func (c *claude) start(name string, wrap bool, args ...string) *Pane {
	c.T.Helper()
	argv := append([]string{c.bin, "--permission-mode", "default"}, args...)
	p := c.StartPane(PaneOptions{Name: name, Argv: argv, Wrap: wrap})
	p.WaitScreen("for shortcuts", tStart)
	return p
}

// Expected changes, by what caused them. tab is the pane's tab ("" bare).
func stReady(tab string) Step {
	return Step{State: "ready", Reason: "session_start", Source: "hook", Tab: tab}
}
func stPrompt(tab string) Step {
	return Step{State: "working", Reason: "prompt", Source: "hook", Tab: tab}
}
func stDone(tab string) Step {
	return Step{State: "done", Reason: "turn_end", Source: "hook", Tab: tab}
}

func stTool(tab, detail string) Step {
	return Step{State: "working", Reason: "tool", Source: "hook", Tab: tab, Detail: detail}
}
func stWaitingBash(tab string) Step {
	return Step{State: "waiting", Reason: "permission", Source: "hook", Tab: tab, Detail: "Bash: " + AnthToolCommand}
}
func stInterrupted(tab, source string) Step {
	return Step{State: "ready", Reason: "interrupted", Source: source, Tab: tab}
}

// turn runs one plain prompt to done.
func (c *claude) turn(p *Pane, prompt string) {
	c.T.Helper()
	p.Submit(prompt)
	c.Timeline.Next(stPrompt(p.Tab), tStep)
	c.Timeline.Next(stDone(p.Tab), tStep)
}

func TestClaudePlainPrompt(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	p.Submit("hello plain")
	c.Timeline.Next(stPrompt(p.Tab), tStep)
	c.Timeline.Next(stDone(p.Tab), tStep)
	p.WaitScreen(AnthShortAnswer, tStep)
	c.Timeline.Quiet(settle)
	if got := c.status().Title; got != "hello plain" {
		t.Errorf("title %q, want the prompt's %q", got, "hello plain")
	}
}

// With non-essential traffic on, as users run it, the first prompt also
// brings a title request (a Haiku call beside the turn's) and the ai-title
// line in the transcript: the timeline is the plain one.
func TestClaudeTitleRequest(t *testing.T) {
	c := newClaude(t, true)
	c.UnsetEnv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC")
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	c.turn(p, "hello plain")
	p.WaitScreen(AnthShortAnswer, tStep)
	c.Timeline.Quiet(settle)
	if n := c.api.CountKind(AnthReqTitle); n != 1 {
		t.Errorf("%d title requests, want 1", n)
	}
	// The generated title (the ai-title line) replaces the prompt's.
	if got := c.status().Title; got != "Conformance session" {
		t.Errorf("title %q, want the generated %q", got, "Conformance session")
	}
}

// The Bash tool at the permission dialog: waiting names the tool and the
// command, and keeps that detail when the generic "Claude needs your
// permission" Notification follows (~6 s later); approving goes back to
// working, then done.
func TestClaudePermissionApprove(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	p.Submit("TOOL please run it")
	c.Timeline.Next(stPrompt(p.Tab), tStep)
	c.Timeline.Next(stTool(p.Tab, AnthToolCommand), tStep)
	c.Timeline.Next(stWaitingBash(p.Tab), tStep)
	p.WaitScreen("Do you want to proceed?", tStep)
	// The generic "Claude needs your permission" Notification follows the
	// specific PermissionRequest ~6 s later: nothing new may be published.
	c.WaitHook("Notification", 1, tStep)
	c.Timeline.Quiet(settle)
	p.Choose("Enter", "Do you want to proceed?", tStep)
	c.Timeline.Next(stTool(p.Tab, AnthToolCommand), tStep)
	c.Timeline.Next(stDone(p.Tab), tStep)
	p.WaitScreen(AnthToolDone, tStep)
	c.Timeline.Quiet(settle)
	if _, err := os.Stat(filepath.Join(c.Work, "f.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
}

// Choosing "No" at the permission dialog (no Esc, no Ctrl+C): the
// transcript's rejection marker ends the turn, ready/interrupted from the log.
func TestClaudePermissionReject(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	p.Submit("TOOL and then I reject")
	c.Timeline.Next(stPrompt(p.Tab), tStep)
	c.Timeline.Next(stTool(p.Tab, AnthToolCommand), tStep)
	c.Timeline.Next(stWaitingBash(p.Tab), tStep)
	p.WaitScreen("Do you want to proceed?", tStep)
	p.Key("Down")
	p.Key("Down")
	p.Key("Down")
	p.WaitScreen("❯ 4. No", tStep)
	p.Choose("Enter", "Do you want to proceed?", tStep)
	c.Timeline.Next(stInterrupted(p.Tab, "log"), tStep)
	c.Timeline.Quiet(settle)
	if _, err := os.Stat(filepath.Join(c.Work, "f.txt")); err == nil {
		t.Error("the rejected command ran")
	}
}

// Esc while the answer streams: ready/interrupted, confirmed by the
// transcript's marker (key+log).
func TestClaudeEscMidStream(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	p.Submit("SLOW please")
	c.Timeline.Next(stPrompt(p.Tab), tStep)
	p.WaitScreen("word5 ", tStep)
	p.Press("Escape")
	c.Timeline.Next(stInterrupted(p.Tab, "key+log"), tStep)
	p.WaitScreen("Interrupted", tStep)
	c.Timeline.Quiet(settle)
}

// Ctrl+C while working interrupts like Esc in Claude Code.
func TestClaudeCtrlCWorking(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	p.Submit("SLOW please")
	c.Timeline.Next(stPrompt(p.Tab), tStep)
	p.WaitScreen("word5 ", tStep)
	p.Press("C-c")
	c.Timeline.Next(stInterrupted(p.Tab, "key+log"), tStep)
	p.WaitScreen("Interrupted", tStep)
	c.Timeline.Quiet(settle)
}

// Esc at the permission dialog rejects the tool and ends the turn.
func TestClaudeEscAtPermission(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	p.Submit("TOOL please run it")
	c.Timeline.Next(stPrompt(p.Tab), tStep)
	c.Timeline.Next(stTool(p.Tab, AnthToolCommand), tStep)
	c.Timeline.Next(stWaitingBash(p.Tab), tStep)
	p.WaitScreen("Do you want to proceed?", tStep)
	p.Press("Escape")
	c.Timeline.Next(stInterrupted(p.Tab, "key+log"), tStep)
	c.Timeline.Quiet(settle)
	if _, err := os.Stat(filepath.Join(c.Work, "f.txt")); err == nil {
		t.Error("the rejected command ran")
	}
}

// Esc at an idle prompt (before and after a turn), and Esc that closes the
// slash-command menu, change nothing at all.
func TestClaudeEscNoChange(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	p.Key("Escape")
	c.WaitKeys(1, tStep) // wrap reported it; the daemon ignores it
	c.Timeline.Quiet(settle)
	c.turn(p, "hello plain")
	p.WaitScreen(AnthShortAnswer, tStep)
	p.Key("Escape")
	c.WaitKeys(2, tStep)
	c.Timeline.Quiet(settle)
	p.Type("/")
	p.WaitScreen("/add-dir", tStep)
	p.Key("Escape")
	p.WaitScreenGone("/add-dir", tStep)
	c.WaitKeys(3, tStep)
	c.Timeline.Quiet(settle)
}

// /compact after a turn: compacting, then done (outside a turn).
func TestClaudeCompact(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	c.turn(p, "hello before compact")
	p.WaitScreen(AnthShortAnswer, tStep)
	p.Submit("/compact")
	c.Timeline.Next(Step{State: "compacting", Reason: "compaction", Source: "hook", Tab: p.Tab, Detail: "manual"}, tStep)
	// The SessionStart (source compact) that follows the compaction ends it.
	c.Timeline.Next(Step{State: "done", Reason: "compaction", Source: "hook", Tab: p.Tab}, tStep)
	p.WaitScreen("Compacted", tStep)
	c.Timeline.Quiet(settle)
	if n := c.api.CountKind(AnthReqCompact); n != 1 {
		t.Errorf("%d compaction requests, want 1", n)
	}
}

// A background subagent: the session stays working until the subagent has
// finished and its result is in, never an early done.
func TestClaudeBackgroundSubagent(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	p.Submit("AGENT please delegate")
	c.Timeline.Next(stPrompt(p.Tab), tStep)
	c.Timeline.Next(stTool(p.Tab, ""), tStep)
	// Stop while the background agent runs.
	c.Timeline.Next(Step{State: "working", Reason: "subagents_pending", Source: "hook", Tab: p.Tab}, tStep)
	// The subagent's result arrives as a task notification, a new turn.
	c.Timeline.Next(stPrompt(p.Tab), 40*time.Second)
	done := c.Timeline.Next(stDone(p.Tab), tStep)
	c.doneAfterSubagent(done)
	p.WaitScreen("finished", tStep)
	c.Timeline.Quiet(settle)
}

// doneAfterSubagent fails unless done came after the subagent's answer.
func (c *claude) doneAfterSubagent(done Event) {
	c.T.Helper()
	fin := c.api.Finished(AnthReqSubagent)
	if fin.IsZero() || done.At.Before(fin) {
		c.T.Fatalf("done published at %s, before the subagent finished (%s)\ntimeline:\n%s",
			done.At.Format(time.StampMilli), fin.Format(time.StampMilli), c.Timeline)
	}
}

// Quitting: /exit, killing the agent, closing the pane. Each ends the
// session, published once (wrap's tab-closed afterwards adds nothing).
func TestClaudeExit(t *testing.T) {
	for _, cmd := range []string{"/exit", "/quit"} {
		t.Run(cmd[1:], func(t *testing.T) {
			c := newClaude(t, true)
			p := c.start("main", true)
			c.Timeline.Next(stReady(p.Tab), tStep)
			c.turn(p, "hello then exit")
			p.WaitScreen(AnthShortAnswer, tStep)
			p.Submit(cmd)
			c.Timeline.Next(Step{State: "ended", Reason: "session_end", Source: "hook", Tab: p.Tab}, tStep)
			if code := p.WaitExit(tStep); code != 0 {
				t.Errorf("wrap exited %d, want 0", code)
			}
			c.Timeline.Quiet(settle)
		})
	}
}

func TestClaudeKilled(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	c.turn(p, "hello then kill")
	p.WaitScreen(AnthShortAnswer, tStep)
	pid := p.AgentPID()
	if err := syscallKill(pid); err != nil {
		t.Fatal(err)
	}
	c.Timeline.Next(Step{State: "ended", Reason: "tab_closed", Source: "api", Tab: p.Tab}, tStep)
	p.WaitExit(tStep)
	c.Timeline.Quiet(settle)
}

// Outside wrap, with hooks: the session carries Claude Code's process
// (its registry file and its hook client both name it; the registry keeps
// the account), and its kill -9 ends the session, process_gone.
func TestClaudeUnwrappedKilled(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", false)
	e := c.Timeline.Next(stReady(""), tStep)
	pid := p.AgentPID()
	if e.Pid != pid || !e.Live {
		t.Fatalf("ready %s: pid %d live %v, want claude's %d, live", e, e.Pid, e.Live, pid)
	}
	c.turn(p, "hello then kill")
	p.WaitScreen(AnthShortAnswer, tStep)
	if err := syscallKill(pid); err != nil {
		t.Fatal(err)
	}
	c.Timeline.Next(Step{State: "ended", Reason: "process_gone", Source: "registry"}, tStep)
	c.Timeline.Quiet(settle)
}

func TestClaudePaneClosed(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	c.turn(p, "hello then close pane")
	p.WaitScreen(AnthShortAnswer, tStep)
	p.Close()
	// SessionEnd (reason other) comes first; wrap's tab-closed adds nothing.
	c.Timeline.Next(Step{State: "ended", Reason: "session_end", Source: "hook", Tab: p.Tab}, tStep)
	c.Timeline.Quiet(settle)
}

// Resume: the session comes back (announced again) in the right state.
func TestClaudeResume(t *testing.T) {
	for _, how := range []string{"continue", "resume"} {
		t.Run(how, func(t *testing.T) {
			c := newClaude(t, true)
			p := c.start("first", true)
			c.Timeline.Next(stReady(p.Tab), tStep)
			id := c.Timeline.Session()
			c.turn(p, "hello plain")
			p.WaitScreen(AnthShortAnswer, tStep)
			p.Submit("/exit")
			c.Timeline.Next(Step{State: "ended", Reason: "session_end", Source: "hook", Tab: p.Tab}, tStep)
			p.WaitExit(tStep)
			c.Timeline.Quiet(settle)
			args := []string{"--continue"}
			if how == "resume" {
				args = []string{"--resume", id}
			}
			q := c.start("second", true, args...)
			c.resumed(q)
		})
	}
	// Killed mid-turn, the turn left open in the transcript: --continue
	// is a fresh start, ready, not working.
	t.Run("continue-after-kill", func(t *testing.T) {
		c := newClaude(t, true)
		p := c.start("first", true)
		c.Timeline.Next(stReady(p.Tab), tStep)
		p.Submit("SLOW please")
		c.Timeline.Next(stPrompt(p.Tab), tStep)
		p.WaitScreen("word5 ", tStep)
		if err := syscallKill(p.AgentPID()); err != nil {
			t.Fatal(err)
		}
		c.Timeline.Next(Step{State: "ended", Reason: "tab_closed", Source: "api", Tab: p.Tab}, tStep)
		p.WaitExit(tStep)
		c.Timeline.Quiet(settle)
		c.resumed(c.start("second", true, "--continue"))
	})
}

// resumed checks a resumed session in its new pane: the same session,
// announced again on the new tab, and a turn in it.
func (c *claude) resumed(q *Pane) {
	c.T.Helper()
	c.Timeline.Next(Step{State: "ready", Reason: "session_start", Source: "hook", Tab: q.Tab}, tStep)
	q.Submit("hello after resume")
	c.Timeline.Next(stPrompt(q.Tab), tStep)
	c.Timeline.Next(stDone(q.Tab), tStep)
	c.Timeline.Quiet(settle)
}

// Without hooks the logs and Claude Code's session registry drive the
// state. Under wrap the registry's pid binds the tab to the session (wrap
// reports its child's pid), so every change names the tab and a
// mid-stream Esc is confirmed as key+log; bare, the tab is empty and the
// Esc is the log's own interrupt.
func TestClaudeNoHooks(t *testing.T) {
	for _, wrap := range []bool{true, false} {
		name, src := "bare", "log"
		if wrap {
			name, src = "wrapped", "key+log"
		}
		tab := func(p *Pane) string { return p.Tab }
		t.Run(name+"/plain", func(t *testing.T) {
			c := newClaude(t, false)
			p := c.start("main", wrap)
			p.Submit("hello plain")
			// 2.1.328 creates the transcript after the prompt.
			c.Timeline.Next(Step{State: "ready", Reason: "session_start", Source: "log", Tab: tab(p)}, tStep)
			c.Timeline.Next(Step{State: "working", Reason: "prompt", Source: "log", Tab: tab(p)}, tStep)
			c.Timeline.Next(Step{State: "done", Reason: "turn_end", Source: "log", Tab: tab(p)}, tStep)
			p.WaitScreen(AnthShortAnswer, tStep)
			c.Timeline.Quiet(settle)
			c.live(true)
		})
		t.Run(name+"/background-subagent", func(t *testing.T) {
			c := newClaude(t, false)
			p := c.start("main", wrap)
			p.Submit("AGENT please delegate")
			c.Timeline.Next(Step{State: "ready", Reason: "session_start", Source: "log", Tab: tab(p)}, tStep)
			c.Timeline.Next(Step{State: "working", Reason: "prompt", Source: "log", Tab: tab(p)}, tStep)
			c.Timeline.Next(Step{State: "working", Reason: "tool", Source: "log", Tab: tab(p)}, tStep)
			// The first turn_duration carries pendingBackgroundAgentCount: 1.
			c.Timeline.Next(Step{State: "working", Reason: "subagents_pending", Source: "log", Tab: tab(p)}, tStep)
			// The task notification's turn, whose turn_duration leaves the
			// count out: nothing pending any more. (The registry writes idle
			// between the two turns: no done before the second.)
			c.Timeline.Next(Step{State: "working", Reason: "prompt", Source: "log", Tab: tab(p)}, 40*time.Second)
			done := c.Timeline.Next(Step{State: "done", Reason: "turn_end", Source: "log", Tab: tab(p)}, tStep)
			c.doneAfterSubagent(done)
			c.Timeline.Quiet(settle)
		})
		t.Run(name+"/esc-mid-stream", func(t *testing.T) {
			c := newClaude(t, false)
			p := c.start("main", wrap)
			p.Submit("SLOW please")
			c.Timeline.Next(Step{State: "ready", Reason: "session_start", Source: "log", Tab: tab(p)}, tStep)
			c.Timeline.Next(Step{State: "working", Reason: "prompt", Source: "log", Tab: tab(p)}, tStep)
			p.WaitScreen("word5 ", tStep)
			p.Press("Escape")
			c.Timeline.Next(stInterrupted(tab(p), src), tStep)
			p.WaitScreen("Interrupted", tStep)
			c.Timeline.Quiet(settle)
		})
		// The registry's "waiting" (waitingFor "permission prompt") is the
		// only signal of the dialog without hooks; approving is its "busy".
		t.Run(name+"/permission", func(t *testing.T) {
			c := newClaude(t, false)
			p := c.start("main", wrap)
			p.Submit("TOOL please run it")
			c.Timeline.Next(Step{State: "ready", Reason: "session_start", Source: "log", Tab: tab(p)}, tStep)
			c.Timeline.Next(Step{State: "working", Reason: "prompt", Source: "log", Tab: tab(p)}, tStep)
			// The log's tool line is read before the wait, or after it (then
			// absorbed): either way no flap.
			c.maybe(Step{State: "working", Reason: "tool", Source: "log", Tab: tab(p), Detail: AnthToolCommand}, tStep)
			c.Timeline.Next(Step{State: "waiting", Reason: "permission", Source: "registry", Tab: tab(p), Detail: "permission prompt"}, tStep)
			p.WaitScreen("Do you want to proceed?", tStep)
			c.Timeline.Quiet(settle)
			p.Choose("Enter", "Do you want to proceed?", tStep)
			c.Timeline.Next(Step{State: "working", Reason: "tool", Source: "registry", Tab: tab(p), Detail: Any}, tStep)
			c.Timeline.Next(Step{State: "done", Reason: "turn_end", Source: "log", Tab: tab(p)}, tStep)
			p.WaitScreen(AnthToolDone, tStep)
			c.Timeline.Quiet(settle)
		})
		// /exit and closing the pane: Claude removes its registry file, its
		// goodbye: ended once (wrap's tab-closed afterwards adds nothing).
		// On a loaded machine the removal's file event can be read after
		// the exit wrap reports (4 ms after, in a CI-like run): ended by the
		// tab's close then, once all the same.
		for _, how := range []string{"exit", "close"} {
			t.Run(name+"/"+how, func(t *testing.T) {
				c := newClaude(t, false)
				p := c.start("main", wrap)
				c.plainNoHooks(p, tab(p))
				if how == "exit" {
					p.Submit("/exit")
				} else {
					p.Close()
				}
				if wrap && !c.Timeline.Maybe(Step{State: "ended", Reason: "session_end", Source: "registry", Tab: tab(p)}, tStep) {
					c.Timeline.Next(Step{State: "ended", Reason: "tab_closed", Source: "api", Tab: tab(p)}, tStep)
				} else if !wrap {
					c.Timeline.Next(Step{State: "ended", Reason: "session_end", Source: "registry", Tab: tab(p)}, tStep)
				}
				c.Timeline.Quiet(settle)
				c.live(false)
			})
		}
		// kill -9: the registry file stays; the process is found gone.
		// Under wrap its tab's close says it first.
		t.Run(name+"/kill", func(t *testing.T) {
			c := newClaude(t, false)
			p := c.start("main", wrap)
			c.plainNoHooks(p, tab(p))
			if err := syscallKill(p.AgentPID()); err != nil {
				t.Fatal(err)
			}
			if wrap {
				c.Timeline.Next(Step{State: "ended", Reason: "tab_closed", Source: "api", Tab: p.Tab}, tStep)
			} else {
				c.Timeline.Next(Step{State: "ended", Reason: "process_gone", Source: "registry"}, tStep)
			}
			c.Timeline.Quiet(settle)
			c.live(false)
		})
	}
	// The agent under a shell in the wrapped tab (a grandchild of wrap):
	// the tab is bound through the shell, and kill -9 of the agent (the
	// shell, and so the tab, live on) is a gone process.
	t.Run("under-a-shell/kill", func(t *testing.T) {
		c := newClaude(t, false)
		p := c.StartPane(PaneOptions{Name: "main", Wrap: true,
			Argv: []string{"sh", "-c", ShellQuote(c.bin) + " --permission-mode default; sleep 600"}})
		p.WaitScreen("for shortcuts", tStart)
		c.plainNoHooks(p, p.Tab)
		if err := syscallKill(c.claudePID(p)); err != nil {
			t.Fatal(err)
		}
		c.Timeline.Next(Step{State: "ended", Reason: "process_gone", Source: "registry", Tab: p.Tab}, tStep)
		c.Timeline.Quiet(settle)
	})
}

// plainNoHooks runs one plain turn without hooks to done.
func (c *claude) plainNoHooks(p *Pane, tab string) {
	c.T.Helper()
	p.Submit("hello plain")
	c.Timeline.Next(Step{State: "ready", Reason: "session_start", Source: "log", Tab: tab}, tStep)
	c.Timeline.Next(Step{State: "working", Reason: "prompt", Source: "log", Tab: tab}, tStep)
	c.Timeline.Next(Step{State: "done", Reason: "turn_end", Source: "log", Tab: tab}, tStep)
	p.WaitScreen(AnthShortAnswer, tStep)
	c.Timeline.Quiet(settle)
}

// maybe consumes the next change if it is opt (waiting for one to come).
func (c *claude) maybe(opt Step, timeout time.Duration) {
	c.Timeline.Maybe(opt, timeout)
}

// sessionStatus is the first session as `logwatch status --json` shows it.
type sessionStatus struct {
	Session string `json:"session"`
	Pid     int    `json:"pid"`
	Live    bool   `json:"live"`
	Title   string `json:"title"`
}

func (c *claude) status() sessionStatus {
	c.T.Helper()
	out, err := c.Logwatch("status", "--json")
	if err != nil {
		c.T.Fatalf("status: %v %s", err, out)
	}
	var st struct {
		Sessions []sessionStatus `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		c.T.Fatal(err)
	}
	for _, s := range st.Sessions {
		if s.Session == c.Timeline.Session() {
			return s
		}
	}
	c.T.Fatalf("status has no session %s", c.Timeline.Session())
	return sessionStatus{}
}

// live checks what `logwatch status --json` says of the first session's
// process.
func (c *claude) live(want bool) {
	c.T.Helper()
	if s := c.status(); s.Live != want || (want && s.Pid == 0) {
		c.T.Errorf("status says pid %d live %v, want live %v", s.Pid, s.Live, want)
	}
}

// claudePID finds the claude process under the pane's process tree.
func (c *claude) claudePID(p *Pane) int {
	c.T.Helper()
	var walk func(pid int) int
	walk = func(pid int) int {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.TrimSpace(string(b)) == "claude" {
			return pid
		}
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
		for _, task := range tasks {
			b, _ := os.ReadFile(task)
			for _, f := range strings.Fields(string(b)) {
				child, _ := strconv.Atoi(f)
				if q := walk(child); q != 0 {
					return q
				}
			}
		}
		return 0
	}
	pid := walk(p.PID())
	if pid == 0 {
		c.T.Fatalf("no claude process under the pane:\n%s", ProcessTree(p.PID()))
	}
	return pid
}

// An automatic compaction inside a turn: the answer before reports a
// context nearly full, so the next prompt compacts first and then goes on:
// compacting, then back to working, then done.
func TestClaudeAutoCompactInTurn(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	c.turn(p, "HUGE context please")
	p.WaitScreen(AnthShortAnswer, tStep)
	c.Timeline.Quiet(settle)
	p.Submit("hello after huge")
	c.Timeline.Next(stPrompt(p.Tab), tStep)
	c.Timeline.Next(Step{State: "compacting", Reason: "compaction", Source: "hook", Tab: p.Tab, Detail: "auto"}, tStep)
	// The SessionStart (source compact) inside the turn: back to working.
	c.Timeline.Next(Step{State: "working", Reason: "compaction", Source: "hook", Tab: p.Tab}, tStep)
	c.Timeline.Next(stDone(p.Tab), tStep)
	c.Timeline.Quiet(settle)
	if n := c.api.CountKind(AnthReqCompact); n != 1 {
		t.Errorf("%d compaction requests, want 1", n)
	}
}

// Closing the pane or killing the agent while it streams: ended, once,
// and the partial answer Claude flushes on its way out revives nothing.
func TestClaudeEndWhileWorking(t *testing.T) {
	for _, how := range []string{"close", "kill"} {
		t.Run(how, func(t *testing.T) {
			c := newClaude(t, true)
			p := c.start("main", true)
			c.Timeline.Next(stReady(p.Tab), tStep)
			p.Submit("SLOW please")
			c.Timeline.Next(stPrompt(p.Tab), tStep)
			p.WaitScreen("word5 ", tStep)
			if how == "close" {
				p.Close()
				// Claude's SessionEnd (reason other) on the hangup.
				c.Timeline.Next(Step{State: "ended", Reason: "session_end", Source: "hook", Tab: p.Tab}, tStep)
			} else {
				if err := syscallKill(p.AgentPID()); err != nil {
					t.Fatal(err)
				}
				// No hook from a killed process: wrap's tab-closed.
				c.Timeline.Next(Step{State: "ended", Reason: "tab_closed", Source: "api", Tab: p.Tab}, tStep)
			}
			c.Timeline.Quiet(settle)
		})
	}
}

// Esc at the prompt while a background agent runs interrupts nothing (the
// main turn is over; the agent goes on): no change, then done once the
// agent's result is in.
func TestClaudeEscWhileBackgroundAgent(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	p.Submit("AGENT please delegate")
	c.Timeline.Next(stPrompt(p.Tab), tStep)
	c.Timeline.Next(stTool(p.Tab, ""), tStep)
	c.Timeline.Next(Step{State: "working", Reason: "subagents_pending", Source: "hook", Tab: p.Tab}, tStep)
	p.WaitScreen("Waiting for 1 background agent", tStep)
	p.Key("Escape")
	c.WaitKeys(1, tStep)
	c.Timeline.Next(stPrompt(p.Tab), 40*time.Second)
	done := c.Timeline.Next(stDone(p.Tab), tStep)
	c.doneAfterSubagent(done)
	c.Timeline.Quiet(settle)
}

// Two tabs, two sessions in one daemon: each change names its own tab, and
// an Esc in one tab interrupts only that tab's session.
func TestClaudeTwoTabs(t *testing.T) {
	c := newClaude(t, true)
	a := c.start("a", true)
	c.Timeline.Next(stReady(a.Tab), tStep)
	b := c.start("b", true)
	rb := c.Timeline.Next(Step{State: "ready", Reason: "session_start", Source: "hook", Tab: b.Tab, Session: Any}, tStep)
	if rb.Session == c.Timeline.Session() {
		t.Fatalf("both tabs report session %s", rb.Session)
	}
	inB := func(st Step) Step { st.Session = rb.Session; return st }
	c.turn(a, "hello from a")
	b.Submit("SLOW please")
	c.Timeline.Next(inB(stPrompt(b.Tab)), tStep)
	b.WaitScreen("word5 ", tStep)
	b.Press("Escape")
	c.Timeline.Next(inB(stInterrupted(b.Tab, "key+log")), tStep)
	a.Submit("hello again from a")
	c.Timeline.Next(stPrompt(a.Tab), tStep)
	c.Timeline.Next(stDone(a.Tab), tStep)
	c.Timeline.Quiet(settle)
}

// /clear ends the conversation and starts a new one in the same tab: the
// old session ends, the new one is announced on the tab, and the tab's keys
// go to the new one.
func TestClaudeClear(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	c.turn(p, "hello before clear")
	p.WaitScreen(AnthShortAnswer, tStep)
	p.Submit("/clear")
	c.Timeline.Next(Step{State: "ended", Reason: "session_end", Source: "hook", Tab: p.Tab}, tStep)
	nw := c.Timeline.Next(Step{State: "ready", Reason: "session_start", Source: "hook", Tab: p.Tab, Session: Any}, tStep)
	if nw.Session == c.Timeline.Session() {
		t.Fatalf("/clear kept session %s", nw.Session)
	}
	in := func(st Step) Step { st.Session = nw.Session; return st }
	p.Submit("SLOW please")
	c.Timeline.Next(in(stPrompt(p.Tab)), tStep)
	p.WaitScreen("word5 ", tStep)
	p.Press("Escape")
	c.Timeline.Next(in(stInterrupted(p.Tab, "key+log")), tStep)
	c.Timeline.Quiet(settle)
}

// Ctrl+C at an idle prompt only arms Claude's "press again to exit": no
// change; Ctrl+C twice quits: ended, once.
func TestClaudeCtrlCIdle(t *testing.T) {
	c := newClaude(t, true)
	p := c.start("main", true)
	c.Timeline.Next(stReady(p.Tab), tStep)
	c.turn(p, "hello plain")
	p.WaitScreen(AnthShortAnswer, tStep)
	p.Key("C-c")
	c.WaitKeys(1, tStep)
	c.Timeline.Quiet(settle)
	// The hint has timed out by now: two presses quit.
	p.Key("C-c")
	p.Key("C-c")
	c.Timeline.Next(Step{State: "ended", Reason: "session_end", Source: "hook", Tab: p.Tab}, tStep)
	p.WaitExit(tStep)
	c.Timeline.Quiet(settle)
}
