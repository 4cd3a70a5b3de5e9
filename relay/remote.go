package relay

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/session"
	"github.com/logwatch/logwatch/relay/wire"
)

// Remote hosts (SPEC §11). Each configured remote runs a logwatch of its
// own; a link (package remote) subscribes to it through ssh and reports
// what it hears as RemoteUpdates. The machine keeps each remote session as
// the remote last sent it and republishes it with its host. It never
// decides a remote session's state: the remote does, from its own logs and
// hooks. What is decided here is what only this machine can know:
//
//   - which local tab shows the session (rule remote.bind.submit: the
//     submit correlation of submitbind.go, judged by the arrival of the
//     remote's turn start, since the two hosts' clocks need not agree);
//   - whether an interrupt the remote's log reported answers a key pressed
//     here (key.confirmed, source key+log or key+hook, as for a local session);
//   - staleness: a link that drops leaves its sessions in their last
//     state, marked stale with the reason and since when, until the next
//     snapshot replaces them (rule remote.snapshot).

const (
	RemoteConnecting = wire.RemoteConnecting
	RemoteUp         = wire.RemoteUp
	RemoteSnapshot   = wire.RemoteSnapshot
	RemoteEvent      = wire.RemoteEvent
	RemoteSkipped    = wire.RemoteSkipped
	RemoteDown       = wire.RemoteDown
	RemoteUnusable   = wire.RemoteUnusable
)

// remotes is every remote link's view.
type remotes struct {
	hosts map[string]*remoteHost
	tabs  map[string]rkey // local tab → the remote session it shows
	cap   int             // sessions kept per remote (0: maxRemoteSessions)
	// unbound are the remote sessions whose latest turn start found no
	// submit, recently: what a late submit may bind (an Enter need not
	// look at every session kept).
	unbound []rkey
}

type rkey struct{ host, id string }

// maxRemoteSessions bounds the sessions kept of one remote.
const maxRemoteSessions = 20000

// remoteCap is maxRemoteSessions, or a test's smaller cap.
func (m *machine) remoteCap() int {
	if m.rem.cap > 0 {
		return m.rem.cap
	}
	return maxRemoteSessions
}

type remoteHost struct {
	st       wire.RemoteState
	sessions map[string]*rsession
	snapped  bool // a snapshot was folded: later ones are changes, not start-up
	// seen is, while a snapshot arrives in parts, the ids it kept so far
	// (at most the cap): at its last part, the sessions it lacks are gone.
	seen map[string]bool
	// full says this link's snapshot or changes went past the cap (logged
	// once per link).
	full bool
	// rows counts the sessions of each worktree by state: a row's state
	// is then found without a walk over every session at every change.
	rows map[string]map[string]int
}

// set makes ev rs's state, keeping the rows' counts.
func (h *remoteHost) set(rs *rsession, ev Event) {
	if rs.ev.Worktree != "" {
		h.rows[rs.ev.Worktree][rs.ev.State]--
	}
	rs.ev = ev
	if ev.Worktree != "" {
		if h.rows[ev.Worktree] == nil {
			h.rows[ev.Worktree] = map[string]int{}
		}
		h.rows[ev.Worktree][ev.State]++
	}
}

// drop forgets the session id.
func (h *remoteHost) drop(id string) {
	if rs := h.sessions[id]; rs != nil && rs.ev.Worktree != "" {
		row := h.rows[rs.ev.Worktree]
		if row[rs.ev.State]--; row[rs.ev.State] == 0 {
			delete(row, rs.ev.State)
		}
		if len(row) == 0 {
			delete(h.rows, rs.ev.Worktree)
		}
	}
	delete(h.sessions, id)
}

// rsession is a remote session as last received, and what this machine
// adds: its local tab and its staleness.
type rsession struct {
	ev         Event
	tab        string
	stale      string    // why its link is down ("": it is not)
	staleSince time.Time // since when
	// unboundAt is when its latest turn start arrived and found no
	// submit to bind it (zero: none, or it was judged ambiguous): the
	// submit may still be reported (remote.bind.submit_late).
	unboundAt time.Time
}

func (m *machine) remoteHost(name string) *remoteHost {
	if m.rem.hosts == nil {
		m.rem.hosts = map[string]*remoteHost{}
		m.rem.tabs = map[string]rkey{}
	}
	h := m.rem.hosts[name]
	if h == nil {
		h = &remoteHost{st: wire.RemoteState{Name: name, State: RemoteConnecting, Since: m.now},
			sessions: map[string]*rsession{}, rows: map[string]map[string]int{}}
		m.rem.hosts[name] = h
	}
	return h
}

// remote folds one update of a remote's link.
func (m *machine) remote(u wire.RemoteUpdate) {
	h := m.remoteHost(u.Remote)
	if u.Dest != "" {
		h.st.Dest = u.Dest
	}
	switch u.Kind {
	case RemoteConnecting:
		h.st.State, h.st.Since = RemoteConnecting, m.now
	case RemoteUp:
		h.seen, h.full = nil, false // a part-read snapshot of the last link is no one's now
		h.st.State, h.st.Since, h.st.Error, h.st.Fix = RemoteUp, m.now, "", ""
		h.st.Version, h.st.Protocol = u.Version, u.Protocol
		h.st.Links++
	case RemoteSnapshot:
		m.remoteSnapshot(h, u.Events, u.More)
	case RemoteEvent:
		if u.Event != nil && u.Event.Session != "" {
			m.remoteEvent(h, *u.Event, false, true)
		}
	case RemoteSkipped:
		h.st.Skipped++
	case RemoteDown, RemoteUnusable:
		h.st.Attempts++
		h.st.State, h.st.Since, h.st.Error, h.st.Fix = u.Kind, m.now, u.Error, u.Fix
		if u.Protocol != 0 {
			h.st.Protocol = u.Protocol // the one a remote of another protocol speaks
		}
		m.remoteStale(h, u.Error)
	}
}

// remoteStale marks every session of a remote whose link is down: the last
// state it sent stands, flagged, never a state made up here.
func (m *machine) remoteStale(h *remoteHost, why string) {
	if why == "" {
		why = "link down"
	}
	for _, id := range slices.Sorted(maps.Keys(h.sessions)) {
		rs := h.sessions[id]
		if rs.stale != "" {
			continue
		}
		rs.stale, rs.staleSince = why, m.now
		ev := rs.ev
		ev.Rule = "remote.stale"
		m.publishRemote(h, rs, ev, false)
	}
}

// remoteSnapshot folds a part of a (re)subscription's snapshot, as it
// arrived (more: others follow); the whole replaces what the link knew. A
// session it lacks is gone from the remote (its daemon forgot it): once
// the last part is in, it is published once more, ended, and dropped.
func (m *machine) remoteSnapshot(h *remoteHost, evs []Event, more bool) {
	if h.seen == nil {
		h.seen = map[string]bool{}
	}
	for _, ev := range evs {
		if ev.Session == "" {
			continue
		}
		if m.remoteEvent(h, ev, !h.snapped, false) {
			h.seen[ev.Session] = true
		}
	}
	if more {
		return
	}
	seen := h.seen
	h.seen = nil
	for _, id := range slices.Sorted(maps.Keys(h.sessions)) {
		if seen[id] {
			continue
		}
		rs := h.sessions[id]
		rs.stale = ""
		ev := rs.ev
		ev.State, ev.Reason, ev.Detail, ev.Source, ev.Rule = string(session.Ended), "gone_from_host", "", "remote", "remote.gone"
		ev.Since = m.now
		h.set(rs, ev)
		m.publishRemote(h, rs, ev, false)
		m.unbindRemote(rs)
		h.drop(id)
	}
	h.snapped = true
}

// remoteEvent folds one session's state as the remote sent it: a live
// change, or a snapshot line (whose turn start, made while no link was
// up, is no submit's to bind). It reports whether the session is kept.
func (m *machine) remoteEvent(h *remoteHost, ev Event, bootstrap, live bool) bool {
	rs := h.sessions[ev.Session]
	var prev *Event
	if rs == nil && len(h.sessions) >= m.remoteCap() {
		h.st.Dropped++ // a remote that sends without end costs it, not this daemon
		if !h.full {
			h.full = true
			m.log.Warn().Str("host", h.st.Name).Int("kept", len(h.sessions)).
				Msg("the remote sends more sessions than are kept of a remote: the rest are counted in its status (dropped), not shown")
		}
		return false
	}
	if rs == nil {
		rs = &rsession{}
		h.sessions[ev.Session] = rs
	} else {
		p := rs.ev
		prev = &p
	}
	wasStale := rs.stale != ""
	rs.stale = ""
	ev = remoteOwn(ev)
	h.set(rs, ev)
	if live && ev.State == string(session.Working) && ev.Reason == session.ReasonPrompt &&
		(prev == nil || prev.State != ev.State || !prev.Since.Equal(ev.Since)) {
		m.remoteTurnStarted(h, rs)
	}
	m.remoteConfirm(h, rs, &ev, prev)
	if prev != nil && sameRemote(*prev, ev) {
		if !wasStale {
			return true // nothing new (a remote's republish of its own tab, say)
		}
		ev.Rule = "remote.snapshot" // unchanged, and current again
	}
	m.publishRemote(h, rs, ev, bootstrap)
	return true
}

// remoteOwn keeps of a remote's event what is the remote's to say: its
// sequence, tab, pid and subscription flags mean nothing here.
func remoteOwn(ev Event) Event {
	ev.Seq, ev.Snapshot, ev.Bootstrap, ev.Resync = 0, false, false, false
	ev.Tab, ev.Pid, ev.Live, ev.WorktreeState = "", 0, false, ""
	ev.Host, ev.Stale, ev.StaleReason, ev.StaleSince = "", false, "", nil
	return ev
}

// sameRemote reports whether two states of a remote session would be
// published alike.
func sameRemote(a, b Event) bool {
	return a.State == b.State && a.Reason == b.Reason && a.Detail == b.Detail && a.Title == b.Title && a.Source == b.Source &&
		a.Rule == b.Rule && a.Since.Equal(b.Since) && a.Cwd == b.Cwd && a.Worktree == b.Worktree && a.Agent == b.Agent
}

// remoteTurnStarted applies remote.bind.submit: a remote session's new turn
// binds it to the one local tab with an unused submit within the agent's
// submit window before the turn start arrived. The remote's hook or log
// reached its daemon, then crossed ssh: the submit, reported locally, is
// nearly always first (remote.bind.submit_late takes the rest). Its own
// stamps are the remote host's clock, so the arrival is the measure. Two
// candidate tabs or more: none (a wrong tab is worse).
func (m *machine) remoteTurnStarted(h *remoteHost, rs *rsession) {
	rs.unboundAt = time.Time{}
	if rs.tab != "" {
		delete(m.bind.submits, rs.tab) // the tab's Enter that started this turn
		return
	}
	w := windowOf(parsers.Agent(rs.ev.Agent))
	switch cands := m.candidates(m.now, w); len(cands) {
	case 0:
		rs.unboundAt = m.now
		m.pruneUnbound()
		if len(m.rem.unbound) >= maxUnbound {
			m.rem.unbound = append(m.rem.unbound[:0], m.rem.unbound[1:]...) // a remote starting turns without end
		}
		m.rem.unbound = append(m.rem.unbound, rkey{h.st.Name, rs.ev.Session})
	case 1:
		tab := cands[0]
		ms := m.spendSubmit(tab, m.now)
		m.unbindRemoteTab(tab)
		rs.tab = tab
		m.rem.tabs[tab] = rkey{h.st.Name, rs.ev.Session}
		m.log.Debug().Str("host", h.st.Name).Str("session", rs.ev.Session).Str("tab", tab).
			Int64("submit_to_turn_ms", ms).Str("rule", "remote.bind.submit").Msg("remote session bound to its tab by its submit")
	default:
		m.spendAmbiguous(cands)
		m.log.Debug().Str("host", h.st.Name).Str("session", rs.ev.Session).Strs("tabs", cands).
			Str("rule", "bind.ambiguous").Msg("remote turn start follows submits in several tabs: no tab bound")
	}
}

// lateRemoteSubmit applies remote.bind.submit_late: a submit reported
// after the remote turn start it made had arrived (wrap's report and the
// remote's hook through ssh race; a CI-like run saw the hook win) binds it
// all the same, under remote.bind.submit's conditions judged with every
// submit known now: exactly one tabless remote session has a turn start
// that found no submit in this submit's window, and this tab is the only
// candidate for it. The session is published again, with its tab.
func (m *machine) lateRemoteSubmit(tab string, at time.Time) {
	if m.remoteShows(tab) != nil {
		return
	}
	m.pruneUnbound()
	var host *remoteHost
	var found *rsession
	for _, k := range m.rem.unbound {
		h := m.rem.hosts[k.host]
		rs := h.sessions[k.id]
		if !inWindow(at, rs.unboundAt, windowOf(parsers.Agent(rs.ev.Agent))) || rs == found {
			continue
		}
		if found != nil {
			m.counters.BindsAmbiguous++
			return // two turn starts could be this submit's
		}
		host, found = h, rs
	}
	if found == nil {
		return
	}
	if cands := m.candidates(found.unboundAt, windowOf(parsers.Agent(found.ev.Agent))); len(cands) != 1 || cands[0] != tab {
		return
	}
	ms := m.spendSubmit(tab, found.unboundAt)
	m.unbindRemoteTab(tab)
	found.tab, found.unboundAt = tab, time.Time{}
	m.rem.tabs[tab] = rkey{host.st.Name, found.ev.Session}
	m.log.Debug().Str("host", host.st.Name).Str("session", found.ev.Session).Str("tab", tab).
		Int64("submit_to_turn_ms", ms).Str("rule", "remote.bind.submit_late").Msg("remote session bound to its tab by its late submit")
	ev := found.ev
	ev.Rule = "remote.bind.submit_late"
	m.publishRemote(host, found, ev, false)
}

// maxUnbound bounds the remote turn starts a late submit may bind.
const maxUnbound = 1024

// pruneUnbound drops from m.rem.unbound the sessions a late submit can no
// longer bind: gone, bound, or whose turn start is too old for any submit.
func (m *machine) pruneUnbound() {
	keep := m.rem.unbound[:0]
	for _, k := range m.rem.unbound {
		h := m.rem.hosts[k.host]
		if h == nil {
			continue
		}
		if rs := h.sessions[k.id]; rs != nil && rs.tab == "" && !rs.unboundAt.IsZero() && m.now.Sub(rs.unboundAt) <= 2*widestWindow() {
			keep = append(keep, k)
		}
	}
	clear(m.rem.unbound[len(keep):])
	m.rem.unbound = keep
}

// remoteShows returns the live remote session tab shows, or nil.
func (m *machine) remoteShows(tab string) *rsession {
	k, ok := m.rem.tabs[tab]
	if !ok {
		return nil
	}
	h := m.rem.hosts[k.host]
	if h == nil {
		return nil
	}
	rs := h.sessions[k.id]
	if rs == nil || rs.ev.State == string(session.Ended) {
		return nil
	}
	return rs
}

// unbindRemoteTab frees tab of the remote session it showed.
func (m *machine) unbindRemoteTab(tab string) {
	k, ok := m.rem.tabs[tab]
	if !ok {
		return
	}
	delete(m.rem.tabs, tab)
	if h := m.rem.hosts[k.host]; h != nil {
		if rs := h.sessions[k.id]; rs != nil && rs.tab == tab {
			rs.tab = ""
		}
	}
}

func (m *machine) unbindRemote(rs *rsession) {
	if rs.tab != "" {
		m.unbindRemoteTab(rs.tab)
	}
}

// remoteKey opens tab's confirmation window for the remote session it
// shows: the remote's next change, an interrupt its log reported within
// the window, is the key's confirmation.
func (m *machine) remoteKey(tab string, h string, rs *rsession, key string, at time.Time) {
	if rs.stale != "" || rs.ev.State != string(session.Working) && rs.ev.State != string(session.Waiting) {
		return
	}
	m.counters.InterruptCandidates++
	m.closeWindow(tab)
	m.openWindow(tab, &window{session: rs.ev.Session, host: h, key: key, at: at})
}

// remoteConfirm applies key.confirmed to a remote session's change: an
// interrupt arriving while its tab's window is open answers the key; any
// other move out of the turn closes the window unconfirmed.
func (m *machine) remoteConfirm(h *remoteHost, rs *rsession, ev *Event, prev *Event) {
	if rs.tab == "" {
		return
	}
	w := m.windows[rs.tab]
	if w == nil || w.expired || w.host != h.st.Name || w.session != rs.ev.Session {
		return
	}
	if prev != nil && sameRemote(*prev, *ev) || (session.Change{Rule: ev.Rule}).Retitled() {
		return // nothing the key could have caused
	}
	switch {
	case ev.State == string(session.Ready) && ev.Reason == session.ReasonInterrupted:
		m.countConfirmed(w)
		src := session.SourceKeyLog
		if ev.Source == session.SourceHook || ev.Source == session.SourceKeyHook {
			src = session.SourceKeyHook // the remote's hook said so first
		}
		ev.Source, ev.Rule = src, "key.confirmed"
		rs.ev.Source, rs.ev.Rule = ev.Source, ev.Rule
		m.closeWindow(rs.tab)
	case ev.State != string(session.Working) && ev.State != string(session.Waiting),
		ev.Reason == session.ReasonPrompt && prev != nil && !prev.Since.Equal(ev.Since):
		m.counters.InterruptsUnconfirmed++
		m.closeWindow(rs.tab)
	}
}

// publishRemote publishes a remote session's state with its host, its
// local tab and its staleness.
func (m *machine) publishRemote(h *remoteHost, rs *rsession, ev Event, bootstrap bool) {
	m.seq++
	ev = m.remoteView(h, rs, ev)
	ev.Seq, ev.Bootstrap = m.seq, bootstrap
	m.log.Debug().Str("host", ev.Host).Str("session", ev.Session).Str("state", ev.State).Str("reason", ev.Reason).
		Str("source", ev.Source).Str("rule", ev.Rule).Bool("stale", ev.Stale).Uint64("seq", ev.Seq).Msg("state")
	if len(m.out.events) >= outboxBatch && m.out.full != nil {
		m.out.full()
	}
	m.out.events = append(m.out.events, ev)
}

// remoteView is a remote session as this machine shows it.
func (m *machine) remoteView(h *remoteHost, rs *rsession, ev Event) Event {
	ev.Host, ev.Tab = h.st.Name, rs.tab
	if rs.stale != "" {
		since := rs.staleSince
		ev.Stale, ev.StaleReason, ev.StaleSince = true, rs.stale, &since
	}
	if ev.Worktree != "" {
		ev.WorktreeState = h.rowState(ev.Worktree)
	}
	return ev
}

// rowState is the most urgent state of the remote's sessions in worktree wt.
func (h *remoteHost) rowState(wt string) string {
	best := session.State("")
	for state, n := range h.rows[wt] {
		if st := session.State(state); n > 0 && (best == "" || st.Urgency() > best.Urgency()) {
			best = st
		}
	}
	return string(best)
}

// sortedRemotes is every remote, by name.
func (m *machine) sortedRemotes() []*remoteHost {
	out := make([]*remoteHost, 0, len(m.rem.hosts))
	for _, name := range slices.Sorted(maps.Keys(m.rem.hosts)) {
		out = append(out, m.rem.hosts[name])
	}
	return out
}

// eachRemoteRow calls fn with each remote session as shown, by host and id.
func (m *machine) eachRemoteRow(fn func(Event)) {
	for _, h := range m.sortedRemotes() {
		for _, id := range slices.Sorted(maps.Keys(h.sessions)) {
			rs := h.sessions[id]
			fn(m.remoteView(h, rs, rs.ev))
		}
	}
}

// remoteRows is how many remote sessions eachRemoteRow visits.
func (m *machine) remoteRows() int {
	n := 0
	for _, h := range m.rem.hosts {
		n += len(h.sessions)
	}
	return n
}

// remoteStatus adds the remotes, their sessions and worktree rows to st.
func (m *machine) remoteStatus(st *Status) {
	st.Remotes = []wire.RemoteState{}
	for _, h := range m.sortedRemotes() {
		rs := h.st
		rs.Sessions = len(h.sessions)
		st.Remotes = append(st.Remotes, rs)
		for _, wt := range slices.Sorted(maps.Keys(h.rows)) {
			n := 0
			for _, c := range h.rows[wt] {
				n += c
			}
			st.Worktrees = append(st.Worktrees, WorktreeState{Host: h.st.Name, Path: wt, State: h.rowState(wt), Sessions: n})
		}
	}
	m.eachRemoteRow(func(ev Event) { st.Sessions = append(st.Sessions, ev) })
}

// ErrRemoteDown refuses a request for a remote session whose link is down.
var ErrRemoteDown = fmt.Errorf("remote link down")

// remoteAck forwards an acknowledgement to the remote the session runs on
// (host "" : the one remote that has it). The remote's answer comes back
// as its change, done → ready: nothing is made up here meanwhile.
func (m *machine) remoteAck(host, id string) (bool, error) {
	var found *remoteHost
	for _, h := range m.sortedRemotes() {
		if (host == "" || h.st.Name == host) && h.sessions[id] != nil {
			if found != nil {
				return true, fmt.Errorf("%w: %s runs on %s and %s: name the host", ErrBadRequest, id, found.st.Name, h.st.Name)
			}
			found = h
		}
	}
	if found == nil {
		return false, nil
	}
	if found.st.State != RemoteUp {
		return true, fmt.Errorf("%w: %s (%s): acknowledge it once it is back", ErrRemoteDown, found.st.Name, found.st.State)
	}
	m.out.effects = append(m.out.effects, effect{kind: fxRemote, remote: found.st.Name,
		req: wire.Request{Op: wire.OpAck, Session: id}})
	return true, nil
}
