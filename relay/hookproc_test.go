package relay

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/proctree"
)

// hookFrom sends a hook whose client named the agent process pid.
func (h *harness) hookFrom(tab string, pid int, payload string) {
	h.t.Helper()
	start, err := proctree.StartTime(pid)
	if err != nil {
		h.t.Fatal(err)
	}
	h.hookFromStart(tab, pid, start, payload)
}

func (h *harness) hookFromStart(tab string, pid int, start uint64, payload string) {
	h.t.Helper()
	if err := h.r.HookFrom(h.ctx, "claude", tab, AgentProcess{Pid: pid, Start: start}, []byte(payload)); err != nil {
		h.t.Fatal(err)
	}
}

// awaitGone waits until the relay has found n processes gone: at the
// pidfd's word, or (sweep) at the next sweep.
func (h *harness) awaitGone(n int64, sweep bool) {
	h.t.Helper()
	if sweep {
		// The sweep is armed by the step's effects, applied after the step:
		// Restored is closed before them (a CI run under -race advanced
		// the clock first, and the sweep never ran).
		h.sync()
		h.clock.Advance(registrySweep)
	}
	for i := 0; h.sync().Counters.ProcessesGone < n; i++ {
		if i > 1000 {
			h.t.Fatalf("%d processes found gone, want %d", h.sync().Counters.ProcessesGone, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// hook.process_gone: the agent process a hook named (an agent run in a
// plain terminal, no wrap, no registry) is the session's: published with
// it, and its kill -9 ends the session, once. Both ways of learning it: a
// pidfd, and the sweep where there are none.
func TestHookProcessGone(t *testing.T) {
	for _, sweep := range []bool{false, true} {
		mode := "pidfd"
		if sweep {
			mode = "sweep"
		}
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t, Config{})
			h.do(func() { h.r.procs.exitsOff = sweep })
			p := spawn(t)
			h.hookFrom("", p.child, claudeHook("SessionStart", "s1"))
			h.hookFrom("", p.child, claudeHook("UserPromptSubmit", "s1", "prompt", "hi"))
			h.expect("ready/session_start/hook.session_start", "working/prompt/hook.prompt")
			if got := h.state("s1"); got.Pid != p.child || !got.Live {
				t.Fatalf("state %+v: want pid %d live", got, p.child)
			}
			if n := h.sync().Counters.RegistryProcesses; n != 0 {
				t.Errorf("registry_processes = %d, want 0: a hook's process is no registry file", n)
			}
			p.kill()
			h.awaitGone(1, sweep)
			h.expect("ended/process_gone/hook.process_gone")
			h.awaitRegistry(0) // nothing kept once told: no file will remove it
			h.clock.Advance(3 * registrySweep)
			h.expect()
		})
	}
}

// A hook naming a process that is gone already (it exited before the
// daemon read the hook, or the pid is another process's now: another
// start time) ends the session at once; the hook itself is folded first.
func TestHookProcessAlreadyGone(t *testing.T) {
	h := newHarness(t, Config{})
	self, err := proctree.StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	h.hookFromStart("", os.Getpid(), self+1, claudeHook("SessionStart", "s1")) // a reused pid
	h.expect("ready/session_start/hook.session_start", "ended/process_gone/hook.process_gone")
	h.awaitRegistry(0)
	// The conversation resumed in a live process comes back.
	p := spawn(t)
	h.hookFrom("", p.child, claudeHook("SessionStart", "s1", "source", "resume"))
	h.expect("ready/session_start/hook.session_start")
	if got := h.state("s1"); got.Pid != p.child || !got.Live {
		t.Fatalf("state %+v: want pid %d live", got, p.child)
	}
}

// A resumed session in a new process: the old process's exit ends nothing
// while the new one runs; the new one's does.
func TestHookProcessResumedElsewhere(t *testing.T) {
	h := newHarness(t, Config{})
	old, cur := spawn(t), spawn(t)
	h.hookFrom("", old.child, claudeHook("SessionStart", "s1"))
	h.clock.Advance(time.Second)
	h.hookFrom("", cur.child, claudeHook("SessionStart", "s1", "source", "resume"))
	h.hookFrom("", cur.child, claudeHook("UserPromptSubmit", "s1", "prompt", "hi"))
	// The resume changes no state: the session is published again with its
	// new process.
	h.expect("ready/session_start/hook.session_start", "ready/session_start/hook.process", "working/prompt/hook.prompt")
	old.kill()
	h.awaitGone(1, false)
	h.expect()
	if got := h.state("s1"); got.Pid != cur.child || !got.Live {
		t.Fatalf("state %+v: want pid %d live", got, cur.child)
	}
	cur.kill()
	h.awaitGone(2, false)
	h.expect("ended/process_gone/hook.process_gone")
}

// One process running two conversations (OpenCode's sessions, a /clear
// without SessionEnd): its exit ends both. The shared pidfd is released
// only with the last of them.
func TestHookProcessTwoSessions(t *testing.T) {
	h := newHarness(t, Config{})
	p := spawn(t)
	h.hookFrom("", p.child, claudeHook("SessionStart", "s1"))
	h.hookFrom("", p.child, claudeHook("SessionStart", "s2"))
	h.expect("ready/session_start/hook.session_start", "ready/session_start/hook.session_start")
	p.kill()
	h.awaitGone(2, false)
	h.expect("ended/process_gone/hook.process_gone", "ended/process_gone/hook.process_gone")
	h.awaitRegistry(0)
}

// A session whose registry file names the same process keeps the
// registry's account (its removal is a goodbye), whichever was read first:
// the hook adds nothing, or yields to the file read after it. Live, Claude
// Code's SessionStart hook was seen ahead of its file, and its exit ended
// the session as the hook's (hook.process_gone) before this.
func TestHookProcessOfARegistrySession(t *testing.T) {
	for _, hookFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("hook first=%v", hookFirst), func(t *testing.T) {
			h := newHarness(t, Config{})
			p := spawn(t)
			if !hookFirst {
				h.reg(p.child, "s1", "idle", "")
			}
			h.hookFrom("", p.child, claudeHook("SessionStart", "s1"))
			h.expect("ready/session_start/hook.session_start")
			if hookFirst {
				h.reg(p.child, "s1", "idle", "")
			}
			h.awaitRegistry(1)
			p.kill()
			h.awaitGone(1, false)
			h.expect("ended/process_gone/registry.process_gone")
		})
	}
}

// An agent in a wrapped tab (under the tab's shell): its exit leaves the
// tab's close, which wrap reports first-hand, its 2 s; a tab that lives on
// (the shell) has the process's exit end it after them.
func TestHookProcessInATab(t *testing.T) {
	for _, closes := range []bool{true, false} {
		t.Run(fmt.Sprintf("tab closes=%v", closes), func(t *testing.T) {
			h := newHarness(t, Config{})
			p := spawn(t)
			h.tabProc("T", p.shell())
			h.hookFrom("T", p.child, claudeHook("SessionStart", "s1"))
			h.expectTabs("ready/session_start/hook/hook.session_start tab=T")
			p.kill()
			h.awaitGone(1, false)
			h.expect()
			if closes {
				if _, err := h.r.TabClosed(h.ctx, "T"); err != nil {
					t.Fatal(err)
				}
				h.expectTabs("ended/tab_closed/api/api.tab_closed tab=T")
			}
			h.clock.Advance(registrySweep)
			if closes {
				h.expect()
			} else {
				h.expectTabs("ended/process_gone/hook/hook.process_gone tab=T")
			}
			h.awaitRegistry(0)
		})
	}
}

// A hook's process is kept in the checkpoint: one that exited while the
// daemon was down ends its session once the state is restored.
func TestHookProcessRestored(t *testing.T) {
	h := newHarness(t, Config{})
	p := spawn(t)
	h.hookFrom("", p.child, claudeHook("SessionStart", "s1"))
	h.expect("ready/session_start/hook.session_start")
	var saved Saved
	done := make(chan struct{})
	h.r.Save(func(s Saved) { saved = s; close(done) })
	<-done
	h.stop()
	p.kill()
	h2 := newHarness(t, Config{})
	h2.r.Restore(saved.State)
	<-h2.r.Restored()
	h2.awaitGone(1, true)
	h2.expect("ended/process_gone/hook.process_gone")
	h2.awaitRegistry(0)
}

// A session its log showed first (OpenCode writes its database before its
// plugin reports) is published again once a hook names its process, even
// if the hook changes nothing: a view places it by its process.
func TestHookProcessRepublished(t *testing.T) {
	h := newHarness(t, Config{})
	p := spawn(t)
	h.line(claude, "s1", cPrompt("s1", "hi"), false)
	h.expect("working/prompt/log.turn_start")
	h.hookFrom("", p.child, claudeHook("UserPromptSubmit", "s1", "prompt", "hi"))
	h.expect("working/prompt/hook.process")
	if got := h.state("s1"); got.Pid != p.child || !got.Live {
		t.Fatalf("state %+v: want pid %d live", got, p.child)
	}
	h.hookFrom("", p.child, claudeHook("PreToolUse", "s1", "tool_name", "Bash", "tool_input", `{"command":"ls"}`))
	h.expect("working/tool/hook.pre_tool")
	// A session in a tab is placed by its tab: a process that changes
	// nothing else publishes nothing (OpenCode resumed in a new tab, its
	// database read before its plugin's first report).
	h.hook("T", "claude", claudeHook("SessionStart", "s2"))
	h.expect("ready/session_start/hook.session_start")
	h.hookFrom("T", p.child, claudeHook("SessionStart", "s2", "source", "resume"))
	h.expect()
	if got := h.state("s2"); got.Pid != p.child || !got.Live {
		t.Fatalf("state %+v: want pid %d live", got, p.child)
	}
}
