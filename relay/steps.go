package relay

import (
	"fmt"
	"time"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/session"
)

// hook folds one hook event; under says whether its transcript_path lies
// under a log root (the edge checked); proc is the agent's process its
// client named.
func (m *machine) hook(h parsers.Hook, tab string, underRoots bool, proc AgentProcess) {
	m.counters.HooksReceived++
	if prev := m.store.get(h.SessionID); prev != nil && prev.s.Outlives() {
		tab = "" // the rest of a turn whose tab closed is shown in no tab
	}
	if tab != "" {
		bound, ok := m.bind.tabs[tab]
		if ok && bound != h.SessionID {
			if e := m.store.get(bound); e != nil && e.s.State != session.Ended {
				// A nested agent run as a tool inherits the tab; its
				// reports are not this tab's conversation.
				m.counters.HooksDropped++
				m.log.Debug().Str("tab", tab).Str("session", h.SessionID).Str("bound", bound).
					Str("event", h.Event).Msg("hook from another conversation on a bound tab dropped")
				return
			}
			if h.Event != "SessionStart" && h.Event != "UserPromptSubmit" {
				// The tab's conversation ended; only a conversation starting
				// in it (/clear, a new run) takes the tab over. Another one's
				// late report (Codex's shared server ends every TUI's thread
				// at once, with the first tab's LOGWATCH_TAB) names no tab.
				tab = ""
			}
			ok = false
		}
		if !ok && tab != "" {
			m.bind.setTab(tab, h.SessionID)
			m.store.changed = true
		}
	}
	e := m.entry(h.SessionID, h.Agent)
	tabbed := false // this hook gave a session shown with no tab its tab
	if tab != "" && e.tab != tab {
		tabbed = e.tab == "" && e.tabless
		e.tab = tab
		m.store.changed = true
	}
	if h.AgentID != "" {
		m.counters.HooksSubagent++
	}
	if !parsers.KnownHookEvent(h.Event) {
		m.counters.HooksUnknown++
		m.log.Debug().Str("session", h.SessionID).Str("event", h.Event).Msg("unknown hook event ignored")
	}
	switch {
	case h.TranscriptPath == "" || e.path == h.TranscriptPath:
	case !underRoots:
		m.counters.TranscriptsRefused++
		m.log.Warn().Str("session", h.SessionID).Str("path", h.TranscriptPath).
			Msg("hook transcript_path is outside every log root; not followed")
	default:
		e.path = h.TranscriptPath
		m.followLog(h.TranscriptPath)
	}
	m.settle(e)
	m.moveOn(e, h)
	m.hookTurnStart(e, h)
	var ch session.Change
	var ok bool
	switch h.Event {
	case "SessionStart", "UserPromptSubmit", "SessionEnd":
		ch, ok = e.s.Hook(h)
	default:
		if e.s.Outlives() {
			ch, ok = m.outlived(e, session.SourceHook, func() (session.Change, bool) { return e.s.Hook(h) })
		} else {
			ch, ok = e.s.Hook(h)
		}
	}
	// A hook can change the saved state without publishing (a subagent
	// booked, a transcript path, a wait already named): the checkpoint must
	// still be rewritten.
	m.store.changed = true
	m.store.locate(e)
	// Its process before anything is published: the change carries it.
	followed, dead := m.hookProc(e, proc, tab)
	if ok && !ch.Retitled() {
		m.confirmHook(e, &ch)
		m.moved(e)
	}
	if ok {
		m.publish(e, ch, false)
	} else if (tabbed || followed && e.tab == "") && !e.s.Phantom() {
		// Its log got ahead of its hooks (OpenCode writes its database
		// before its plugin reports): the state stands, now in its tab,
		// or, in none, with its process (hook.process), by which the tmux
		// follower places a session without a tab.
		ch := sessionChange(e)
		ch.Rule = "hook.tab"
		if !tabbed {
			ch.Rule = "hook.process"
		}
		m.publish(e, ch, false)
	}
	if dead != nil {
		m.regDied(dead) // after the hook's own change: the hook came first
	}
}

func (m *machine) logLine(l LogLine) {
	m.store.mark(l)
	if l.Replay && m.store.restored {
		return // folded into the restored state already
	}
	f, _ := m.store.file(l.Path) // mark made it
	f.offset = l.End
	m.store.setFile(l.Path, f)
	m.counters.Lines++
	if l.Malformed {
		m.counters.Malformed++
		return
	}
	if l.Subagent || l.Session == "" {
		return // a subagent's own transcript never drives a session
	}
	known := m.store.known(l.Session)
	e := m.entry(l.Session, l.Agent)
	if e.path == "" {
		e.path = l.Path
	}
	m.countDrift(e, l.Evidence)
	if l.Bootstrap {
		if !e.booting && known {
			ch := sessionChange(e)
			e.bootFrom = &bootFrom{ch: ch, title: e.s.Title, cwd: e.s.Cwd, shown: !e.s.Phantom()}
		}
		e.booting = true
		e.s.Log(l.Evidence)
		e.finalAt = 0
		if t, err := time.Parse(time.RFC3339Nano, l.Evidence.At); err == nil {
			e.histAt = t.UnixNano()
			if e.s.QuietPending() {
				e.finalAt = e.histAt
			}
		}
		m.store.locate(e)
		if m.store.booted && !l.BootMore {
			m.settle(e) // history arriving after the start-up read: settle it at once, after its last line
		}
		return
	}
	m.settle(e)
	e.lastLog = m.now
	m.logTurnStart(e, l) // before anything is published: the change carries the tab
	if e.s.State == session.Ended && resumes(l) {
		// The log of an ended session grows again: the conversation was
		// resumed in a new process. It is back, ready, before this line.
		if ch, ok := e.s.Resume(session.SourceLog, "log.session_resumed"); ok {
			m.moved(e)
			m.publish(e, ch, false)
		}
	}
	var ch session.Change
	var ok bool
	if e.s.Outlives() && l.Evidence.Kind != parsers.KindNone {
		ch, ok = m.outlived(e, session.SourceLog, func() (session.Change, bool) { return e.s.Log(l.Evidence) })
	} else {
		ch, ok = e.s.Log(l.Evidence)
	}
	m.store.locate(e)
	if !ok && !known && !e.s.Phantom() {
		// A log that appeared while we watch is a new session: announce
		// it, ready, even before its first turn.
		ch, ok = e.s.Announce(session.SourceLog, "log.new_session")
	}
	if ok && !ch.Retitled() {
		m.confirm(e, l, &ch)
		m.moved(e)
	}
	if ok {
		m.publish(e, ch, false) // a new title alone keeps the state's since
	}
	m.regAfterLog(e)
	if e.s.State != session.Working && e.s.State != session.Waiting {
		// The turn ended some other way; a pending key is moot.
		if w := m.windowFor(e); w != nil && l.Offset >= w.baseline {
			m.counters.InterruptsUnconfirmed++
			m.closeWindow(e.tab)
		}
	}
	m.armQuiet(e, m.quietAfter(e, l.Evidence))
}

// resumes reports whether a line appended to an ended session's log means
// a new process took the conversation up (the agent's Spec.Resumes).
func resumes(l LogLine) bool {
	s := parsers.Lookup(l.Agent)
	return s != nil && s.Resumes != nil && s.Resumes(l.Evidence)
}

// oversized counts lines the watcher skipped; the file's mark moves past
// them.
func (m *machine) oversized(l LogLine, n int) {
	m.counters.Oversized += int64(n)
	m.store.mark(l)
}

// bootstrapDone settles every session start-up's history left booting.
func (m *machine) bootstrapDone() {
	m.store.booted = true
	if m.store.startQuiet == nil {
		m.armStartQuiet() // for histories that end on a final message
	}
	for _, e := range m.store.sortedLive() {
		if e.booting {
			m.settle(e)
		}
	}
	m.freezeIdle(true) // start-up's history is at rest
}

// settle ends a session's bootstrap: its state so far is history, published
// once so subscribers are current.
func (m *machine) settle(e *entry) {
	if !e.booting {
		return
	}
	e.booting = false
	// A history that ends on a final message (SDK, 1.0.x, old Codex: no
	// end record) ends its turn after the quiet period. When the message
	// was written longer ago than that, the period passed while nobody
	// watched: the history ended the turn, as verify says. Otherwise the
	// start-up's quiet period (or its own, after start-up) ends it.
	if e.finalAt != 0 && m.now.UnixNano()-e.finalAt >= int64(m.cfg.TurnQuiet) {
		e.s.Quiet()
	}
	e.finalAt = 0
	e.s.Settle()
	if e.s.Phantom() {
		e.bootFrom = nil
		return // a log with no turn and no hook: not a row (yet)
	}
	from, ch := e.bootFrom, sessionChange(e)
	changed := from == nil || from.ch != ch
	if changed {
		// History changed it: since its last line, when that says when (and
		// is not ahead of us), so history read hours late shows as old. A
		// restored state folded onto unchanged keeps its since.
		m.moved(e)
		if at := time.Unix(0, e.histAt); e.histAt != 0 && at.Before(e.since) {
			e.since = at
		}
	}
	e.bootFrom, e.histAt = nil, 0
	if changed || !from.shown || from.title != e.s.Title || from.cwd != e.s.Cwd {
		// Subscribers are told once, and only what they do not have: a
		// session a hook announced, whose new log was read as history a
		// line at a time (Gemini CLI's chat file), published the same
		// change once per line.
		m.publish(e, ch, true)
	}
	if e.s.QuietPending() {
		if m.store.startQuiet != nil && e.lastLog.IsZero() {
			e.quiet = m.store.startQuiet
		} else {
			m.armQuiet(e, m.cfg.TurnQuiet)
		}
	}
}

// ack acknowledges a session's finished turn; host names the remote it
// runs on ("": here, or the one remote that has it).
func (m *machine) ack(host, id string) error {
	e := m.store.get(id)
	if host != "" || e == nil {
		if ok, err := m.remoteAck(host, id); ok || err != nil {
			return err
		}
		if host != "" {
			return fmt.Errorf("%w: %s on %s", ErrUnknownSession, id, host)
		}
		return fmt.Errorf("%w: %s", ErrUnknownSession, id)
	}
	if ch, ok := e.s.Acknowledge(); ok {
		m.moved(e)
		m.publish(e, ch, false)
	}
	return nil
}

// tabClosed ends every session of tab and unbinds it; it returns how many
// sessions it ended.
func (m *machine) tabClosed(tab string) int {
	n := 0
	if m.bind.setTab(tab, "") {
		m.store.changed = true
	}
	if _, ok := m.bind.tabProcs[tab]; ok {
		delete(m.bind.tabProcs, tab)
		m.store.changed = true
	}
	m.closeWindow(tab)
	delete(m.bind.submits, tab)
	delete(m.bind.fresh, tab)
	if k, ok := m.rem.tabs[tab]; ok {
		// The ssh in it is gone: the remote says what became of its
		// session; here it is shown in no tab.
		m.unbindRemoteTab(tab)
		if h := m.rem.hosts[k.host]; h != nil && h.sessions[k.id] != nil {
			rs := h.sessions[k.id]
			ev := rs.ev
			ev.Rule = "remote.tab_closed"
			m.publishRemote(h, rs, ev, false)
		}
	}
	for _, e := range m.store.sortedLive() { // a frozen session has no tab
		if e.tab != tab {
			continue
		}
		if m.regSaidGoodbye(e) {
			n++ // its process removed its file just before: registry.removed
		} else if ch, ok := e.s.End(session.ReasonTabClosed, "api.tab_closed"); ok {
			n++ // the answer counts sessions this close ended, not those already ended
			m.moved(e)
			m.publish(e, ch, false)
		}
		// The tab is gone: a resumed conversation (Codex's turns go on
		// in a background server) is not shown in it.
		e.tab = ""
	}
	return n
}

// gone ends a session whose process is gone.
func (m *machine) gone(id string) error {
	e := m.store.get(id)
	if e == nil {
		return fmt.Errorf("%w: %s", ErrUnknownSession, id)
	}
	if ch, ok := e.s.End(session.ReasonProcessGone, "api.process_gone"); ok {
		m.moved(e)
		m.publish(e, ch, false)
	}
	return nil
}
