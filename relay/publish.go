package relay

import (
	"maps"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/session"
)

// entry returns the session with id, creating it ready.
func (m *machine) entry(id string, agent parsers.Agent) *entry {
	e := m.store.get(id)
	if e == nil {
		s := session.New(agent)
		s.ID = id
		e = &entry{s: s, since: m.now, touched: true}
		m.store.sessions[id] = e
		m.regAttach(e)
	}
	return e
}

// sessionChange is a session's current state as a change.
func sessionChange(e *entry) session.Change {
	return session.Change{State: e.s.State, Reason: e.s.Reason, Detail: e.s.Detail, Source: e.s.Source, Rule: e.s.Rule}
}

// moved stamps a state change's time.
func (m *machine) moved(e *entry) { e.since = m.now }

func (m *machine) event(e *entry, ch session.Change) Event {
	ev := Event{
		Session: e.s.ID, Agent: string(e.s.Agent), Tab: e.tab, Cwd: e.s.Cwd, Worktree: e.worktree,
		State: string(ch.State), Reason: ch.Reason, Detail: ch.Detail, Source: ch.Source,
		Rule: ch.Rule, Title: e.s.Title, Since: e.since,
	}
	ev.Pid, ev.Live = m.reg.live(e.s.ID)
	return ev
}

func (m *machine) publish(e *entry, ch session.Change, bootstrap bool) {
	e.tabless = e.tab == ""
	m.seq++
	m.store.changed = true
	ev := m.event(e, ch)
	ev.Seq, ev.Bootstrap = m.seq, bootstrap
	if e.worktree != "" {
		ev.WorktreeState = m.store.rowState(e.worktree)
	}
	m.log.Debug().Str("session", ev.Session).Str("state", ev.State).Str("reason", ev.Reason).
		Str("source", ev.Source).Str("rule", ev.Rule).Uint64("seq", ev.Seq).Msg("state")
	if len(m.out.events) >= outboxBatch && m.out.full != nil {
		m.out.full()
	}
	m.out.events = append(m.out.events, ev)
}

// status is every session shown (phantoms are not) and the counters.
func (m *machine) status() Status {
	st := Status{Roots: append([]string{}, m.cfg.Roots...)}
	st.Sessions = make([]Event, 0, m.store.rowCount()+m.remoteRows()) // appending grew 5 MB of garbage for 1.3 MB at 5 000 sessions
	m.store.eachRow(func(e *entry) {
		st.Sessions = append(st.Sessions, m.event(e, sessionChange(e)))
	})
	st.Worktrees = m.store.worktreeStates()
	m.remoteStatus(&st)
	st.Counters = m.counters
	st.Counters.Drift = maps.Clone(m.counters.Drift) // encoded off this goroutine
	st.Counters.RegistryProcesses = int64(m.reg.files())
	return st
}

// snapshot calls fn with each session shown, as a subscription's snapshot
// event.
func (m *machine) snapshot(fn func(Event)) {
	m.store.eachRow(func(e *entry) {
		ev := m.event(e, sessionChange(e))
		ev.Seq, ev.Snapshot = m.seq, true
		if e.worktree != "" {
			ev.WorktreeState = m.store.rowState(e.worktree)
		}
		fn(ev)
	})
	m.eachRemoteRow(func(ev Event) {
		ev.Seq, ev.Snapshot = m.seq, true
		fn(ev)
	})
}
