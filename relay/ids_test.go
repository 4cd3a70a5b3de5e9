package relay

import (
	"strings"
	"testing"

	"github.com/logwatch/logwatch/relay/wire"
)

// A session id over MaxIDBytes (OpenCode's are not bounded) is known by
// its short form wherever it enters: its log and its hooks move one
// session, shown under the short form, and an acknowledgement naming
// either form reaches it.
func TestLongSessionID(t *testing.T) {
	h := newHarness(t, Config{})
	long := strings.Repeat("L", 1500)
	short := wire.BoundID(long)
	h.line(claude, long, cPrompt(long, "go"), false)
	h.expect("working/prompt/log.turn_start")
	if ev := h.state(short); ev.Session != short {
		t.Fatalf("shown as %q", ev.Session)
	}
	if err := h.hook("T1", "claude", claudeHook("Stop", long)); err != nil {
		t.Fatalf("a hook naming the long id: %v", err)
	}
	h.expect("done/turn_end/hook.stop")
	if err := h.r.Ack(h.ctx, long); err != nil {
		t.Fatalf("ack by the full id: %v", err)
	}
	h.expect("ready/acknowledged/api.ack")
	if err := h.hook("T1", "claude", claudeHook("Stop", long)); err != nil {
		t.Fatal(err)
	}
	h.expect("done/turn_end/hook.stop")
	if err := h.r.Ack(h.ctx, short); err != nil {
		t.Fatalf("ack by the short form: %v", err)
	}
	h.expect("ready/acknowledged/api.ack")
	if st := h.sync(); len(st.Sessions) != 1 || st.Counters.BadRequests != 0 {
		t.Fatalf("sessions %d, bad requests %d", len(st.Sessions), st.Counters.BadRequests)
	}
}

// A checkpoint written before ids were bounded may hold a longer one: it
// is restored under the short form its next hook names, with its tab, so
// the session stays one and can be acknowledged.
func TestRestoreLongSessionID(t *testing.T) {
	long := strings.Repeat("R", 1500)
	short := wire.BoundID(long)
	h := newHarness(t, Config{})
	h.r.Restore([]byte(`{"version":1,"seq":3,"tabs":{"T1":"` + long + `"},"sessions":[{"session":{"agent":"claude","id":"` + long +
		`","state":"done","reason":"turn_end","source":"hook","rule":"hook.stop","subagents":null},"tab":"T1","since":"2026-11-29T11:00:00Z"}]}`))
	h.r.BootstrapDone()
	if ev := h.state(short); ev.State != "done" || ev.Tab != "T1" {
		t.Fatalf("restored as %s in tab %q", ev.State, ev.Tab)
	}
	h.changes()
	if err := h.r.Ack(h.ctx, short); err != nil {
		t.Fatalf("ack of the restored session: %v", err)
	}
	h.expect("ready/acknowledged/api.ack")
	if err := h.hook("T1", "claude", claudeHook("UserPromptSubmit", long)); err != nil {
		t.Fatal(err)
	}
	h.expect("working/prompt/hook.prompt")
	if st := h.sync(); len(st.Sessions) != 1 || st.Counters.HooksDropped != 0 {
		t.Fatalf("sessions %d, hooks dropped %d", len(st.Sessions), st.Counters.HooksDropped)
	}
}
