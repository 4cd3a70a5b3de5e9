package tmux

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/logwatch/logwatch/internal/statusview"
	"github.com/logwatch/logwatch/relay/session"
	"github.com/logwatch/logwatch/relay/wire"
)

// key names a session: its id on its host ("" here).
type key struct{ host, session string }

// Board is the follower's view of the daemon's sessions: what the snapshot
// and the changes since said, ended sessions dropped.
type Board struct {
	sessions map[key]wire.Event
}

// NewBoard returns an empty board.
func NewBoard() *Board { return &Board{sessions: map[key]wire.Event{}} }

// Reset forgets every session: a (re)connection's snapshot follows.
func (b *Board) Reset() { clear(b.sessions) }

// Apply records one event of the stream.
func (b *Board) Apply(ev wire.Event) {
	k := key{ev.Host, ev.Session}
	if ev.State == string(session.Ended) {
		delete(b.sessions, k)
		return
	}
	b.sessions[k] = ev
}

// Styles of a state's dot in tmux's format language. A finished turn is a
// quiet checkmark, ready a muted ring; #[default] gives the window-status
// style back.
var dots = map[string]string{
	string(session.Waiting):    "#[fg=colour214,bold]●#[default]",
	string(session.Working):    "#[fg=colour39]●#[default]",
	string(session.Compacting): "#[fg=colour135]●#[default]",
	string(session.Done):       "#[fg=colour34]✓#[default]",
	string(session.Ready):      "#[fg=colour244]○#[default]",
}

// Dot is the window-list mark of a state, "" for none.
func Dot(state string) string { return dots[state] }

// Pane finds the pane (its id, "%3") showing a session, "" when it is in
// none of this server's panes.
type Pane func(ev wire.Event) string

// TabPane is the Pane of the tabs `logwatch wrap` derives from panes of the
// tmux server whose pid is server.
func TabPane(server int) Pane {
	return func(ev wire.Event) string {
		pid, pane, ok := ParseTab(ev.Tab)
		if !ok || pid != server {
			return ""
		}
		return pane
	}
}

// maxDepth bounds the walk up from an agent's process to a pane's.
const maxDepth = 32

// ServerPane is TabPane, else, for a local session whose agent process is
// known and running (Claude Code's registry names it; no wrap needed: a
// pid the session no longer runs as may be another's now), the pane whose
// process it runs at or under; parent gives a process's parent.
func ServerPane(server int, panes []PaneInfo, parent func(int) (int, error)) Pane {
	byPid := make(map[int]string, len(panes))
	for _, p := range panes {
		if p.Pid > 0 {
			byPid[p.Pid] = p.ID
		}
	}
	tab := TabPane(server)
	return func(ev wire.Event) string {
		if pane := tab(ev); pane != "" || ev.Host != "" || ev.Pid <= 0 || !ev.Live {
			return pane
		}
		for pid, i := ev.Pid, 0; pid > 1 && i < maxDepth; i++ {
			if pane, ok := byPid[pid]; ok {
				return pane
			}
			var err error
			if pid, err = parent(pid); err != nil {
				return ""
			}
		}
		return ""
	}
}

// Windows returns each window's dot (window id → Dot of its most urgent
// session, SPEC §2), given which window each pane is in; windows without a
// session are absent.
func (b *Board) Windows(pane Pane, windowOf map[string]string) map[string]string {
	best := map[string]string{}
	for _, ev := range b.sessions {
		p := pane(ev)
		w, ok := windowOf[p]
		if p == "" || !ok {
			continue
		}
		if cur, ok := best[w]; !ok || session.State(ev.State).Urgency() > session.State(cur).Urgency() {
			best[w] = ev.State
		}
	}
	out := make(map[string]string, len(best))
	for w, st := range best {
		if d := Dot(st); d != "" {
			out[w] = d
		}
	}
	return out
}

// summaryStates are the states the status line counts, most urgent first:
// ready needs nobody, so it is not counted.
var summaryStates = []session.State{session.Waiting, session.Working, session.Compacting, session.Done}

// Summary is the status line's count of sessions by state ("2 waiting · 1
// done"), each count in its dot's colour; "" when no session needs
// counting. It counts what status shows at now (statusview.Shown): a
// history of last week's sessions read at start-up is not "37 done".
func (b *Board) Summary(now time.Time) string {
	n := map[string]int{}
	for _, ev := range b.sessions {
		if statusview.Shown(ev, now) {
			n[ev.State]++
		}
	}
	var parts []string
	for _, st := range summaryStates {
		if c := n[string(st)]; c > 0 {
			style, _, _ := strings.Cut(dots[string(st)], "]")
			parts = append(parts, fmt.Sprintf("%s]%d %s#[default]", style, c, st))
		}
	}
	return strings.Join(parts, " · ")
}

// Recount is when Summary(after now) next changes with no event: the
// earliest a counted session leaves the default views; zero if never.
func (b *Board) Recount(now time.Time) time.Time {
	var first time.Time
	for _, ev := range b.sessions {
		if at := statusview.HiddenAt(ev); !at.IsZero() && !at.Before(now) && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	return first
}

// Sessions returns the board's sessions.
func (b *Board) Sessions() []wire.Event {
	out := make([]wire.Event, 0, len(b.sessions))
	for _, ev := range b.sessions {
		out = append(out, ev)
	}
	return out
}

// Next is the session that needs the person most: the longest waiting,
// else the oldest finished turn not yet acknowledged (done), of those
// status shows at now (history is nobody's turn); ok is false when none
// needs them. Local and remote sessions rank alike; ties go to the smaller
// host, then session id, so the pick is stable.
func Next(sessions []wire.Event, now time.Time) (wire.Event, bool) {
	var cands []wire.Event
	for _, ev := range sessions {
		if (ev.State == string(session.Waiting) || ev.State == string(session.Done)) && statusview.Shown(ev, now) {
			cands = append(cands, ev)
		}
	}
	if len(cands) == 0 {
		return wire.Event{}, false
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.State != b.State {
			return a.State == string(session.Waiting)
		}
		if !a.Since.Equal(b.Since) {
			return a.Since.Before(b.Since)
		}
		if a.Host != b.Host {
			return a.Host < b.Host
		}
		return a.Session < b.Session
	})
	return cands[0], true
}
