package relay

import (
	"time"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/session"
)

// pokeEvery is how often an open window re-reads the session's log, so a
// slow or lost file notification cannot make it miss the marker.
const pokeEvery = 25 * time.Millisecond

// window is an open interrupt-confirmation window (SPEC §5): a key press
// waits for the agent's log to show the interrupt marker.
type window struct {
	session string
	// host is a remote session's host, "" for a local one: a local id
	// can be any string, so the two are told apart by field, not by a
	// joined key a crafted id could spell.
	host     string
	key      string
	at       time.Time // when the key was pressed
	baseline int64     // the session's log offset at key time
	stop     []*funcTimer
	// expired marks a window that closed unconfirmed on its timer: it is
	// kept so a marker the agent wrote inside the window, but flushed
	// after it, still confirms the key (lateConfirm).
	expired bool
}

func (m *machine) key(tab, key string, at time.Time) {
	// The stamp comes from the client: a press is never later than its
	// report's arrival (a stamp ahead of the daemon's clock would never be
	// pruned, and one centuries ahead overflowed the window's duration).
	if now := m.now; at.IsZero() || at.After(now) {
		at = now
	}
	if key == KeyEnter {
		m.submitted(tab, at)
		return
	}
	m.counters.Keys++
	if w := m.windows[tab]; w != nil && !w.expired {
		return // repeated presses within the window are one candidate
	}
	e := m.store.get(m.bind.tabs[tab])
	if e == nil || e.s.State == session.Ended {
		if rs := m.remoteShows(tab); rs != nil {
			m.remoteKey(tab, m.rem.tabs[tab].host, rs, key, at)
			return
		}
	}
	if e == nil || (e.s.State != session.Working && e.s.State != session.Waiting) {
		return // a key alone never changes state; idle keys mean nothing
	}
	if key == KeyEsc && e.s.State != session.Waiting && !e.s.ToolRunning() && parsers.TraitsOf(e.s.Agent).EscKeepsStream {
		// The agent ignores Esc while its answer streams: no interrupt
		// follows, and a window open now could take the marker of a
		// Ctrl+C that did.
		return
	}
	m.counters.InterruptCandidates++
	m.closeWindow(tab) // an expired one
	w := &window{session: e.s.ID, key: key, at: at, baseline: m.store.files[e.path].offset}
	m.openWindow(tab, w)
	m.poke(tab, w, e.path)
}

// openWindow opens tab's window w, closing unconfirmed when its time is up.
func (m *machine) openWindow(tab string, w *window) {
	m.windows[tab] = w
	// The window runs from the press, not from when its report arrived.
	left := max(m.cfg.InterruptWindow-m.now.Sub(w.at), 0)
	w.stop = append(w.stop, m.after(left, "window "+tab, func() {
		if m.windows[tab] == w && !w.expired {
			m.counters.InterruptsUnconfirmed++
			for _, t := range w.stop {
				m.stop(t)
			}
			w.stop, w.expired = nil, true
			m.log.Debug().Str("tab", tab).Str("session", w.session).Msg("key not confirmed by the log")
			m.retryCancelled(w)
		}
	}))
}

// poke re-reads the session's log now and again every pokeEvery while the
// window is open.
func (m *machine) poke(tab string, w *window, path string) {
	if !m.watching || path == "" {
		return
	}
	m.pokeLog(path)
	// Not an input: a poke only re-reads the log, which changes nothing
	// until the watcher delivers a line, so it runs by the clock, also in a
	// replay, and is not recorded.
	w.stop = append(w.stop, m.afterUnrecorded(pokeEvery, func() {
		if m.windows[tab] == w && !w.expired {
			m.poke(tab, w, path)
		}
	}))
}

func (m *machine) closeWindow(tab string) {
	w := m.windows[tab]
	if w == nil {
		return
	}
	for _, t := range w.stop {
		m.stop(t)
	}
	delete(m.windows, tab)
}

// windowFor returns the open window of a session, if any.
func (m *machine) windowFor(e *entry) *window {
	if e.tab == "" {
		return nil
	}
	if w := m.windows[e.tab]; w != nil && w.host == "" && w.session == e.s.ID && !w.expired {
		return w
	}
	return nil
}

// lateConfirm returns the session's expired window when the interrupt line
// l is the marker of its key all the same: appended after the key's
// baseline and stamped by the agent within the window from the press.
// Claude Code 2.1.328 under load flushes its transcript seconds late
// (a marker written 0.5 s after the Esc was readable 2.2 s after it), so
// arrival alone would call a real key+log interrupt unconfirmed.
func (m *machine) lateConfirm(e *entry, l LogLine) *window {
	if e.tab == "" {
		return nil
	}
	w := m.windows[e.tab]
	if w == nil || !w.expired || w.host != "" || w.session != e.s.ID || l.Offset < w.baseline {
		return nil
	}
	// The agent stamps the marker after the press; allow for the two
	// clocks' resolution, no more.
	at, err := time.Parse(time.RFC3339Nano, l.Evidence.At)
	if err != nil || at.Sub(w.at) > m.cfg.InterruptWindow || at.Before(w.at.Add(-100*time.Millisecond)) {
		return nil // no stamp, or stamped outside the window: the log's own interrupt
	}
	m.counters.InterruptsUnconfirmed--
	return w
}

// confirm attributes an interrupt the log just reported to a pending key
// press: the marker was appended after the key's baseline. It rewrites the
// change's source and rule and records the key→marker latency.
func (m *machine) confirm(e *entry, l LogLine, ch *session.Change) {
	if l.Evidence.Kind != parsers.KindInterrupt {
		return
	}
	w := m.windowFor(e)
	if w == nil {
		w = m.lateConfirm(e, l)
	}
	if w == nil || l.Offset < w.baseline {
		return
	}
	m.confirmed(e, w, session.SourceKeyLog, ch)
}

// confirmHook attributes an interrupt a hook just reported to the key
// whose window is open: the agent said it was interrupted, by whichever
// source came first (OpenCode's plugin reports before its store shows the
// aborted message), and that answers the key as the log's marker would.
func (m *machine) confirmHook(e *entry, ch *session.Change) {
	if ch.State != session.Ready || ch.Reason != session.ReasonInterrupted {
		return
	}
	if w := m.windowFor(e); w != nil {
		m.confirmed(e, w, session.SourceKeyHook, ch)
	}
}

// confirmed rewrites the change that confirmed w's key: its source is the
// key and what confirmed it.
func (m *machine) confirmed(e *entry, w *window, source string, ch *session.Change) {
	m.countConfirmed(w)
	ch.Source, ch.Rule = source, "key.confirmed"
	e.s.Source, e.s.Rule = ch.Source, ch.Rule
	m.closeWindow(e.tab)
}

// countConfirmed counts the interrupt that confirmed w's key, and the
// key→marker latency.
func (m *machine) countConfirmed(w *window) {
	ms := m.now.Sub(w.at).Milliseconds()
	m.counters.InterruptsConfirmed++
	m.counters.KeyToMarkerLastMs = ms
	m.counters.KeyToMarkerMaxMs = max(m.counters.KeyToMarkerMaxMs, ms)
}

// moveOn closes a session's window when a hook moved the session on first
// (new prompt, Stop, SessionEnd): the key is then not an interrupt. A hook
// that reports the interrupt itself confirms the key (confirmHook).
func (m *machine) moveOn(e *entry, h parsers.Hook) {
	w := m.windowFor(e)
	if w == nil || h.AgentID != "" || session.Interrupts(h) {
		return
	}
	switch h.Event {
	case "UserPromptSubmit", "Stop", "StopFailure", "SessionEnd":
		m.counters.InterruptsUnconfirmed++
		m.closeWindow(e.tab)
	}
}

// retryCancelled ends the turn of w's session when its Esc, unanswered by
// the log, came while the agent waited to retry a failed answer: the key
// cancelled the retry (session.RetryCancelled).
func (m *machine) retryCancelled(w *window) {
	if w.key != KeyEsc || w.host != "" {
		return
	}
	e := m.store.get(w.session)
	if e == nil {
		return
	}
	if ch, ok := e.s.RetryCancelled(); ok {
		m.moved(e)
		m.publish(e, ch, false)
	}
}
