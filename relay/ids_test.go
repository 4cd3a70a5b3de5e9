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
