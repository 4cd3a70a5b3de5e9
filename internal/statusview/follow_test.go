package statusview

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

// TestWatchModel folds a stream through an outage: the loss is said once
// on the notices and in the view, the resumed snapshot replaces what was
// known, and the history stays out of the default view.
func TestWatchModel(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var notices strings.Builder
	asked := 0
	m := NewWatch(false, &notices, func() []string { asked++; return []string{"/r"} })
	ev := func(id, state string, age time.Duration) client.Update {
		return client.Update{Kind: client.UpdateEvent, Event: wire.Event{Session: id, State: state, Since: now.Add(-age)}}
	}
	lost := client.Update{Kind: client.UpdateLost, Err: errors.New("EOF")}
	for _, u := range []client.Update{
		{Kind: client.UpdateConnected, Snapshot: 0},
		ev("s1", "working", time.Second),
		ev("old", "ended", time.Hour),
		lost, lost,
	} {
		m.Apply(u)
	}
	if ids := visibleIDs(m, now); ids != "s1" {
		t.Errorf("visible %q, want s1 (old is history)", ids)
	}
	if m.notes.Note != "(lost the daemon: EOF; reconnecting)" || !slices.Equal(m.notes.Roots, []string{"/r"}) || asked != 1 {
		t.Errorf("notes %+v, roots asked %d times", m.notes, asked)
	}
	m.Apply(client.Update{Kind: client.UpdateConnected, Snapshot: 1})
	m.Apply(ev("s2", "waiting", time.Second))
	if ids := visibleIDs(m, now); ids != "s2" || m.notes.Note != "" {
		t.Errorf("after the resumed snapshot: visible %q, note %q", ids, m.notes.Note)
	}
	want := "logwatch status --watch: lost the daemon (EOF); reconnecting with backoff\n" +
		"logwatch status --watch: reconnected; a fresh snapshot follows\n"
	if notices.String() != want {
		t.Errorf("notices:\n%s\nwant:\n%s", notices.String(), want)
	}
	all := NewWatch(true, &notices, nil)
	all.Apply(ev("old", "ended", time.Hour))
	if ids := visibleIDs(all, now); ids != "old" {
		t.Errorf("--all: visible %q", ids)
	}
}

func visibleIDs(m *Watch, now time.Time) string {
	var ids []string
	for _, s := range m.Visible(now) {
		ids = append(ids, s.Session)
	}
	return strings.Join(ids, ",")
}

// TestTabNamedAfterStart: OpenCode's database announces a session before
// its plugin names the tab; the second ready line says it is the same
// state, now in its tab, in events and in the plain watch lines.
func TestTabNamedAfterStart(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	start := wire.Event{Session: "ses_1", Agent: "opencode", State: "ready", Reason: "session_start", Source: "log", Rule: "log.session_start", Since: now}
	tabbed := start
	tabbed.Tab, tabbed.Source, tabbed.Rule = "t1", "hook", "hook.tab"
	feed := func() chan client.Update {
		ups := make(chan client.Update, 3)
		ups <- client.Update{Kind: client.UpdateConnected, Snapshot: 1}
		ups <- client.Update{Kind: client.UpdateEvent, Event: start}
		ups <- client.Update{Kind: client.UpdateEvent, Event: tabbed}
		close(ups)
		return ups
	}
	var plain, events strings.Builder
	NewWatch(true, &strings.Builder{}, nil).Plain(&plain, feed())
	if err := Events(&events, feed(), &Notice{W: &strings.Builder{}}, false, nil); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"watch": plain.String(), "events": events.String()} {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || strings.Contains(lines[0], "now in its tab") || !strings.Contains(lines[1], "session_start (the same state, now in its tab)") {
			t.Errorf("%s:\n%s", name, out)
		}
	}
}
