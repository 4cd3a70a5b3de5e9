package notify

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/relay/wire"
)

var t0 = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)

// step is one input of a rules scenario, at t0+at; want lists the actions
// it produces as "show S/state" or "withdraw S".
type step struct {
	at     time.Duration
	ev     *wire.Event
	focus  *[3]string // conn, host, tab
	cover  uint64
	forget uint64
	due    bool
	// restart: a new engine takes over the marks of this one.
	restart bool
	want    []string
}

func ev(session, state, reason string, since time.Duration, mods ...func(*wire.Event)) *wire.Event {
	e := &wire.Event{Session: session, Agent: "claude", Tab: "tab-" + session, State: state, Reason: reason, Since: t0.Add(since)}
	for _, m := range mods {
		m(e)
	}
	return e
}

func remoteOf(h string) func(*wire.Event) { return func(e *wire.Event) { e.Host = h } }
func stale(e *wire.Event)                 { e.Stale = true }
func noTab(e *wire.Event)                 { e.Tab = "" }
func snapshot(e *wire.Event)              { e.Snapshot = true }
func bootstrap(e *wire.Event)             { e.Bootstrap = true }
func live(e *wire.Event)                  { e.Live = true; e.Pid = 42 }

func describe(acts []Action) []string {
	var out []string
	for _, a := range acts {
		s := a.Op.String() + " " + strings.ReplaceAll(a.Alert.Key, "\x00", "@")
		if a.Op == OpShow {
			s += "/" + a.Alert.State
		}
		out = append(out, s)
	}
	return out
}

func TestRules(t *testing.T) {
	rate := 30 * time.Second
	cases := []struct {
		name  string
		rules Rules
		marks map[string]Mark
		steps []step
	}{
		{"waiting alerts, answered withdraws", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "working", "prompt", 0)},
			{at: time.Second, ev: ev("a", "waiting", "permission", time.Second), want: []string{"show a/waiting"}},
			{at: 2 * time.Second, ev: ev("a", "working", "tool", 2*time.Second), want: []string{"withdraw a"}},
		}},
		{"a detail update of the same wait is no second alert", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "waiting", "permission", 0), want: []string{"show a/waiting"}},
			{at: time.Second, ev: ev("a", "waiting", "permission", time.Second)},
			{at: 40 * time.Second, ev: ev("a", "waiting", "question", 40*time.Second)},
			{at: 41 * time.Second, due: true},
		}},
		{"a held alert shows the wait's latest detail once", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "waiting", "permission", 0), want: []string{"show a/waiting"}},
			{at: time.Second, ev: ev("a", "working", "tool", time.Second), want: []string{"withdraw a"}},
			{at: 2 * time.Second, ev: ev("a", "waiting", "permission", 2*time.Second)},
			{at: 3 * time.Second, ev: ev("a", "waiting", "question", 3*time.Second)},
			{at: 30 * time.Second, due: true, want: []string{"show a/waiting"}},
			{at: 61 * time.Second, due: true},
		}},
		{"done is quiet unless asked for", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "done", "turn_end", 0)},
		}},
		{"done alerts when asked for, acknowledged withdraws", Rules{Done: true, Rate: rate}, nil, []step{
			{ev: ev("a", "done", "turn_end", 0), want: []string{"show a/done"}},
			{at: time.Second, ev: ev("a", "ready", "acknowledged", time.Second), want: []string{"withdraw a"}},
		}},
		{"a failed turn's end is a real end", Rules{Done: true, Rate: rate}, nil, []step{
			{ev: ev("a", "done", "error", 0), want: []string{"show a/done"}},
		}},
		{"never an interrupt, ready, subagents pending or a compaction", Rules{Done: true, Rate: rate}, nil, []step{
			{ev: ev("a", "ready", "interrupted", 0)},
			{ev: ev("b", "ready", "session_start", 0)},
			{ev: ev("c", "working", "subagents_pending", 0)},
			{ev: ev("d", "done", "compaction", 0)},
			{ev: ev("e", "done", "subagents_pending", 0)},
			{ev: ev("f", "done", "interrupted", 0)},
		}},
		{"an interrupted wait withdraws", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "waiting", "question", 0), want: []string{"show a/waiting"}},
			{at: time.Second, ev: ev("a", "ready", "interrupted", time.Second), want: []string{"withdraw a"}},
		}},
		{"ended withdraws and forgets", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "waiting", "permission", 0), want: []string{"show a/waiting"}},
			{at: time.Second, ev: ev("a", "ended", "tab_closed", time.Second), want: []string{"withdraw a"}},
			{at: 2 * time.Second, ev: ev("a", "ended", "tab_closed", time.Second)},
		}},
		{"rate limit holds a second wait, then shows it", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "waiting", "permission", 0), want: []string{"show a/waiting"}},
			{at: time.Second, ev: ev("a", "working", "tool", time.Second), want: []string{"withdraw a"}},
			{at: 2 * time.Second, ev: ev("a", "waiting", "permission", 2*time.Second)},
			{at: 29 * time.Second, due: true},
			{at: 30 * time.Second, due: true, want: []string{"show a/waiting"}},
		}},
		{"a held alert whose session moved on is dropped", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "waiting", "permission", 0), want: []string{"show a/waiting"}},
			{at: time.Second, ev: ev("a", "working", "tool", time.Second), want: []string{"withdraw a"}},
			{at: 2 * time.Second, ev: ev("a", "waiting", "permission", 2*time.Second)},
			{at: 3 * time.Second, ev: ev("a", "working", "tool", 3*time.Second)},
			{at: 31 * time.Second, due: true},
		}},
		{"the rate is per session", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "waiting", "permission", 0), want: []string{"show a/waiting"}},
			{ev: ev("b", "waiting", "permission", 0), want: []string{"show b/waiting"}},
		}},
		{"the focused tab is quiet, and its wait counts as seen", Rules{Rate: rate}, nil, []step{
			{focus: &[3]string{"1", "", "tab-a"}},
			{ev: ev("a", "waiting", "permission", 0)},
			{at: time.Second, focus: &[3]string{"1", "", ""}},
			{at: 2 * time.Second, ev: ev("a", "waiting", "permission", 0)},
		}},
		{"focusing a tab withdraws its alert", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "waiting", "permission", 0), want: []string{"show a/waiting"}},
			{ev: ev("b", "waiting", "permission", 0), want: []string{"show b/waiting"}},
			{at: time.Second, focus: &[3]string{"7", "", "tab-b"}, want: []string{"withdraw b"}},
		}},
		{"a focus is forgotten with its connection", Rules{Rate: rate}, nil, []step{
			{focus: &[3]string{"1", "", "tab-a"}},
			{forget: 1},
			{ev: ev("a", "waiting", "permission", 0), want: []string{"show a/waiting"}},
		}},
		{"a remote tab of the same name is another tab", Rules{Rate: rate}, nil, []step{
			{focus: &[3]string{"1", "", "tab-a"}},
			{ev: ev("a", "waiting", "permission", 0, remoteOf("devbox")), want: []string{"show devbox@a/waiting"}},
			{focus: &[3]string{"2", "devbox", "tab-a"}, want: []string{"withdraw devbox@a"}},
		}},
		{"a host app covers this machine's tabs, not remote or tabless sessions", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "waiting", "permission", 0), want: []string{"show a/waiting"}},
			{cover: 3, want: []string{"withdraw a"}},
			{ev: ev("b", "waiting", "permission", 0)},
			{ev: ev("c", "waiting", "permission", 0, remoteOf("devbox")), want: []string{"show devbox@c/waiting"}},
			{ev: ev("d", "waiting", "permission", 0, noTab), want: []string{"show d/waiting"}},
			{forget: 3},
			{ev: ev("e", "waiting", "permission", 0), want: []string{"show e/waiting"}},
		}},
		{"a restored wait keeps its mark through detail updates", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "waiting", "permission", 0), want: []string{"show a/waiting"}},
			{at: time.Second, ev: ev("a", "waiting", "permission", time.Second)},
			{restart: true},
			{at: 2 * time.Second, ev: ev("a", "waiting", "permission", time.Second)},
		}},
		{"a restored wait is not alerted again, and still withdrawn", Rules{Rate: rate},
			map[string]Mark{"a": {State: "waiting", Since: t0}}, []step{
				{ev: ev("a", "waiting", "permission", 0)},
				{at: time.Second, ev: ev("a", "working", "tool", time.Second), want: []string{"withdraw a"}},
			}},
		{"a wait that began while the daemon was down alerts once", Rules{Rate: rate},
			map[string]Mark{"a": {State: "waiting", Since: t0}}, []step{
				{ev: ev("a", "waiting", "permission", time.Minute), want: []string{"show a/waiting"}},
				{ev: ev("a", "waiting", "permission", time.Minute)},
			}},
		{"a first start alerts no wait that is history", Rules{Rate: rate}, nil, []step{
			// In the snapshot: no live process, no change for over ten
			// minutes: old news. A live agent's or a recent wait alerts.
			{at: 3 * time.Hour, ev: ev("old", "waiting", "permission", 0, snapshot)},
			{at: 3 * time.Hour, ev: ev("read", "waiting", "permission", 0, bootstrap)},
			{at: 3 * time.Hour, ev: ev("live", "waiting", "permission", 0, snapshot, live), want: []string{"show live/waiting"}},
			{at: 3 * time.Hour, ev: ev("recent", "waiting", "permission", 3*time.Hour-9*time.Minute, snapshot), want: []string{"show recent/waiting"}},
			// A change as it happens alerts, whatever its clock says.
			{at: 3 * time.Hour, ev: ev("skewed", "waiting", "permission", time.Hour), want: []string{"show skewed/waiting"}},
			// The old one's next wait is news.
			{at: 3 * time.Hour, ev: ev("old", "working", "tool", 3*time.Hour)},
			{at: 3 * time.Hour, ev: ev("old", "waiting", "permission", 3*time.Hour), want: []string{"show old/waiting"}},
		}},
		{"a stale remote session neither alerts nor loses its mark", Rules{Rate: rate}, nil, []step{
			{ev: ev("a", "waiting", "permission", 0, remoteOf("h")), want: []string{"show h@a/waiting"}},
			{ev: ev("a", "waiting", "permission", 0, remoteOf("h"), stale), want: []string{"withdraw h@a"}},
			{ev: ev("a", "waiting", "permission", 0, remoteOf("h"))},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := NewEngine(c.rules, c.marks)
			for i, s := range c.steps {
				now := t0.Add(s.at)
				var acts []Action
				switch {
				case s.ev != nil:
					acts = e.Change(*s.ev, now)
				case s.focus != nil:
					var conn uint64
					fmt.Sscan(s.focus[0], &conn)
					acts = e.Focus(conn, s.focus[1], s.focus[2], now)
				case s.cover != 0:
					acts = e.Cover(s.cover, now)
				case s.forget != 0:
					e.Forget(s.forget)
				case s.due:
					acts = e.Due(now)
				case s.restart:
					e.Marks()
					e = NewEngine(c.rules, e.marks)
				}
				if got := describe(acts); strings.Join(got, ",") != strings.Join(s.want, ",") {
					t.Fatalf("step %d: got %q, want %q", i, got, s.want)
				}
			}
		})
	}
}

// TestNextOnlyWhileHeld: the edge's timer is armed only while an alert
// waits for the rate limit (an idle notifier has no timer).
func TestNextOnlyWhileHeld(t *testing.T) {
	e := NewEngine(Rules{Rate: time.Minute}, nil)
	if !e.Next().IsZero() {
		t.Fatal("a new engine has something due")
	}
	e.Change(*ev("a", "waiting", "permission", 0), t0)
	e.Change(*ev("a", "working", "tool", time.Second), t0.Add(time.Second))
	if !e.Next().IsZero() {
		t.Fatal("nothing held, yet something due")
	}
	e.Change(*ev("a", "waiting", "permission", 2*time.Second), t0.Add(2*time.Second))
	if got := e.Next(); !got.Equal(t0.Add(time.Minute)) {
		t.Fatalf("next = %v, want t0+1m", got)
	}
	e.Due(t0.Add(time.Minute))
	if !e.Next().IsZero() {
		t.Fatal("still due after Due")
	}
}

// TestMarksBounded: past MaxMarks the oldest marks go.
func TestMarksBounded(t *testing.T) {
	e := NewEngine(Rules{}, nil)
	for i := 0; i < MaxMarks+10; i++ {
		e.Change(wire.Event{Session: fmt.Sprint("s", i), State: "waiting", Since: t0}, t0.Add(time.Duration(i)*time.Millisecond))
	}
	m, dirty := e.Marks()
	if !dirty || len(m) != MaxMarks {
		t.Fatalf("marks %d (dirty %v), want %d", len(m), dirty, MaxMarks)
	}
	if _, ok := m["s0"]; ok {
		t.Fatal("the oldest mark was kept")
	}
	if _, ok := m[fmt.Sprint("s", MaxMarks+9)]; !ok {
		t.Fatal("the newest mark was dropped")
	}
}
