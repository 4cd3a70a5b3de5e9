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
