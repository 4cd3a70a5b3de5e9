package relay

import (
	"time"

	"github.com/logwatch/logwatch/relay/session"
)

// A registry process's liveness: checked when its file changes, then told
// by a pidfd (ProcessExited) or, where there are none, by a slow sweep.
// A process gone without removing its file ends its session
// (registry.process_gone); one gone after removing it said goodbye
// (registry.removed).

const (
	// registrySweep is how often registry processes no pidfd watches are
	// checked (one read of /proc/<pid>/stat each), and how long a gone
	// process is left to its tab's own close.
	registrySweep = 2 * time.Second
	// goneMisses is how many sweeps after start-up a gone process waits for
	// its session to appear before it is given up.
	goneMisses = 5
)

// goodbyeGrace is how long after its process removed its registry file a
// tab's close is taken for that goodbye: Claude Code removes the file, then
// exits, and its tab's close (wrap's report of its child's exit) races the
// pidfd's report of the same exit.
const goodbyeGrace = 2 * time.Second

// regSaidGoodbye ends e as its process's goodbye (registry.removed) when
// the process removed its file within goodbyeGrace before e's tab closed,
// and reports whether it ended e.
func (m *machine) regSaidGoodbye(e *entry) bool {
	p := m.reg.of(e.s.ID)
	if p == nil || !p.removed || m.now.Sub(p.removedAt) > goodbyeGrace || e.s.State == session.Ended {
		return false
	}
	m.regGone(p)
	return e.s.State == session.Ended
}

// regForget drops p: its file is gone, and so is its process or its claim
// to the session.
func (m *machine) regForget(p *regProc) {
	if m.reg.procs[p.e.Path] == p {
		delete(m.reg.procs, p.e.Path)
		m.store.changed = true
	}
	m.reg.index(p.e.SessionID, p, false)
	if p.watched {
		m.forgetExit(p.e.Pid, p.start)
		p.watched = false
	}
}

// regFarewell ends the session of a process that removed its file and is
// gone, unless another process has the session (resumed meanwhile). A
// session with hooks has usually been ended by its SessionEnd hook, which
// says it first-hand.
func (m *machine) regFarewell(p *regProc) {
	id := p.e.SessionID
	if m.reg.otherLive(p) {
		return
	}
	e := m.store.get(id)
	if e == nil || e.s.State == session.Ended || p.told {
		return
	}
	p.told = true
	m.regEnd(e, session.ReasonSessionEnd, "registry.removed")
}

// regGone ends the session of a process found gone, once; a session that
// is not there yet (its log not read yet) is ended by the next sweep.
func (m *machine) regGone(p *regProc) {
	if p.removed {
		// It removed its file, then exited: a goodbye.
		p.gone = true
		m.regForget(p)
		m.regFarewell(p)
		return
	}
	if !p.gone {
		p.gone = true
		m.counters.ProcessesGone++
	}
	if p.hook {
		defer m.hookProcTold(p)
	}
	if p.told {
		return
	}
	if m.reg.otherLive(p) {
		p.told = true // the session lives on in another process
		return
	}
	e := m.store.get(p.e.SessionID)
	if e == nil || e.booting {
		if m.store.booted {
			p.misses++
		}
		if p.misses > goneMisses {
			// No session will come: a dead process writes no log, and one
			// already on disk is found well within these sweeps. Stop
			// sweeping for it, so a stale file costs nothing at rest.
			p.told = true
			return
		}
		m.armSweep()
		return
	}
	p.told = true
	if p.hook {
		m.endFrom(e, session.ReasonProcessGone, session.SourceHook, "hook.process_gone")
		return
	}
	m.regEnd(e, session.ReasonProcessGone, "registry.process_gone")
}

func (m *machine) regEnd(e *entry, reason, rule string) {
	m.endFrom(e, reason, session.SourceRegistry, rule)
}

// endFrom ends e, published as source said it.
func (m *machine) endFrom(e *entry, reason, source, rule string) {
	if ch, ok := e.s.EndFrom(reason, source, rule); ok {
		m.closeWindow(e.tab)
		m.moved(e)
		m.publish(e, ch, false)
	}
}

// armSweep schedules the next liveness sweep while there is a process to
// watch.
func (m *machine) armSweep() {
	if m.reg.sweepArmed {
		return
	}
	need := false
	for _, p := range m.reg.procs {
		need = need || (!p.gone && !p.watched) || (p.gone && !p.told)
	}
	if !need {
		return // nothing to poll: no idle work at all
	}
	m.reg.sweepArmed = true
	m.after(registrySweep, "sweep", m.sweep)
}

// sweep checks every registry process whose session is live.
func (m *machine) sweep() {
	m.reg.sweepArmed = false
	for _, p := range m.reg.sorted() {
		if p.grace {
			continue // its tab's close is awaited (regExited)
		}
		if p.gone {
			m.regGone(p) // a session that was not there yet
			continue
		}
		if p.watched {
			continue // its exit will be told
		}
		if m.alive(p.e.Pid, p.start) {
			p.suspect = 0
			continue
		}
		if p.removed {
			m.regGone(p)
			continue
		}
		if e := m.store.get(p.e.SessionID); e == nil || e.s.State == session.Ended {
			// Nothing to end (its tab closed first, or no log yet): only
			// status's "live" changes, and a later session is ended by
			// regGone on the next sweep.
			p.gone = true
			m.counters.ProcessesGone++
			p.told = e != nil
			if p.hook {
				m.hookProcTold(p)
			}
			continue
		}
		if m.regInTab(p) && p.suspect == 0 {
			// The tab runs this very process: its close, reported by whoever
			// ran it, comes any moment and says more. Next sweep.
			p.suspect++
			continue
		}
		m.regGone(p)
	}
	m.armSweep()
}

// regExited: a watched process exited.
func (m *machine) regExited(pid int, start uint64) {
	for _, p := range m.reg.sorted() {
		if p.e.Pid != pid || p.start != start || p.gone {
			continue
		}
		p.watched = false
		m.regDied(p)
	}
}

// regDied ends the session of p's process, found exited: at once, unless
// the tab runs this very process. Then its close, reported by whoever ran
// it, comes any moment and says more, and it is given registrySweep. The
// exit is found by its pidfd, a sweep, or a write of the file read after
// the process died (Claude Code's last status write, read late).
func (m *machine) regDied(p *regProc) {
	if p.grace {
		return // the tab's close is awaited already
	}
	if p.removed {
		m.regGone(p) // it said goodbye first: that is what ended it
		return
	}
	pid, start := p.e.Pid, p.start
	if !m.regInTab(p) {
		m.regGone(p)
		return
	}
	if !p.gone {
		p.gone = true
		m.counters.ProcessesGone++
	}
	p.grace = true
	m.after(registrySweep, "grace "+p.e.SessionID, func() {
		// Unless the file named another process meanwhile (a reused pid
		// rewrites it, and regEntry starts afresh).
		if p.grace && p.e.Pid == pid && p.start == start {
			p.grace = false
			m.regGone(p)
		}
	})
}

// regInTab reports whether p's process runs its tab: a registry process
// that is the tab's own (wrap's child), or a hook's process found under the
// tab's when first reported (hookProc). Its exit then closes the tab, which
// says more.
func (m *machine) regInTab(p *regProc) bool {
	tp, ok := m.bind.tabProcs[p.tab]
	return ok && (tp.Pid == p.e.Pid || p.hook)
}
