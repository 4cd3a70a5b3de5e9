package statusview

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/relay/wire"
)

// TestWriteStatusCounters: the text status shows what the README says it
// counts, interrupts with the key→marker latency included.
func TestWriteStatusCounters(t *testing.T) {
	var b strings.Builder
	st := wire.Status{Sessions: []wire.Event{}, Counters: wire.Counters{Keys: 3, InterruptCandidates: 2,
		InterruptsConfirmed: 1, InterruptsUnconfirmed: 1, KeyToMarkerLastMs: 261, KeyToMarkerMaxMs: 284, SubscriberResyncs: 4}}
	WriteStatus(&b, st, false, time.Now(), false)
	for _, want := range []string{"keys 3 ·", "2 interrupt candidates, 1 confirmed, 1 unconfirmed", "key→marker last 261 ms, max 284 ms",
		"4 subscriber resyncs", "No session found"} {
		if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), want) {
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
	WriteStatus(&b, wire.Status{Sessions: sessions}, false, now, false)
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
	WriteStatus(&b, wire.Status{Sessions: sessions}, true, now, false)
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

// TestWriteStatusGolden: the status text fits 80 columns (short tab ids,
// the title cut, where and why on a line of their own, the counters on one
// short line, a line per notification sink with its last error), and on a
// terminal the states are coloured.
func TestWriteStatusGolden(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	lastErr := now.Add(-90 * time.Second)
	st := wire.Status{
		Sessions: []wire.Event{
			{Session: "5f0c2a7e-1d3b-4c5a-9e8f-7a6b5c4d3e2f", Agent: "claude", State: "waiting", Pid: 4242, Live: true,
				Tab: "%12", Title: "Make the status table fit eighty columns on a narrow terminal", Worktree: "/home/dev/src/logwatch",
				Reason: "permission", Detail: "Bash: go test ./internal/statusview/ -run TestWriteStatusGolden -update", Since: now.Add(-42 * time.Second)},
			{Session: "019a7f3c-0000-7000-8000-000000000001", Agent: "codex", State: "working", Tab: "kitty-window-1234567",
				Cwd: "/home/dev/src/api", Reason: "prompt", Since: now.Add(-3 * time.Minute)},
			{Session: "ses_abc", Agent: "opencode", State: "ready", Host: "box", Cwd: "/srv/app", Stale: true, Since: now.Add(-2 * time.Hour), Pid: 9, Live: true},
		},
		Remotes: []wire.RemoteState{{Name: "box", Dest: "dev@box.example.org", State: "down", Since: now.Add(-5 * time.Minute),
			Error: "ssh: connect to host box.example.org port 22: Connection refused", Fix: "check `ssh dev@box.example.org` works", Sessions: 1}},
		Counters: wire.Counters{HooksReceived: 1234, Lines: 123456, Keys: 12, Subscribers: 1, ConnCounters: wire.ConnCounters{Conns: 1, ConnsMax: 256, SubscribersMax: 64, Focused: 2},
			InterruptCandidates: 2, InterruptsConfirmed: 2, KeyToMarkerLastMs: 261, KeyToMarkerMaxMs: 284, Malformed: 3},
		Notify: []wire.SinkStats{{Name: "desktop", Shown: 7, Withdrawn: 6, Replaced: 2},
			{Name: "webhook", Shown: 3, Withdrawn: 1, Failed: 4, Dropped: 1, Cancelled: 1,
				LastError: "POST https://ntfy.sh: 403 Forbidden", LastErrorAt: &lastErr}},
	}
	for _, color := range []bool{false, true} {
		var b strings.Builder
		WriteStatus(&b, st, true, now, color)
		name := "testdata/status-80.golden"
		if color {
			name = "testdata/status-80-color.golden"
		} else {
			for _, line := range strings.Split(b.String(), "\n") {
				if n := utf8.RuneCountInString(line); n > StatusWidth {
					t.Errorf("%d columns: %q", n, line)
				}
			}
		}
		testsupport.Golden(t, name, []byte(b.String()), *update)
	}
}
