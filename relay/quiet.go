package relay

import (
	"sort"
	"time"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/session"
)

// quietArm is one armed quiet period (armQuiet): entry.quiet names the
// session's pending one, nil once it ran or when none was armed.
type quietArm struct {
	timer
	id    string        // the session's (quietRan)
	seen  time.Time     // its lastLog when armed
	start bool          // the start-up's, shared (startQuietRan)
	d     time.Duration // how long (quietAfter)
}

func (q *quietArm) fire(m *machine) {
	if q.start {
		m.startQuietRan(q)
	} else {
		m.quietRan(q)
	}
}

// armQuiet schedules the quiet-period check for logs without explicit turn
// ends, d from now.
func (m *machine) armQuiet(e *entry, d time.Duration) {
	if e.quiet != nil && e.quiet != m.store.startQuiet {
		m.stop(e.quiet)
	}
	q := &quietArm{timer: timer{name: "quiet " + e.s.ID}, id: e.s.ID, seen: e.lastLog, d: d}
	e.quiet = q
	m.arm(d, q)
}

// quietAfter is the quiet period a log line arms: turn_quiet, or after a
// final answer that did not end in an error the agent's FinalQuiet when it
// is shorter (what the agent writes after such an answer, it writes at
// once). A line that says nothing of the turn keeps the period of the
// answer before it. With hooks the agent's Stop ends the turn, the quiet
// only stands in for a lost one: it keeps turn_quiet, which leaves a slow
// hook process its time.
func (m *machine) quietAfter(e *entry, ev parsers.Evidence) time.Duration {
	d := m.cfg.TurnQuiet
	switch {
	case ev.Final && !e.s.Hooked():
		if f := parsers.TraitsOf(e.s.Agent).FinalQuiet; f > 0 && f < d && ev.End != parsers.EndAPIError {
			d = f
		}
	case ev.Kind == parsers.KindNone && e.quiet != nil && e.quiet != m.store.startQuiet:
		d = e.quiet.d
	}
	return d
}

// quietRan is a session's quiet period, run: a turn whose log stayed quiet
// since q was armed ends.
func (m *machine) quietRan(q *quietArm) {
	// Not get: a frozen session has no quiet period pending, and what froze
	// it found its Quiet a no-op.
	cur := m.store.sessions[q.id]
	if cur != nil && cur.quiet == q {
		cur.quiet = nil
	}
	if cur == nil || !cur.lastLog.Equal(q.seen) {
		return
	}
	if ch, ok := cur.s.Quiet(); ok {
		m.moved(cur)
		m.publish(cur, ch, false)
	}
}

// armStartQuiet arms the quiet period shared by the sessions a start-up
// knows without a live line: those restored, and those whose history ends
// on a final message (settle). One timer, not one each.
func (m *machine) armStartQuiet() *quietArm {
	if m.store.startQuiet != nil {
		m.stop(m.store.startQuiet)
	}
	q := &quietArm{timer: timer{name: "quiet start"}, start: true, d: m.cfg.TurnQuiet}
	m.arm(q.d, q)
	m.store.startQuiet = q
	return q
}

// startQuietRan is the start-up's quiet period, run for each session whose
// own it still is (no log line re-armed it), in id order. A frozen one is
// judged in place, and stays frozen.
func (m *machine) startQuietRan(q *quietArm) {
	if m.store.startQuiet != q {
		return
	}
	m.store.startQuiet = nil
	var live []*entry
	for _, e := range m.store.sessions {
		if e.quiet == q {
			e.quiet = nil
			live = append(live, e)
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].s.ID < live[j].s.ID })
	quiet := func(e *entry) bool {
		ch, ok := e.s.Quiet()
		if ok {
			m.moved(e)
			m.publish(e, ch, false)
		}
		return ok
	}
	var v entry
	var vs session.Session
	m.store.inIDOrder(live, func(e *entry) { quiet(e) }, func(f *frozenRec) {
		if f.flags&rStartQuiet == 0 {
			return
		}
		f.flags &^= rStartQuiet
		if f.s.View(&vs, false); !vs.TurnOpen() {
			return // Quiet is a no-op
		}
		m.store.view(f, &v, &vs, true)
		if quiet(&v) {
			m.store.refreeze(f, &v)
		}
	})
}
