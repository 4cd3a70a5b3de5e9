package relay

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestEncodeStateIsMarshal: the streamed state decodes to exactly what
// json.Marshal of the whole savedRelay gave, tabs and several sessions
// included, and the relay restores it.
func TestEncodeStateIsMarshal(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	must(t, h.hook("tab-1", "claude", claudeHook("UserPromptSubmit", "s1")))
	must(t, h.hook("", "claude", claudeHook("SubagentStart", "s1", "agent_id", "a1")))
	must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s2")))
	must(t, h.hook("", "claude", claudeHook("Stop", "s2")))
	p1 := spawn(t)
	must(t, h.r.TabProcess(h.ctx, "tab-1", p1.shell()))
	h.reg(p1.child, "s1", "busy", "")
	h.sync()
	type pair struct{ got, want []byte }
	res := make(chan pair, 1)
	h.r.enqueue(func() {
		st := savedRelay{Version: savedVersion, Seq: h.r.m.seq, Tabs: h.r.m.bind.tabs, TabProcs: h.r.m.bind.tabProcs, Registry: h.r.m.regSaved()}
		for _, e := range h.r.m.store.sortedEntries() {
			st.Sessions = append(st.Sessions, savedEntry{Session: e.s.Save(), Tab: e.tab, Since: e.since, Path: e.path})
		}
		want, err := json.Marshal(st)
		if err != nil {
			t.Error(err)
		}
		got, err := h.r.m.encodeState()
		if err != nil {
			t.Error(err)
		}
		res <- pair{got, want}
	})
	p := <-res
	var got, want any
	if err := json.Unmarshal(p.got, &got); err != nil {
		t.Fatalf("streamed state is not JSON: %v\n%s", err, p.got)
	}
	must(t, json.Unmarshal(p.want, &want))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("streamed state\n%s\nwant\n%s", p.got, p.want)
	}
	if n := len(want.(map[string]any)["sessions"].([]any)); n != 2 {
		t.Fatalf("%d sessions saved, want 2", n)
	}
	if want.(map[string]any)["tabs"] == nil || want.(map[string]any)["registry"] == nil {
		t.Fatal("no tab or registry process saved: the test does not cover them")
	}
	var st savedRelay
	must(t, json.Unmarshal(p.got, &st))
	// The sessions decoded one by one are what a plain slice decodes to.
	var plain struct {
		Sessions []savedEntry `json:"sessions"`
	}
	must(t, json.Unmarshal(p.got, &plain))
	if !reflect.DeepEqual([]savedEntry(st.Sessions), plain.Sessions) {
		t.Fatalf("sessions decoded\n%+v\nwant\n%+v", st.Sessions, plain.Sessions)
	}
	// A restart remembers which process each tab runs.
	h2 := newHarness(t, DefaultConfig())
	h2.r.Restore(p.got)
	if pid, err := h2.r.TabPID(h2.ctx, "tab-1"); err != nil || pid != p1.shell() {
		t.Fatalf("restored tab-1 pid %d (%v), want %d", pid, err, p1.shell())
	}
}

// A saved state out of id order, with one session saved twice (a state
// written by hand, or by a build that did not sort): the restore keeps the
// last copy of each id, finds every session by id, and lists each once, in
// every freezing mode.
func TestRestoreUnsortedAndDuplicated(t *testing.T) {
	const state = `{"version":1,"seq":7,"sessions":[
		{"session":{"agent":"claude","id":"00000000-0000-4000-8000-000000000002","state":"done","reason":"turn_end","source":"hook","rule":"hook.stop","subagents":null},"since":"2026-11-29T11:00:00Z"},
		{"session":{"agent":"claude","id":"00000000-0000-4000-8000-000000000001","state":"ready","source":"log","rule":"log.new_session","subagents":null},"since":"2026-11-29T11:00:00Z"},
		{"session":{"agent":"claude","id":"00000000-0000-4000-8000-000000000002","state":"ready","reason":"acknowledged","source":"api","rule":"api.ack","subagents":null},"since":"2026-11-29T11:30:00Z"},
		{"session":{"agent":"claude","id":"plain","state":"done","reason":"turn_end","source":"hook","rule":"hook.stop","subagents":null},"since":"2026-11-29T11:00:00Z"},
		{"session":{"agent":"claude","id":"","state":"done","subagents":null},"since":"2026-11-29T11:00:00Z"}
	]}`
	want := map[string]string{
		"00000000-0000-4000-8000-000000000001": "ready",
		"00000000-0000-4000-8000-000000000002": "ready/acknowledged",
		"plain":                                "done/turn_end",
	}
	for _, mode := range []freezeMode{freezeNever, freezeAtRest, freezeEager} {
		h := newHarnessFreezing(t, DefaultConfig(), mode)
		h.r.Restore([]byte(state))
		h.r.BootstrapDone()
		st := h.sync()
		got := map[string]string{}
		for _, s := range st.Sessions {
			if _, dup := got[s.Session]; dup {
				t.Fatalf("mode %d: %s listed twice", mode, s.Session)
			}
			got[s.Session] = s.State
			if s.Reason != "" {
				got[s.Session] += "/" + s.Reason
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("mode %d: restored %v, want %v", mode, got, want)
		}
		// Found by id: an ack of the done one reaches it.
		must(t, h.r.Ack(h.ctx, "plain"))
		if s := h.state("plain"); s.State != "ready" || s.Reason != "acknowledged" {
			t.Fatalf("mode %d: after ack %s/%s", mode, s.State, s.Reason)
		}
	}
}

// TestSavedSessionsDecode: the one-at-a-time decoder's edge cases.
func TestSavedSessionsDecode(t *testing.T) {
	tests := []struct {
		in      string
		n       int
		wantErr bool
	}{
		{`{"sessions":null}`, 0, false},
		{`{"sessions":[]}`, 0, false},
		{`{"sessions":[{"session":{"id":"a"}},{"session":{"id":"b"}}]}`, 2, false},
		{`{"sessions":{"session":{}}}`, 0, true},
		{`{"sessions":[{"session":{"id":7}}]}`, 0, true},
		{`{"sessions":[{"session":{"id":"a"}},]}`, 0, true},
	}
	for _, tt := range tests {
		var st savedRelay
		err := json.Unmarshal([]byte(tt.in), &st)
		if (err != nil) != tt.wantErr || err == nil && len(st.Sessions) != tt.n {
			t.Errorf("%s: %d sessions, err %v; want %d, error %v", tt.in, len(st.Sessions), err, tt.n, tt.wantErr)
		}
	}
}

// An agent that exits while the daemon is down removes its registry file:
// the checkpoint's link from that file to its session ends the session
// once the registry is listed without it. One whose file went but whose
// process runs on stays, live, until the process exits.
func TestRestoreRegistryProcesses(t *testing.T) {
	h := newHarness(t, Config{TurnQuiet: time.Hour})
	exited, runs := spawn(t), spawn(t)
	h.reg(exited.child, "s1", "busy", "")
	h.reg(runs.child, "s2", "busy", "")
	h.line(claude, "s1", cPrompt("s1", "hi"), false)
	h.line(claude, "s2", cPrompt("s2", "hi"), false)
	h.expect("working/prompt/log.turn_start", "working/prompt/log.turn_start")
	saved := make(chan Saved, 1)
	h.r.Save(func(s Saved) { saved <- s })
	state := (<-saved).State
	h.stop()

	// Down: s1's agent removes its file and exits; s2's file is removed by
	// a cleanup while its agent runs on.
	exited.kill()
	h2 := newHarness(t, Config{TurnQuiet: time.Hour})
	h2.r.Restore(state)
	h2.r.BootstrapDone()
	h2.r.RegistryListed()
	h2.expect("ended/session_end/registry.removed")
	if got := h2.state("s1"); got.Session != "s1" {
		t.Fatalf("ended %+v, want s1", got)
	}
	if got := h2.state("s2"); got.State != "working" || !got.Live || got.Pid != runs.child {
		t.Fatalf("s2 %+v: want working, live, pid %d", got, runs.child)
	}
	runs.kill()
	h2.awaitRegistry(0)
	h2.expect("ended/session_end/registry.removed")
}
