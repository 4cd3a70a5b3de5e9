package relay

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/testsupport"
)

// Today's checkpoint format, pinned: testdata/checkpoint/v1.state.json is
// what a relay with sessions in every state (some frozen), tabs, tab
// processes and registry processes saves, v1.marks.json its file marks,
// and v1.status.json what a relay restored from that file shows. A new
// build must write the same bytes for the same state and read the old
// ones into the same status.

const (
	checkpointState  = "testdata/checkpoint/v1.state.json"
	checkpointMarks  = "testdata/checkpoint/v1.marks.json"
	checkpointStatus = "testdata/checkpoint/v1.status.json"
)

// fakeFacts is the machine's processes, as the relay asks about them: pid
// → its parent (0: none) and start time.
type fakeFacts map[int]struct {
	parent int
	start  uint64
}

func (f fakeFacts) Alive(pid int, start uint64) bool {
	p, ok := f[pid]
	return ok && (start == 0 || p.start == start)
}

func (f fakeFacts) Descends(pid, ancestor int) bool {
	for ; pid != 0; pid = f[pid].parent {
		if pid == ancestor {
			return true
		}
	}
	return false
}

func (f fakeFacts) Watch(int, uint64) bool { return false } // the sweep polls

// checkpointProcs: tab T-reg runs 4001, whose child 4002 is a registry
// agent; 4003 is an agent whose registry file was removed while it runs
// on; 4010 is tab T-direct's own process.
var checkpointProcs = fakeFacts{
	4001: {0, 700}, 4002: {4001, 701}, 4003: {0, 702}, 4010: {0, 703},
}

// representativeRelay drives a relay, freezing sessions at rest at its own
// times, into a state with two sessions in every state, several frozen.
func representativeRelay(t *testing.T) *harness {
	cfg := DefaultConfig()
	cfg.Worktrees = []string{"/w/app"}
	cfg.TurnQuiet = time.Hour
	h := newHarnessFreezing(t, cfg, freezeAtRest)
	h.do(func() { h.r.procs.facts = checkpointProcs })
	// History read at start-up: finished turns (frozen at BootstrapDone)
	// and one mid-turn.
	for i := range 4 {
		id := uid(i)
		h.line(claude, id, cPrompt(id, "hi"), true)
		h.line(claude, id, cFinal(id), true)
		h.line(claude, id, cTurnDuration(id, 0), true)
	}
	h.line(claude, uid(9), cPrompt(uid(9), "still going"), true)
	h.line(codex, uid(40), xMeta(uid(40)), true)
	h.line(codex, uid(40), xEvent("task_started", `,"turn_id":"t1"`), true)
	h.r.BootstrapDone()
	h.sync()
	must(t, h.r.Ack(h.ctx, uid(0))) // done → ready (acknowledged)
	must(t, h.r.Ack(h.ctx, uid(1)))
	// Hooked sessions, bound to tabs: ready, working, waiting, compacting,
	// done, ended; two of each.
	for i, tab := range []string{"T-a", "T-b"} {
		s := func(state string) string { return state + "-" + string(rune('1'+i)) }
		must(t, h.hook(tab, "claude", claudeHook("SessionStart", s("ready"))))
		must(t, h.hook(tab+"-w", "claude", claudeHook("UserPromptSubmit", s("working"))))
		must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", s("waiting"))))
		must(t, h.hook("", "claude", claudeHook("PermissionRequest", s("waiting"), "tool_name", "Bash", "tool_input", `{"command":"rm -r build"}`)))
		must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", s("compacting"))))
		must(t, h.hook("", "claude", claudeHook("PreCompact", s("compacting"), "trigger", "auto")))
		must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", s("done"))))
		must(t, h.hook("", "claude", claudeHook("SubagentStart", s("done"), "agent_id", "a1")))
		must(t, h.hook("", "claude", claudeHook("Stop", s("done"))))
		must(t, h.hook(tab+"-e", "claude", claudeHook("SessionStart", s("ended"))))
		must(t, h.hook(tab+"-e", "claude", claudeHook("SessionEnd", s("ended"))))
	}
	// Tab processes, and registry processes: one bound to its tab by
	// ancestry, one whose file is gone while its process runs on.
	must(t, h.r.TabProcessStarted(h.ctx, "T-reg", 4001, 700))
	must(t, h.r.TabProcessStarted(h.ctx, "T-direct", 4010, 703))
	h.r.RegistryEntry(RegistryProcess{Path: "/reg/4002.json", Pid: 4002, SessionID: "reg-1", ProcStart: 701,
		Status: "busy", StartedAt: 1796122600000, StatusUpdatedAt: 1796122700001})
	h.r.RegistryEntry(RegistryProcess{Path: "/reg/4003.json", Pid: 4003, SessionID: "reg-2", ProcStart: 702,
		Status: "busy", StartedAt: 1796122600500, StatusUpdatedAt: 1796122700002})
	h.line(claude, "reg-1", cPrompt("reg-1", "hi"), false)
	h.line(claude, "reg-2", cPrompt("reg-2", "hi"), false)
	h.r.RegistryRemoved("/reg/4003.json")
	h.sync()
	h.clock.Advance(time.Second)
	return h
}

// TestCheckpointFormat pins the bytes a representative state is saved as.
func TestCheckpointFormat(t *testing.T) {
	h := representativeRelay(t)
	saved := make(chan Saved, 1)
	h.r.Save(func(s Saved) { saved <- s })
	sv := <-saved
	if n := frozenCount(h); n < 4 {
		t.Fatalf("%d sessions frozen: the state does not cover frozen sessions", n)
	}
	var st savedRelay
	must(t, json.Unmarshal(sv.State, &st))
	if len(st.Tabs) < 4 || len(st.TabProcs) != 2 || len(st.Registry) != 2 || !st.Registry[1].Removed {
		t.Fatalf("tabs %v, tab processes %v, registry %+v: not what the state must cover", st.Tabs, st.TabProcs, st.Registry)
	}
	states := map[string]int{}
	for _, e := range st.Sessions {
		states[string(e.Session.State)]++
	}
	for _, s := range []string{"ready", "working", "waiting", "compacting", "done", "ended"} {
		if states[s] < 2 {
			t.Fatalf("sessions by state %v: want two or more %s", states, s)
		}
	}
	marks, err := json.MarshalIndent(sv.Marks, "", "\t")
	must(t, err)
	if *update {
		must(t, os.MkdirAll("testdata/checkpoint", 0o755))
	}
	testsupport.Golden(t, checkpointState, sv.State, *update)
	testsupport.Golden(t, checkpointMarks, append(marks, '\n'), *update)
}

// TestCheckpointReadable: the pinned checkpoint restores into the pinned
// status, and is saved again as the same bytes.
func TestCheckpointReadable(t *testing.T) {
	state, err := os.ReadFile(checkpointState)
	must(t, err)
	h := newHarnessFreezing(t, DefaultConfig(), freezeAtRest)
	h.do(func() { h.r.procs.facts = checkpointProcs })
	h.r.Restore(state)
	<-h.r.Restored()
	st := h.sync()
	if len(st.Sessions) == 0 {
		t.Fatal("nothing restored")
	}
	got, err := json.MarshalIndent(st.Sessions, "", "\t")
	must(t, err)
	testsupport.Golden(t, checkpointStatus, append(got, '\n'), *update)
	saved := make(chan Saved, 1)
	h.r.Save(func(s Saved) { saved <- s })
	if again := (<-saved).State; string(again) != string(state) {
		t.Errorf("the restored state is saved otherwise:\n%s\nwant\n%s", again, state)
	}
}
