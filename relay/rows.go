package relay

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/session"
)

// entry is one session as the relay keeps it.
type entry struct {
	s        *session.Session
	tab      string
	worktree string
	since    time.Time
	path     string          // the session's log file, when known
	bootFrom *session.Change // the settled state bootstrap history was folded onto
	lastLog  time.Time
	quiet    *quietArm // the pending quiet period, nil if none
	// finalAt is when the history's final message was written (bootstrap,
	// unix ns from its own timestamp; 0: unknown or not final).
	finalAt int64
	// unbound is a Codex turn start of a tabless session (submitbind.go);
	// tabless: the session was last published with no tab.
	unbound unboundTurn
	tabless bool
	// Beside tabless, so the flags share a word (168 bytes; sessions at
	// rest are not entries but frozen records, frozen.go).
	booting bool // folded bootstrap history not yet settled
	touched bool // looked up since the last freezeIdle (frozen.go)
}

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

// locate assigns the session to its worktree once its cwd is known.
func (st *store) locate(e *entry) {
	if e.worktree == "" && e.s.Cwd != "" {
		e.worktree = Worktree(st.worktrees, e.s.Cwd)
	}
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
		Rule: ch.Rule, Since: e.since,
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
	m.out.events = append(m.out.events, ev)
}

// sortedEntries are all sessions by id, frozen ones as copies (for tests:
// the relay itself reads them in place, each).
func (st *store) sortedEntries() []*entry {
	var out []*entry
	st.each(true, func(e *entry) {
		if st.sessions[e.s.ID] != e {
			s, c := *e.s, *e
			c.s = &s
			e = &c
		}
		out = append(out, e)
	})
	return out
}

// eachRow calls fn (as each does) for the sessions shown to subscribers
// and in status: every one but the phantoms (Session.Phantom).
func (st *store) eachRow(fn func(e *entry)) {
	st.each(false, func(e *entry) {
		if !e.s.Phantom() {
			fn(e)
		}
	})
}

// rowCount is how many sessions eachRow visits.
func (st *store) rowCount() int {
	n := 0
	for _, e := range st.sessions {
		if !e.s.Phantom() {
			n++
		}
	}
	for i := range st.frozen {
		if f := &st.frozen[i]; f.flags&rDead == 0 && !f.s.Phantom() {
			n++
		}
	}
	return n
}

// rowState is the most urgent state of a worktree's sessions.
func (st *store) rowState(wt string) string {
	best := session.State("")
	for _, e := range st.sessions {
		if e.worktree == wt && (best == "" || e.s.State.Urgency() > best.Urgency()) {
			best = e.s.State
		}
	}
	if i := slices.Index(st.worktrees, wt); i >= 0 {
		for k := range st.frozen {
			f := &st.frozen[k]
			if int(f.wt) == i+1 && f.flags&rDead == 0 {
				if st := f.s.State(); best == "" || st.Urgency() > best.Urgency() {
					best = st
				}
			}
		}
	}
	return string(best)
}

func (st *store) worktreeStates() []WorktreeState {
	out := []WorktreeState{}
	for _, wt := range st.worktrees {
		n := 0
		for _, e := range st.sessions {
			if e.worktree == wt && !e.s.Phantom() {
				n++
			}
		}
		code := uint8(slices.Index(st.worktrees, wt) + 1)
		for k := range st.frozen {
			if f := &st.frozen[k]; f.wt == code && f.flags&rDead == 0 && !f.s.Phantom() {
				n++
			}
		}
		out = append(out, WorktreeState{Path: wt, State: st.rowState(wt), Sessions: n})
	}
	return out
}

// Worktree is the longest registered worktree containing cwd, or "".
func Worktree(worktrees []string, cwd string) string {
	best := ""
	cwd = filepath.Clean(cwd)
	for _, wt := range worktrees {
		w := filepath.Clean(wt)
		if (cwd == w || strings.HasPrefix(cwd, w+string(filepath.Separator)) || w == string(filepath.Separator)) && len(w) > len(best) {
			best = w
		}
	}
	return best
}

// status is every session shown (phantoms are not) and the counters.
func (m *machine) status() Status {
	st := Status{Roots: append([]string{}, m.cfg.Roots...)}
	st.Sessions = make([]Event, 0, m.store.rowCount()) // appending grew 5 MB of garbage for 1.3 MB at 5 000 sessions
	m.store.eachRow(func(e *entry) {
		st.Sessions = append(st.Sessions, m.event(e, sessionChange(e)))
	})
	st.Worktrees = m.store.worktreeStates()
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
}
