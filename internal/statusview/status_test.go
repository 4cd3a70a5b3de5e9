package statusview

import (
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/relay/wire"
)

// TestWriteStatusCounters: the text status shows what the README says it
// counts, interrupts with the key→marker latency included.
func TestWriteStatusCounters(t *testing.T) {
	var b strings.Builder
	st := wire.Status{Sessions: []wire.Event{}, Counters: wire.Counters{Keys: 3, InterruptCandidates: 2,
		InterruptsConfirmed: 1, InterruptsUnconfirmed: 1, KeyToMarkerLastMs: 261, KeyToMarkerMaxMs: 284, SubscriberResyncs: 4}}
	WriteStatus(&b, st, false, time.Now())
	for _, want := range []string{"keys 3: 2 interrupt candidates, 1 confirmed, 1 unconfirmed", "key→marker last 261 ms, max 284 ms",
		"4 subscriber resyncs", "No session found"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestStatusShowsLiveSessions: by default the live sessions and the ones
// that changed recently; a session whose process is gone and that has not
// changed for a while is history (--all).
func TestStatusShowsLiveSessions(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	sessions := []wire.Event{
		{Session: "live-old", Agent: "claude", State: "ready", Pid: 101, Live: true, Since: ago(72 * time.Hour)},
		{Session: "gone-recent", Agent: "claude", State: "ended", Pid: 102, Since: ago(time.Minute)},
		{Session: "gone-old", Agent: "claude", State: "ended", Pid: 103, Since: ago(time.Hour)},
		{Session: "unknown-working", Agent: "codex", State: "working", Since: ago(3 * time.Hour)},
		{Session: "unknown-ended", Agent: "codex", State: "ended", Since: ago(3 * time.Hour)},
		{Session: "unknown-stale", Agent: "codex", State: "done", Since: ago(48 * time.Hour)},
	}
	want := map[string]bool{"live-old": true, "gone-recent": true, "unknown-working": true}
	for _, s := range sessions {
		if got := Shown(s, now); got != want[s.Session] {
			t.Errorf("Shown(%s) = %v, want %v", s.Session, got, want[s.Session])
		}
	}
	var b strings.Builder
	WriteStatus(&b, wire.Status{Sessions: sessions}, false, now)
	out := b.String()
	for _, w := range []string{"live-", "101", "gone-r", " gone ", "unknown-w", "PROCESS", "(3 sessions of the history not shown"} {
		if !strings.Contains(out, w) {
			t.Errorf("status lacks %q:\n%s", w, out)
		}
	}
	for _, w := range []string{"gone-o", "unknown-e", "unknown-s"} {
		if strings.Contains(out, w) {
			t.Errorf("status shows %q:\n%s", w, out)
		}
	}
	b.Reset()
	WriteStatus(&b, wire.Status{Sessions: sessions}, true, now)
	if !strings.Contains(b.String(), "gone-o") || strings.Contains(b.String(), "not shown") {
		t.Errorf("--all:\n%s", b.String())
	}
}

// A remote's line says what of it is not shown: sessions past the ones
// kept, lines that were no event.
func TestRemoteLineLoss(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	r := wire.RemoteState{Name: "box", State: wire.RemoteUp, Since: now.Add(-time.Minute), Version: "v1", Sessions: 20000, Dropped: 180000, Skipped: 2}
	if got, want := RemoteLine(r, now), "up 1m0s, logwatch v1, 20000 sessions; 180000 more sessions not shown (too many); 2 bad lines skipped"; got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}
