package relay

import (
	"time"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/session"
)

// Binding a Codex session to its tab.
//
// Codex 0.169 runs the turns and hooks of every TUI in one background server
// (`codex app-server --managed-daemon`) that the first TUI started, so a
// hook's LOGWATCH_TAB is that first tab's for every session (the hook client
// drops it: proxy.TabFromEnv), and nothing under CODEX_HOME or in the TUI's
// process names the thread it shows (docs/design.md, "Codex sessions are
// bound by the submit"). What ties a TUI to its thread is the user: the
// Enter that submits a prompt in a tab's pty is followed, 20–40 ms later on
// an idle machine, by that thread's turn start in the rollout
// (task_started, stamped by Codex) and its UserPromptSubmit hook.
//
// Rule codex.bind.submit: a turn start of a Codex session with no tab binds
// it to the one tab with an unconsumed submit within submitWindow before
// the turn start's stamp (or, for a hook, its arrival). Tabs bound to a
// session that has not ended are no candidates: their Enter answers that
// session (its next prompt, a dialog, a steer, a /new). Two candidates or
// more: nothing is bound (rule codex.bind.ambiguous, counted) — a wrong tab
// is worse than none. A turn start of a session that has its tab consumes
// that tab's submit.

// submitWindow is how far before a turn start a submit may lie to have
// started it. Measured: 20–40 ms idle; the margin is for a loaded machine,
// kept short so a stray Enter in another tab rarely makes a start ambiguous.
// An agent that stamps its turn starts later (Traits.SubmitLag) has its own.
const submitWindow = time.Second

// windowOf is the submit window of agent's turn starts.
func windowOf(agent parsers.Agent) time.Duration {
	return max(submitWindow, parsers.TraitsOf(agent).SubmitLag)
}

// widestWindow is the widest submit window of any agent: a submit older
// than twice it can bind nothing.
func widestWindow() time.Duration {
	w := submitWindow
	for _, s := range parsers.All() {
		w = max(w, s.Traits.SubmitLag)
	}
	return w
}

// submitSkew is how far after a turn start's stamp a submit may lie: the
// rollout stamps in milliseconds, the key is stamped when wrap read it.
const submitSkew = 50 * time.Millisecond

// lateReport is how long after its stamp an Enter's report may arrive and
// still count (docs/security.md, "Key stamps"): wrap reports within ~100 ms,
// measured. Kept apart from the submit windows: an agent's wider window
// (Traits.SubmitLag) is how late it stamps its turn start, not how late a
// report may be.
const lateReport = 2 * time.Second

// firstPromptLag bounds how long before a turn start a fresh tab's Enter
// may lie for rule bind.submit_first: the first prompt of a process
// starting up on a loaded machine was stamped 3.9-7.8 s (omp) and 15 s
// (OpenCode) after its Enter, measured. The rule is judged by order and
// exclusivity; this only bounds what is kept.
const firstPromptLag = 30 * time.Second

// maxSubmits bounds the unused submits kept: one per tab that pressed
// Enter in the last firstPromptLag.
const maxSubmits = 256

// submitted records an Enter typed into tab at at (never after now: key
// clamps it). Age is judged by the daemon's clock, at arrival: a report
// arriving more than lateReport after its stamp binds and undoes nothing,
// whatever the window it is stamped in.
func (m *machine) submitted(tab string, at time.Time) {
	m.counters.Submits++
	now := m.now
	keep := max(2*widestWindow(), firstPromptLag)
	if m.bind.submits == nil {
		m.bind.submits = map[string]time.Time{}
	}
	for t, s := range m.bind.submits {
		if now.Sub(s) > keep {
			delete(m.bind.submits, t) // too old to bind anything: keep the map small
		}
	}
	n := 0
	for _, b := range m.bind.recentBinds {
		if now.Sub(b.seen) <= keep {
			m.bind.recentBinds[n] = b
			n++
		}
	}
	m.bind.recentBinds = m.bind.recentBinds[:n]
	if now.Sub(at) > lateReport {
		m.log.Debug().Str("tab", tab).Dur("late", now.Sub(at)).Msg("an Enter reported late binds and undoes nothing")
		return
	}
	if n, ok := m.bind.fresh[tab]; ok {
		m.bind.fresh[tab] = n + 1
	}
	if _, ok := m.bind.submits[tab]; !ok && len(m.bind.submits) >= maxSubmits {
		oldest := ""
		for t, s := range m.bind.submits {
			if oldest == "" || s.Before(m.bind.submits[oldest]) || s.Equal(m.bind.submits[oldest]) && t < oldest {
				oldest = t
			}
		}
		delete(m.bind.submits, oldest)
	}
	m.bind.submits[tab] = at
	if m.retract(tab, at) {
		return
	}
	m.lateSubmit(tab, at)
	if _, ok := m.bind.submits[tab]; ok {
		m.lateRemoteSubmit(tab, at)
	}
}

// bindRec is a recent codex.bind.submit: the turn start's stamp and tab,
// the Enter's stamp, and when the binding was made (by the daemon's
// clock); first: made by bind.submit_first.
type bindRec struct {
	session, tab    string
	at, enter, seen time.Time
	first           bool
}

// window is how far before the bound turn start another tab's Enter would
// have made the binding ambiguous.
func (b bindRec) window(agent parsers.Agent) time.Duration {
	if b.first {
		return firstPromptLag
	}
	return windowOf(agent)
}

// retract applies codex.bind.ambiguous after the fact: a submit reported
// late, pressed in another candidate tab within the window of a turn start
// already bound, would have made that binding ambiguous. The binding is
// undone (the session is published again with no tab), and the submits are
// spent as for any ambiguous turn start.
func (m *machine) retract(tab string, at time.Time) bool {
	if b := m.store.get(m.bind.tabs[tab]); b != nil && b.s.State != session.Ended {
		return false
	}
	for i, b := range m.bind.recentBinds {
		e := m.store.get(b.session)
		if b.tab == tab || e == nil || !inWindow(at, b.at, b.window(e.s.Agent)) {
			continue
		}
		if m.undoBind(i, e) {
			delete(m.bind.submits, tab)
			m.log.Debug().Str("session", e.s.ID).Str("tab", b.tab).Str("late_tab", tab).Str("rule", "bind.ambiguous").
				Msg("a late submit in another tab made the binding ambiguous: undone")
			return true
		}
	}
	return false
}

// undoBind undoes recentBinds[i], e's binding, now found ambiguous: e is
// published again with no tab, and no late submit binds that turn start.
// It reports false for a binding gone, rebound or ended (republishing it
// would be a repeat).
func (m *machine) undoBind(i int, e *entry) bool {
	b := m.bind.recentBinds[i]
	if e.tab != b.tab || e.s.State == session.Ended {
		return false
	}
	m.bind.recentBinds = append(m.bind.recentBinds[:i], m.bind.recentBinds[i+1:]...)
	if m.bind.tabs[b.tab] == b.session {
		m.bind.setTab(b.tab, "")
	}
	e.tab = ""
	e.unbound = unboundTurn{at: b.at, ambiguous: true}
	m.bind.ambiguousAt = b.at
	m.store.changed = true
	m.counters.BindsAmbiguous++
	m.counters.BindsRetracted++
	ch := sessionChange(e)
	ch.Rule = "bind.ambiguous"
	m.publish(e, ch, false)
	return true
}

// unboundTurn is the turn start of a Codex session with no tab, as
// codex.bind.submit judged it.
type unboundTurn struct {
	at        time.Time // its first stamp; zero: none
	ambiguous bool      // submits in several tabs: it binds nothing, ever
}

// lateSubmit applies rule codex.bind.submit_late: a submit whose report
// reached the relay after the turn start it led to (the two travel apart:
// wrap's report over the socket, Codex's rollout through the file system;
// measured, the submit always came first, by 12–108 ms) binds that session
// all the same, under the same conditions as codex.bind.submit judged
// with every submit known now: exactly one tabless Codex session has a turn
// start in this submit's window that found no submit, and this tab is the
// only candidate for it. The session's state is published again, with its
// tab.
func (m *machine) lateSubmit(tab string, at time.Time) {
	if b := m.store.get(m.bind.tabs[tab]); b != nil && b.s.State != session.Ended {
		return
	}
	var found *entry
	for _, e := range m.store.sessions {
		u := e.unbound
		if e.tab != "" || u.at.IsZero() || u.ambiguous || !inWindow(at, u.at, windowOf(e.s.Agent)) {
			continue
		}
		if found != nil {
			m.counters.BindsAmbiguous++
			return // two turn starts could be this submit's
		}
		found = e
	}
	if found == nil {
		return
	}
	if cands := m.candidates(found.unbound.at, windowOf(found.s.Agent)); len(cands) != 1 || cands[0] != tab {
		return
	}
	m.bindBySubmit(found, tab, found.unbound.at, "bind.submit_late", true)
}

// inWindow reports whether a submit at at may have started a turn stamped
// start, by a window of w.
func inWindow(at, start time.Time, w time.Duration) bool {
	return !at.Before(start.Add(-w)) && !at.After(start.Add(submitSkew))
}

// candidates are the tabs whose unused submit may have started a turn
// stamped at (by a window of w): tabs bound to a session that has not
// ended, or to a remote session that has not, are none.
func (m *machine) candidates(at time.Time, w time.Duration) []string {
	var cands []string
	for tab, s := range m.bind.submits {
		if !inWindow(s, at, w) {
			continue
		}
		if b := m.store.get(m.bind.tabs[tab]); b != nil && b.s.State != session.Ended {
			continue
		}
		if m.remoteShows(tab) != nil {
			continue // its Enter answers the remote session it shows
		}
		cands = append(cands, tab)
	}
	return cands
}

// turnStarted applies codex.bind.submit to a turn start of e stamped at.
// It runs before the evidence is folded, so the change it leads to is
// published with the tab. The rollout's task_started, its user line and
// the hooks report the same turn start: they are judged as one, by its
// first stamp, and once it was ambiguous it stays so.
func (m *machine) turnStarted(e *entry, at time.Time) {
	if e.tab != "" {
		delete(m.bind.submits, e.tab)
		return
	}
	if s := parsers.Lookup(e.s.Agent); s == nil || !s.BindBySubmit {
		return
	}
	u := &e.unbound
	fresh := u.at.IsZero() || !e.s.TurnOpen()
	if fresh {
		*u = unboundTurn{at: at} // a new turn (an open one: this is its echo)
	}
	if u.ambiguous {
		return
	}
	w := windowOf(e.s.Agent)
	switch cands := m.candidates(u.at, w); len(cands) {
	case 0:
		if d := u.at.Sub(m.bind.ambiguousAt); d >= -w && d <= w {
			// Beside an ambiguous turn start: the submits it saw may be
			// this one's too, so no late one binds it either.
			u.ambiguous = true
			return
		}
		m.firstPrompt(e, !fresh)
	case 1:
		// A new turn's own change, folded next, carries the tab; an echo
		// publishes nothing, so the session is published again.
		m.bindBySubmit(e, cands[0], u.at, "bind.submit", !fresh)
	default:
		u.ambiguous = true
		m.spendAmbiguous(cands)
		m.bind.ambiguousAt = u.at
		m.log.Debug().Str("session", e.s.ID).Strs("tabs", cands).Str("rule", "bind.ambiguous").
			Msg("turn start follows submits in several tabs: no tab bound")
	}
}

// Rule bind.submit_first: the first prompt of a process starting up is
// stamped late on a loaded machine (omp 3.9-7.8 s after its Enter, OpenCode
// 15 s, measured; 0.04 s idle), past any window that keeps stray Enters
// out. No window tells load from a stray Enter, so this rule is judged by
// order and exclusivity instead: a tabless turn start that found no
// candidate in its window binds to a tab when
//   - that tab is fresh: its process (wrap's child) was reported and has
//     shown no session, and the Enter is the first typed in it since (a
//     shell tab has typed commands before; a tab that showed a session
//     answers it);
//   - its Enter lies before the turn start, within firstPromptLag;
//   - it is the only candidate tab with an Enter in that span, fresh or
//     not (two agents starting, or a user typing elsewhere meanwhile:
//     nothing is bound, as for bind.ambiguous);
//   - no other tabless turn start stamped after that Enter is waiting for
//     a tab (it could be the Enter's as well).
//
// A later tabless turn start that finds no Enter at all, stamped after the
// bound Enter within firstPromptLag, could have been that Enter's: the
// binding is undone (bind.ambiguous), and so is one that a late Enter from
// another candidate tab, stamped within firstPromptLag before the bound
// turn start, makes ambiguous. Everything it reads is the machine's (key
// stamps, log stamps, the recorded tab processes): a replay takes the
// same steps.
func (m *machine) firstPrompt(e *entry, republish bool) {
	at := e.unbound.at
	cands := m.candidates(at, firstPromptLag)
	if len(cands) == 0 {
		m.unfirst(e)
		return
	}
	tab := cands[0]
	if len(cands) > 1 || m.bind.fresh[tab] != 1 {
		return
	}
	enter := m.bind.submits[tab]
	for _, o := range m.store.sessions {
		u := o.unbound
		if o != e && o.tab == "" && !u.at.IsZero() && !u.ambiguous && inWindow(enter, u.at, firstPromptLag) {
			m.counters.BindsAmbiguous++
			return // two turn starts could be this Enter's
		}
	}
	m.bindBySubmit(e, tab, at, "bind.submit_first", republish)
}

// unfirst undoes a bind.submit_first binding whose Enter could as well
// have started e's turn start, which found no Enter at all.
func (m *machine) unfirst(e *entry) {
	at := e.unbound.at
	for i, b := range m.bind.recentBinds {
		o := m.store.get(b.session)
		if !b.first || o == nil || o == e || !inWindow(b.enter, at, firstPromptLag) {
			continue
		}
		if m.undoBind(i, o) {
			e.unbound.ambiguous = true
			m.log.Debug().Str("session", o.s.ID).Str("tab", b.tab).Str("other", e.s.ID).Str("rule", "bind.ambiguous").
				Msg("another turn start could be the first prompt's: the binding is undone")
			return
		}
	}
}

// bindBySubmit binds e to tab by the submit that started its turn, stamped at.
// With republish, a session last published with no tab is published again,
// with its tab.
func (m *machine) bindBySubmit(e *entry, tab string, at time.Time, rule string, republish bool) {
	enter := m.bind.submits[tab]
	ms := m.spendSubmit(tab, at)
	e.unbound = unboundTurn{}
	m.bind.setTab(tab, e.s.ID)
	e.tab = tab
	m.store.changed = true
	m.bind.recentBinds = append(m.bind.recentBinds, bindRec{session: e.s.ID, tab: tab, at: at, enter: enter, seen: m.now,
		first: rule == "bind.submit_first"})
	m.log.Debug().Str("session", e.s.ID).Str("tab", tab).Int64("submit_to_turn_ms", ms).
		Str("rule", rule).Msg("tab bound by its submit")
	if republish && e.tabless && !e.s.Phantom() {
		ch := sessionChange(e)
		ch.Rule = rule
		m.publish(e, ch, false)
	}
}

// spendSubmit uses tab's submit up on the turn start at at that it bound,
// counted with the submit→turn delay (ms), which it returns.
func (m *machine) spendSubmit(tab string, at time.Time) int64 {
	ms := at.Sub(m.bind.submits[tab]).Milliseconds()
	delete(m.bind.submits, tab)
	m.counters.BindsSubmit++
	m.counters.SubmitToTurnLastMs = ms
	m.counters.SubmitToTurnMaxMs = max(m.counters.SubmitToTurnMaxMs, ms)
	return ms
}

// spendAmbiguous spends the submits of cands on a turn start none of them
// can be told to have started: none binds a later turn either (that tab's
// next prompt binds it). Counted as binds_ambiguous.
func (m *machine) spendAmbiguous(cands []string) {
	for _, tab := range cands {
		delete(m.bind.submits, tab)
	}
	m.counters.BindsAmbiguous++
}

// logTurnStart applies codex.bind.submit to a live log line that starts a
// turn (or carries the prompt that does, in rollouts without task_*).
func (m *machine) logTurnStart(e *entry, l LogLine) {
	if l.Evidence.Kind != parsers.KindTurnStart && l.Evidence.Kind != parsers.KindPrompt {
		return
	}
	at, err := time.Parse(time.RFC3339Nano, l.Evidence.At)
	if err != nil {
		at = m.now
	}
	m.turnStarted(e, at)
}

// hookTurnStart applies bind.submit to a hook that starts a turn:
// UserPromptSubmit, and Codex 0.169's SessionStart, fired at the first
// prompt.
func (m *machine) hookTurnStart(e *entry, h parsers.Hook) {
	if h.AgentID == "" && (h.Event == "UserPromptSubmit" || h.Event == "SessionStart") {
		m.turnStarted(e, m.now)
	}
}

// outlived applies rule codex.turn_outlived_tab: evidence of the turn that
// was running when the session's tab closed (Codex finishes it in its
// background server) brings the session back, with no tab, working; the
// evidence then decides the rest (its turn end: done). fold folds the
// evidence and reports its change. A new turn start is a resume instead
// (log.session_resumed), and needs no outlived turn.
func (m *machine) outlived(e *entry, from string, fold func() (session.Change, bool)) (session.Change, bool) {
	back, ok := e.s.Outlive(from, from+".turn_outlived_tab")
	ch, folded := fold()
	if !ok || folded && !ch.Retitled() {
		return ch, folded
	}
	return back, true
}
