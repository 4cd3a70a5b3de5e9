package tmux

import (
	"fmt"
	"testing"
	"time"

	"github.com/logwatch/logwatch/relay/wire"
)

func TestPaneTab(t *testing.T) {
	for _, c := range []struct {
		env, pane, want string
	}{
		{"/tmp/tmux-0/default,4242,0", "%3", "tmux-4242-%3"},
		{"", "%3", ""},
		{"/tmp/tmux-0/default,x,0", "%3", ""},
		{"/tmp/tmux-0/default,4242,0", "3", ""},
		{"/tmp/tmux-0/default,4242,0", "%x", ""},
	} {
		got := PaneTab(c.env, c.pane)
		if got != c.want {
			t.Errorf("PaneTab(%q, %q) = %q, want %q", c.env, c.pane, got, c.want)
		}
		if got == "" {
			continue
		}
		pid, pane, ok := ParseTab(got)
		if !ok || pid != ServerPid(c.env) || pane != c.pane {
			t.Errorf("ParseTab(%q) = %d %q %v", got, pid, pane, ok)
		}
	}
	for _, tab := range []string{"wrap-0123", "tmux-", "tmux-12", "tmux-12-3", "tmux--1-%3", "tmux-0-%3", "tmux-12-%"} {
		if _, _, ok := ParseTab(tab); ok {
			t.Errorf("ParseTab(%q) took a tab PaneTab never makes", tab)
		}
	}
}

func ev(session, state, tab string, since int) wire.Event {
	return wire.Event{Session: session, State: state, Tab: tab, Since: time.Unix(int64(since), 0)}
}

func TestBoardWindows(t *testing.T) {
	b := NewBoard()
	for _, e := range []wire.Event{
		ev("a", "ready", "tmux-9-%1", 1),
		ev("b", "done", "tmux-9-%2", 1),    // same window as %1: done outranks ready
		ev("c", "waiting", "tmux-9-%3", 1), // window @2 alone
		ev("d", "working", "tmux-8-%4", 1), // another server's pane
		ev("e", "working", "wrap-1", 1),    // no pane
		ev("f", "compacting", "tmux-9-%5", 1),
		ev("f", "ended", "tmux-9-%5", 2), // gone: its window has no dot
	} {
		b.Apply(e)
	}
	got := b.Windows(TabPane(9), map[string]string{"%1": "@1", "%2": "@1", "%3": "@2", "%4": "@3", "%5": "@4"})
	want := map[string]string{"@1": Dot("done"), "@2": Dot("waiting")}
	if len(got) != len(want) || got["@1"] != want["@1"] || got["@2"] != want["@2"] {
		t.Fatalf("windows %v, want %v", got, want)
	}
	now := time.Unix(10, 0)
	if s, w := b.Summary(now), "#[fg=colour214,bold]1 waiting#[default] · #[fg=colour39]2 working#[default] · #[fg=colour34]1 done#[default]"; s != w {
		t.Fatalf("summary %q, want %q", s, w)
	}
	// History (no process known, no change for a day) is not counted;
	// the board says when that next changes the count.
	if at := b.Recount(now); !at.Equal(time.Unix(1, 0).Add(24 * time.Hour)) {
		t.Fatalf("recount at %v", at)
	}
	b.Apply(wire.Event{Session: "g", State: "working", Since: time.Unix(9, 0), Pid: 7, Live: true})
	if s, w := b.Summary(time.Unix(2, 0).Add(24*time.Hour)), "#[fg=colour39]1 working#[default]"; s != w {
		t.Fatalf("summary a day on %q, want %q", s, w)
	}
	b.Reset()
	if s := b.Summary(now); s != "" {
		t.Fatalf("summary after reset %q", s)
	}
}

func TestNext(t *testing.T) {
	for _, c := range []struct {
		name     string
		sessions []wire.Event
		want     string
	}{
		{"nothing", []wire.Event{ev("a", "ready", "", 1), ev("b", "working", "", 1)}, ""},
		{"waiting before an older done", []wire.Event{ev("a", "done", "", 1), ev("b", "waiting", "", 5)}, "b"},
		{"the longest waiting", []wire.Event{ev("a", "waiting", "", 5), ev("b", "waiting", "", 3)}, "b"},
		{"the oldest done", []wire.Event{ev("a", "done", "", 5), ev("b", "done", "", 3), ev("c", "working", "", 1)}, "b"},
		{"remote alike", []wire.Event{ev("a", "done", "", 5), {Session: "r", Host: "box", State: "done", Since: time.Unix(2, 0)}}, "r"},
		{"ties by id", []wire.Event{ev("b", "waiting", "", 1), ev("a", "waiting", "", 1)}, "a"},
		// What status hides is nobody's turn: a day without a change and
		// no process known, ten minutes with its process gone.
		{"not history", []wire.Event{ev("a", "done", "", -86401), ev("b", "done", "", 5)}, "b"},
		{"not a gone process's", []wire.Event{{Session: "a", State: "waiting", Since: time.Unix(-601, 0), Pid: 7}, ev("b", "done", "", 5)}, "b"},
		{"a live one however old", []wire.Event{{Session: "a", State: "waiting", Since: time.Unix(-86401, 0), Pid: 7, Live: true}}, "a"},
	} {
		got, ok := Next(c.sessions, time.Unix(10, 0))
		if ok != (c.want != "") || got.Session != c.want {
			t.Errorf("%s: got %q %v, want %q", c.name, got.Session, ok, c.want)
		}
	}
}

func TestServerPane(t *testing.T) {
	parents := map[int]int{500: 400, 400: 300, 300: 1, 700: 600, 600: 1}
	parent := func(pid int) (int, error) {
		if p, ok := parents[pid]; ok {
			return p, nil
		}
		return 0, fmt.Errorf("no process %d", pid)
	}
	pane := ServerPane(9, []PaneInfo{{ID: "%1", Pid: 300}, {ID: "%2", Pid: 42}}, parent)
	for _, c := range []struct {
		ev   wire.Event
		want string
	}{
		{wire.Event{Tab: "tmux-9-%2", Pid: 500}, "%2"},          // the tab first
		{wire.Event{Tab: "wrap-1", Pid: 500, Live: true}, "%1"}, // two levels under the pane's process
		{wire.Event{Pid: 300, Live: true}, "%1"},
		{wire.Event{Pid: 300}, ""},                          // its process ended: the pid may be another's now
		{wire.Event{Pid: 700, Live: true}, ""},              // in no pane
		{wire.Event{Pid: 999, Live: true}, ""},              // gone
		{wire.Event{Host: "box", Pid: 500, Live: true}, ""}, // a remote's pid is not ours
		{wire.Event{Tab: "tmux-8-%1", Pid: 0}, ""},          // another server's pane
	} {
		if got := pane(c.ev); got != c.want {
			t.Errorf("%+v: pane %q, want %q", c.ev, got, c.want)
		}
	}
}
