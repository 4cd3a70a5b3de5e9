package relay

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/internal/testsupport"
)

// proc is a real process for the registry to name: a shell (the tab's
// process) running a sleeping child (the agent).
type proc struct {
	sh    *exec.Cmd
	child int
}

func spawn(t *testing.T) *proc {
	t.Helper()
	sh, child := testsupport.ShellWithChild(t)
	goldenCut(t) // before the processes are killed
	return &proc{sh: sh, child: child}
}

// kill ends the agent (kill -9) and waits until it is gone (the shell
// reaps it).
func (p *proc) kill() {
	syscall.Kill(p.child, syscall.SIGKILL)
	for i := 0; i < 400 && proctree.Alive(p.child, 0); i++ {
		time.Sleep(5 * time.Millisecond)
	}
}

func (p *proc) shell() int { return p.sh.Process.Pid }

// reg delivers a registry file for pid naming session, as the watcher does.
func (h *harness) reg(pid int, session, status, waitingFor string) {
	h.t.Helper()
	start, err := proctree.StartTime(pid)
	if err != nil || !proctree.Alive(pid, 0) {
		start = 1 // a process that is gone (a zombie's start is still readable until it is reaped)
	}
	h.regStart(pid, start, session, status, waitingFor)
}

func (h *harness) regStart(pid int, start uint64, session, status, waitingFor string) {
	g := goldenOf(h.t)
	g.regClock++
	h.r.RegistryEntry(RegistryProcess{Path: g.regPath(pid), Pid: pid, SessionID: session,
		ProcStart: start, Status: status, WaitingFor: waitingFor, StatusUpdatedAt: g.regClock, StartedAt: 1})
	h.sync()
}

func (h *harness) regGone(pid int) {
	h.r.RegistryRemoved(goldenOf(h.t).regPath(pid))
	h.sync()
}

// do runs f on the relay goroutine.
func (h *harness) do(f func()) {
	h.t.Helper()
	if err := h.r.do(h.ctx, f); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) tabProc(tab string, pid int) {
	h.t.Helper()
	if err := h.r.TabProcess(h.ctx, tab, pid); err != nil {
		h.t.Fatal(err)
	}
}

func cTool(s, cmd string) string {
	return fmt.Sprintf(`{"type":"assistant","sessionId":%q,"message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":%q}}]}}`, s, cmd)
}

// changesWithTab is changes with each event's tab.
func (h *harness) changesWithTab() []string {
	return h.drain(func(ev Event) string {
		return fmt.Sprintf("%s/%s/%s/%s tab=%s", ev.State, ev.Reason, ev.Source, ev.Rule, ev.Tab)
	})
}

func (h *harness) expectTabs(want ...string) {
	h.t.Helper()
	if got := h.changesWithTab(); strings.Join(got, " | ") != strings.Join(want, " | ") {
		h.t.Fatalf("changes:\n got  %q\n want %q", got, want)
	}
}

// registry.tab_bound: the tab whose process is the agent's ancestor is
// bound to the registry's session, so its keys confirm (key+log) and its
// close ends the session, without any hook.
func TestRegistryBindsTabByPid(t *testing.T) {
	h := newHarness(t, Config{})
	p := spawn(t)
	h.tabProc("T", p.shell())
	h.reg(p.child, "s1", "idle", "")
	h.line(claude, "s1", cPrompt("s1", "hi"), false)
	h.expectTabs("working/prompt/log/log.turn_start tab=T")
	if err := h.r.Key(h.ctx, "T", KeyEsc, time.Time{}); err != nil {
		t.Fatal(err)
	}
	h.line(claude, "s1", cMarker("s1", false), false)
	h.expectTabs("ready/interrupted/key+log/key.confirmed tab=T")
	if _, err := h.r.TabClosed(h.ctx, "T"); err != nil {
		t.Fatal(err)
	}
	h.expectTabs("ended/tab_closed/api/api.tab_closed tab=T")
}

// A tab whose process died without a close is dropped once the table of
// tab processes has grown, so the saved tab processes do not grow forever
// and a report costs O(1) reads of /proc.
func TestTabProcessesOfDeadTabsDropped(t *testing.T) {
	h := newHarness(t, Config{})
	dead, live := spawn(t), spawn(t)
	h.tabProc("gone", dead.child)
	dead.kill()
	for i := range 16 {
		h.tabProc(fmt.Sprintf("T%d", i), live.child)
	}
	gone := true
	n := 0
	h.do(func() { _, gone = h.r.m.bind.tabProcs["gone"]; n = len(h.r.m.bind.tabProcs) })
	if gone || n != 16 {
		t.Fatalf("%d tab processes, the dead tab's kept: %v; want the 16 live ones", n, gone)
	}
}

// A tab never binds by a process every tab shares: pid 1, the daemon or
// an ancestor of it (systemd --user, the host app that started it) are
// refused; a tab whose process is an ancestor of another tab's (a host app
// reporting its own pid) binds nothing by ancestry, so closing it ends no
// other tab's agent.
func TestTabSharedAncestorBindsNothing(t *testing.T) {
	h := newHarness(t, Config{})
	for _, pid := range []int{1, os.Getpid(), os.Getppid()} {
		if err := h.r.TabProcess(h.ctx, "host", pid); err == nil || !strings.Contains(err.Error(), "bad request") {
			t.Fatalf("tab process %d: %v, want a bad request", pid, err)
		}
	}
	// The host app: a process with two children, the agent of a tab it did
	// not report and tab Y's process.
	host := exec.Command("sh", "-c", "sleep 60 & echo $!; sleep 60 & echo $!; wait")
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	var agent, y int
	if _, err := fmt.Fscan(out, &agent, &y); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(agent, syscall.SIGKILL)
		syscall.Kill(y, syscall.SIGKILL)
		host.Process.Kill()
		host.Wait()
	})
	goldenCut(t)
	h.tabProc("host", host.Process.Pid)
	h.tabProc("Y", y)
	h.reg(agent, "s1", "busy", "")
	h.reg(y, "s2", "busy", "")
	h.line(claude, "s1", cPrompt("s1", "hi"), false)
	h.line(claude, "s2", cPrompt("s2", "hi"), false)
	h.expectTabs("working/prompt/log/log.turn_start tab=", "working/prompt/log/log.turn_start tab=Y")
	if _, err := h.r.TabClosed(h.ctx, "host"); err != nil {
		t.Fatal(err)
	}
	h.expectTabs()
}

// Tab processes are bounded: past maxTabProcs live ones, a report is
// refused with an error, and a tab close still works.
func TestTabProcessesBounded(t *testing.T) {
	h := newHarness(t, Config{})
	p := spawn(t)
	for i := range maxTabProcs {
		h.tabProc(fmt.Sprintf("T%d", i), p.child)
	}
	if err := h.r.TabProcess(h.ctx, "one-more", p.child); err == nil {
		t.Fatal("a tab process past the bound was recorded")
	}
	if err := h.r.TabProcess(h.ctx, "T7", p.shell()); err != nil {
		t.Fatalf("a known tab's new process: %v", err)
	}
	if _, err := h.r.TabClosed(h.ctx, "T1"); err != nil {
		t.Fatal(err)
	}
	if err := h.r.TabProcess(h.ctx, "one-more", p.child); err != nil {
		t.Fatalf("after a close: %v", err)
	}
}

// A tab reported after the registry file binds too; the binding also
// reaches a session already shown.
func TestRegistryBindsLateTab(t *testing.T) {
	h := newHarness(t, Config{})
	p := spawn(t)
	h.line(claude, "s1", cPrompt("s1", "hi"), false)
	h.reg(p.child, "s1", "busy", "")
	h.expectTabs("working/prompt/log/log.turn_start tab=")
	h.tabProc("T", p.child) // the host app runs the agent directly
	if got := h.state("s1"); got.Tab != "T" || got.Pid != p.child || !got.Live {
		t.Fatalf("state %+v: want tab T, pid %d, live", got, p.child)
	}
	h.expectTabs()
}

// An agent run inside the tab's agent (its descendant) does not take the
// tab: it stays the outer session's.
func TestRegistryNestedAgentKeepsTab(t *testing.T) {
	h := newHarness(t, Config{})
	p := spawn(t) // the shell is the outer agent, its child the inner one
	h.tabProc("T", p.shell())
	h.reg(p.shell(), "outer", "busy", "")
	h.reg(p.child, "inner", "busy", "")
	h.line(claude, "outer", cPrompt("outer", "hi"), false)
	h.line(claude, "inner", cPrompt("inner", "hi"), false)
	h.expectTabs("working/prompt/log/log.turn_start tab=T", "working/prompt/log/log.turn_start tab=")
}

// Two tabs that report the same process: ambiguous, no tab bound.
func TestRegistryAmbiguousBindsNothing(t *testing.T) {
	h := newHarness(t, Config{})
	p := spawn(t)
	h.tabProc("A", p.shell())
	h.tabProc("B", p.shell())
	h.reg(p.child, "s1", "idle", "")
	h.line(claude, "s1", cPrompt("s1", "hi"), false)
	h.expectTabs("working/prompt/log/log.turn_start tab=")
	if err := h.r.Key(h.ctx, "A", KeyEsc, time.Time{}); err != nil {
		t.Fatal(err)
	}
	h.line(claude, "s1", cMarker("s1", false), false)
	h.expectTabs("ready/interrupted/log/log.interrupt tab=")
}

// registry.waiting and registry.busy_after_wait, without hooks: the wait
// names what Claude waits for; approving goes back to working on the tool;
// idle changes nothing (the log ends the turn).
func TestRegistryWaitingWithoutHooks(t *testing.T) {
	h := newHarness(t, Config{})
	p := spawn(t)
	h.reg(p.child, "s1", "idle", "")
	h.line(claude, "s1", cPrompt("s1", "TOOL"), false)
	h.reg(p.child, "s1", "busy", "")
	h.line(claude, "s1", cTool("s1", "echo hi"), false)
	h.expect("working/prompt/log.turn_start", "working/tool/log.tool")
	h.reg(p.child, "s1", "waiting", "permission prompt")
	h.expect("waiting/permission/registry.waiting")
	if got := h.state("s1"); got.Detail != "permission prompt" || got.Source != "registry" {
		t.Fatalf("waiting %+v", got)
	}
	h.reg(p.child, "s1", "waiting", "permission prompt") // written twice
	h.expect()
	h.reg(p.child, "s1", "busy", "")
	h.expect("working/tool/registry.busy_after_wait")
	if got := h.state("s1"); got.Detail != "echo hi" {
		t.Fatalf("after the wait %+v: want the tool's detail back", got)
	}
	h.reg(p.child, "s1", "idle", "") // before the log's end: nothing
	h.expect()
	h.line(claude, "s1", cToolResult("s1", "hi"), false)
	h.line(claude, "s1", cFinal("s1"), false)
	h.line(claude, "s1", cTurnDuration("s1", 0), false)
	h.expect("done/turn_end/log.turn_end")
	h.reg(p.child, "s1", "waiting", "dialog open") // outside a turn: not a wait
	h.expect()
}

// A wait written before the log's prompt line is read waits for the turn,
// is applied once, and the log's late tool line does not flap it.
func TestRegistryWaitBeforeTheLog(t *testing.T) {
	h := newHarness(t, Config{})
	p := spawn(t)
	h.line(claude, "s1", cMeta("s1"), false)
	h.expect("ready/session_start/log.new_session")
	h.reg(p.child, "s1", "busy", "")
	h.reg(p.child, "s1", "waiting", "permission prompt")
	h.expect()
	h.line(claude, "s1", cPrompt("s1", "TOOL"), false)
	h.line(claude, "s1", cTool("s1", "echo hi"), false)
	h.expect("working/prompt/log.turn_start", "waiting/permission/registry.waiting")
	h.line(claude, "s1", cMarker("s1", true), false) // rejected: the log ends it
	h.expect("ready/interrupted/log.interrupt")
	h.line(claude, "s1", cMeta("s1"), false)
	h.expect()
}

// With hooks the registry's status changes nothing: the hooks named the
// wait first and better ("Bash: …").
func TestRegistryStatusIgnoredWithHooks(t *testing.T) {
	h := newHarness(t, Config{})
	p := spawn(t)
	h.reg(p.child, "s1", "idle", "")
	h.hook("T", "claude", claudeHook("SessionStart", "s1"))
	h.hook("T", "claude", claudeHook("UserPromptSubmit", "s1"))
	h.reg(p.child, "s1", "busy", "")
	h.hook("T", "claude", claudeHook("PermissionRequest", "s1", "tool_name", "Bash", "tool_input", `{"command":"echo hi"}`))
	h.reg(p.child, "s1", "waiting", "permission prompt")
	h.expect("ready/session_start/hook.session_start", "working/prompt/hook.prompt", "waiting/permission/hook.permission_request")
	if got := h.state("s1"); got.Detail != "Bash: echo hi" {
		t.Fatalf("detail %q", got.Detail)
	}
	h.reg(p.child, "s1", "busy", "")
	h.reg(p.child, "s1", "idle", "")
	h.expect()
}

// registry.removed: a file removed, then its process gone, is a goodbye.
// Without hooks it ends the session once the process exits (Claude Code
// exits right after it removes its file); with hooks the SessionEnd hook
// says it first-hand. A removal alone ends nothing: the whole directory
// removed or moved away (a cleanup script, a CLAUDE_CONFIG_DIR change)
// leaves processes that run on, and liveness decides for them.
func TestRegistryRemoved(t *testing.T) {
	t.Run("no hooks", func(t *testing.T) {
		h, p := workingInTab(t)
		h.regGone(p.child)
		h.expect()
		p.kill()
		h.awaitRegistry(0)
		h.expectTabs("ended/session_end/registry/registry.removed tab=T")
		h.r.TabClosed(h.ctx, "T")
		h.clock.Advance(10 * time.Second)
		h.expect()
	})
	// wrap reports its tab closed when its child exits: that races the
	// pidfd's report of the same exit, and the goodbye before both wins.
	t.Run("no hooks, the tab's close first", func(t *testing.T) {
		h, p := workingInTab(t)
		h.regGone(p.child)
		h.clock.Advance(100 * time.Millisecond)
		if n, err := h.r.TabClosed(h.ctx, "T"); err != nil || n != 1 {
			t.Fatalf("tab close ended %d (%v), want 1", n, err)
		}
		h.expectTabs("ended/session_end/registry/registry.removed tab=T")
		p.kill()
		h.clock.Advance(registrySweep)
		h.expect()
	})
	t.Run("directory removed, the tab closed later", func(t *testing.T) {
		h, p := workingInTab(t)
		h.regGone(p.child)
		h.clock.Advance(goodbyeGrace + time.Second)
		h.r.TabClosed(h.ctx, "T")
		h.expectTabs("ended/tab_closed/api/api.tab_closed tab=T")
	})
	t.Run("hooks, SessionEnd follows", func(t *testing.T) {
		h := newHarness(t, Config{})
		p := spawn(t)
		h.reg(p.child, "s1", "idle", "")
		h.hook("T", "claude", claudeHook("SessionStart", "s1"))
		h.expect("ready/session_start/hook.session_start")
		h.regGone(p.child)
		h.expect()
		h.clock.Advance(50 * time.Millisecond)
		h.hook("T", "claude", claudeHook("SessionEnd", "s1"))
		h.expect("ended/session_end/hook.session_end")
		p.kill()
		h.awaitRegistry(0)
		h.clock.Advance(registrySweep)
		h.expect()
	})
	t.Run("hooks, no SessionEnd", func(t *testing.T) {
		h := newHarness(t, Config{})
		p := spawn(t)
		h.reg(p.child, "s1", "idle", "")
		h.hook("T", "claude", claudeHook("SessionStart", "s1"))
		h.expect("ready/session_start/hook.session_start")
		h.regGone(p.child)
		h.clock.Advance(10 * registrySweep)
		h.expect()
		p.kill()
		h.awaitRegistry(0)
		h.expect("ended/session_end/registry.removed")
	})
	for _, sweep := range []bool{false, true} {
		t.Run(fmt.Sprintf("directory removed, processes run on (sweep=%v)", sweep), func(t *testing.T) {
			h := newHarness(t, Config{})
			h.do(func() { h.r.procs.exitsOff = sweep })
			p1, p2 := spawn(t), spawn(t)
			h.reg(p1.child, "s1", "busy", "")
			h.reg(p2.child, "s2", "idle", "")
			h.hook("", "claude", claudeHook("SessionStart", "s2"))
			h.line(claude, "s1", cPrompt("s1", "hi"), false)
			h.expect("ready/session_start/hook.session_start", "working/prompt/log.turn_start")
			// rm -r ~/.claude/sessions: the watcher reports each file gone.
			h.regGone(p1.child)
			h.regGone(p2.child)
			for range 5 {
				h.clock.Advance(registrySweep)
			}
			h.expect()
			if st := h.sync(); st.Counters.RegistryProcesses != 0 || !st.Sessions[0].Live || !st.Sessions[1].Live {
				t.Fatalf("registry_processes %d, live %v %v: want 0 files, both processes live",
					st.Counters.RegistryProcesses, st.Sessions[0].Live, st.Sessions[1].Live)
			}
			// The directory comes back with s1's file; s2's process is killed.
			h.reg(p1.child, "s1", "busy", "")
			h.expect()
			p2.kill()
			if sweep {
				h.clock.Advance(registrySweep)
			}
			h.awaitRegistry(1)
			h.expect("ended/session_end/registry.removed")
			p1.kill()
			if sweep {
				h.clock.Advance(registrySweep)
			}
			for i := 0; h.sync().Counters.ProcessesGone < 1; i++ {
				if i > 1000 {
					t.Fatal("s1's process not found gone")
				}
				time.Sleep(5 * time.Millisecond)
			}
			h.expect("ended/process_gone/registry.process_gone")
		})
	}
}

// workingInTab is a session without hooks, working, whose agent runs in
// tab T's process and names it in the registry.
func workingInTab(t *testing.T) (*harness, *proc) {
	t.Helper()
	h := newHarness(t, Config{})
	p := spawn(t)
	h.tabProc("T", p.shell())
	h.reg(p.child, "s1", "idle", "")
	h.line(claude, "s1", cPrompt("s1", "hi"), false)
	h.expect("working/prompt/log.turn_start")
	return h, p
}

// awaitRegistry waits until the relay follows n registry processes (a
// pidfd tells an exit on its own goroutine).
func (h *harness) awaitRegistry(n int) {
	h.t.Helper()
	for i := 0; ; i++ {
		var got int
		h.do(func() { got = len(h.r.m.reg.procs) })
		if got == n {
			return
		}
		if i > 1000 {
			h.t.Fatalf("%d registry processes followed, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// registry.process_gone: a process gone without removing its file (kill
// -9) ends its session, once; a pid another process reuses (another start
// time) is gone as well. Both ways of learning it: a pidfd telling the
// exit (Linux), and the 2 s sweep (elsewhere).
func TestRegistryProcessGone(t *testing.T) {
	for _, sweep := range []bool{false, true} {
		mode := "pidfd"
		if sweep {
			mode = "sweep"
		}
		newH := func(t *testing.T) *harness {
			h := newHarness(t, Config{})
			h.do(func() { h.r.procs.exitsOff = sweep })
			return h
		}
		found := func(h *harness, n int64) { h.t.Helper(); h.awaitGone(n, sweep) }
		t.Run(mode+"/killed", func(t *testing.T) {
			h := newH(t)
			p := spawn(t)
			start, _ := proctree.StartTime(p.child)
			h.reg(p.child, "s1", "busy", "")
			h.line(claude, "s1", cPrompt("s1", "hi"), false)
			h.expect("working/prompt/log.turn_start")
			if got := h.state("s1"); got.Pid != p.child || !got.Live {
				t.Fatalf("state %+v: want pid %d live", got, p.child)
			}
			h.clock.Advance(registrySweep)
			h.expect()
			p.kill()
			found(h, 1)
			h.expect("ended/process_gone/registry.process_gone")
			if got := h.state("s1"); got.Live {
				t.Fatalf("state %+v: still live", got)
			}
			h.clock.Advance(3 * registrySweep)
			h.regStart(p.child, start, "s1", "idle", "") // its last write, read late
			h.expect()
			if n := h.sync().Counters.ProcessesGone; n != 1 {
				t.Errorf("processes_gone = %d, want 1", n)
			}
		})
		t.Run(mode+"/pid reused", func(t *testing.T) {
			h := newH(t)
			p := spawn(t)
			start, _ := proctree.StartTime(p.child)
			h.line(claude, "s1", cPrompt("s1", "hi"), false)
			h.expect("working/prompt/log.turn_start")
			// The file names the pid with the start time of the process that
			// had it before: the live process with that pid is another one.
			h.regStart(p.child, start-1, "s1", "busy", "")
			h.expect("ended/process_gone/registry.process_gone")
		})
		t.Run(mode+"/procStart in another unit: the same process", func(t *testing.T) {
			h := newH(t)
			p := spawn(t)
			start, _ := proctree.StartTime(p.child)
			at, err := proctree.Started(p.child)
			if err != nil {
				t.Fatal(err)
			}
			h.line(claude, "s1", cPrompt("s1", "hi"), false)
			h.expect("working/prompt/log.turn_start")
			// A release that wrote procStart in milliseconds, say: the file
			// still says when the process started, so it is not a reused pid.
			h.r.RegistryEntry(RegistryProcess{Path: "/reg/x.json", Pid: p.child, SessionID: "s1",
				ProcStart: start * 10, Status: "busy", StartedAt: at.Add(300 * time.Millisecond).UnixMilli()})
			h.sync()
			h.clock.Advance(registrySweep)
			h.expect()
			if got := h.state("s1"); !got.Live {
				t.Fatalf("state %+v: a live process taken for gone", got)
			}
			p.kill()
			found(h, 1)
			h.expect("ended/process_gone/registry.process_gone")
		})
		t.Run(mode+"/a stale file read before its session's log", func(t *testing.T) {
			h := newH(t)
			p := spawn(t)
			h.reg(p.child, "s1", "busy", "")
			p.kill()
			found(h, 1)
			h.line(claude, "s1", cPrompt("s1", "hi"), false)
			h.expect("working/prompt/log.turn_start")
			h.clock.Advance(registrySweep)
			h.expect("ended/process_gone/registry.process_gone")
		})
		t.Run(mode+"/the tab runs it directly: its close says it", func(t *testing.T) {
			h := newH(t)
			p := spawn(t)
			h.tabProc("T", p.child) // wrap's child is the agent
			h.reg(p.child, "s1", "busy", "")
			h.line(claude, "s1", cPrompt("s1", "hi"), false)
			h.expect("working/prompt/log.turn_start")
			p.kill()
			if sweep {
				h.clock.Advance(registrySweep) // the first sweep leaves it to the tab
			} else {
				found(h, 1) // the exit, told at once, leaves it to the tab too
			}
			h.expect()
			h.r.TabClosed(h.ctx, "T")
			h.expect("ended/tab_closed/api.tab_closed")
			h.clock.Advance(3 * registrySweep)
			h.expect()
			if got := h.state("s1"); got.Live {
				t.Errorf("state %+v: a gone process still live", got)
			}
		})
		t.Run(mode+"/the tab runs it directly, its last write read after it died", func(t *testing.T) {
			h := newH(t)
			p := spawn(t)
			start, _ := proctree.StartTime(p.child)
			h.tabProc("T", p.child)
			h.reg(p.child, "s1", "busy", "")
			h.line(claude, "s1", cPrompt("s1", "hi"), false)
			h.expect("working/prompt/log.turn_start")
			p.kill()
			if !sweep {
				found(h, 1)
			}
			// Claude Code writes "idle" as the turn ends; a kill right then
			// has the file read after the process is gone: still the tab's
			// close to say.
			h.regStart(p.child, start, "s1", "idle", "")
			h.expect()
			h.r.TabClosed(h.ctx, "T")
			h.expect("ended/tab_closed/api.tab_closed")
			h.clock.Advance(3 * registrySweep)
			h.expect()
			if n := h.sync().Counters.ProcessesGone; n != 1 {
				t.Errorf("processes_gone = %d, want 1", n)
			}
		})
		t.Run(mode+"/the tab never says: the registry does", func(t *testing.T) {
			h := newH(t)
			p := spawn(t)
			h.tabProc("T", p.child)
			h.reg(p.child, "s1", "busy", "")
			h.line(claude, "s1", cPrompt("s1", "hi"), false)
			h.expect("working/prompt/log.turn_start")
			p.kill()
			if sweep {
				h.clock.Advance(registrySweep) // left to the tab
				found(h, 1)                    // the next sweep says it
			} else {
				found(h, 1) // left to the tab for a sweep's time
				h.expect()
				h.clock.Advance(registrySweep)
			}
			h.expect("ended/process_gone/registry.process_gone")
		})
	}
}

// A file left by a process killed before its transcript existed (Claude
// writes the file first): once start-up is done, a few sweeps wait for the
// session, then the file costs nothing at rest.
func TestRegistryStaleFileStopsSweeping(t *testing.T) {
	h := newHarness(t, Config{})
	h.r.BootstrapDone()
	p := spawn(t)
	p.kill()
	h.reg(p.child, "never", "busy", "")
	armed := func() (on bool) {
		h.do(func() { on = h.r.m.reg.sweepArmed })
		return on
	}
	for i := 0; i <= goneMisses && armed(); i++ {
		h.clock.Advance(registrySweep)
		h.sync()
	}
	if armed() {
		t.Fatalf("still sweeping after %d sweeps for a session that never comes", goneMisses+1)
	}
	h.expect()
}

// A sweep that falls inside the grace left to a tab's own close (its
// process is the agent, and the pidfd told the exit) leaves it alone: the
// close, when it comes, says tab_closed.
func TestRegistrySweepKeepsTheTabsGrace(t *testing.T) {
	h := newHarness(t, Config{})
	stale := spawn(t)
	stale.kill()
	h.reg(stale.child, "other", "busy", "") // keeps a sweep armed
	h.clock.Advance(registrySweep / 2)
	p := spawn(t)
	h.tabProc("T", p.child)
	h.reg(p.child, "s1", "busy", "")
	h.line(claude, "s1", cPrompt("s1", "hi"), false)
	h.expect("working/prompt/log.turn_start")
	p.kill()
	for i := 0; h.sync().Counters.ProcessesGone < 2; i++ {
		if i > 1000 {
			t.Fatal("the exit was never told")
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.clock.Advance(registrySweep / 2) // the sweep, inside the grace
	h.expect()
	h.r.TabClosed(h.ctx, "T")
	h.expect("ended/tab_closed/api.tab_closed")
}

// registry.session_changed: the same process on a new conversation (/clear
// without hooks) ends the old one; the new one takes the tab.
func TestRegistrySessionChanged(t *testing.T) {
	h := newHarness(t, Config{})
	p := spawn(t)
	h.tabProc("T", p.shell())
	h.reg(p.child, "s1", "idle", "")
	h.line(claude, "s1", cPrompt("s1", "hi"), false)
	h.expectTabs("working/prompt/log/log.turn_start tab=T")
	h.reg(p.child, "s2", "idle", "")
	h.expectTabs("ended/session_end/registry/registry.session_changed tab=T")
	h.line(claude, "s2", cPrompt("s2", "again"), false)
	h.expectTabs("working/prompt/log/log.turn_start tab=T")
}
