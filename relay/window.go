package relay

import (
	"context"
	"fmt"
	"time"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/session"
)

// Keys a pty source can report.
const (
	KeyEsc   = "esc"
	KeyCtrlC = "ctrl-c"
)

// pokeEvery is how often an open window re-reads the session's log, so a
// slow or lost file notification cannot make it miss the marker.
const pokeEvery = 25 * time.Millisecond

// window is an open interrupt-confirmation window (SPEC §5): a key press
// waits for the agent's log to show the interrupt marker.
type window struct {
	session  string
	key      string
	at       time.Time // when the key was pressed
	baseline int64     // the session's log offset at key time
	stop     []func() bool
}

// Key reports a key press (Esc or Ctrl+C) in a tab. at is when it was
// pressed; zero means now.
func (r *Relay) Key(ctx context.Context, tab, key string, at time.Time) error {
	if key != KeyEsc && key != KeyCtrlC {
		r.countBad()
		return fmt.Errorf("unknown key %q (want esc or ctrl-c)", key)
	}
	if err := validID("tab", tab); err != nil {
		r.countBad()
		return err
	}
	if tab == "" {
		r.countBad()
		return fmt.Errorf("key report without a tab")
	}
	return r.do(ctx, func() {
		if at.IsZero() {
			at = r.clock.Now()
		}
		r.record(RecordLine{Kind: RecKey, Tab: tab, Key: key, At: &at})
		r.key(tab, key, at)
	})
}

func (r *Relay) key(tab, key string, at time.Time) {
	r.counters.Keys++
	if at.IsZero() {
		at = r.clock.Now()
	}
	if r.windows[tab] != nil {
		return // repeated presses within the window are one candidate
	}
	e := r.sessions[r.tabs[tab]]
	if e == nil || (e.s.State != session.Working && e.s.State != session.Waiting) {
		return // a key alone never changes state; idle keys mean nothing
	}
	r.counters.InterruptCandidates++
	w := &window{session: e.s.ID, key: key, at: at, baseline: r.offsets[e.path]}
	r.windows[tab] = w
	// The window runs from the press, not from when its report arrived.
	left := r.cfg.InterruptWindow - r.clock.Now().Sub(at)
	if left > r.cfg.InterruptWindow {
		left = r.cfg.InterruptWindow // a press stamped in the future counts from now
	}
	w.stop = append(w.stop, r.clock.AfterFunc(left, func() {
		r.enqueue(func() {
			if r.windows[tab] == w {
				r.counters.InterruptsUnconfirmed++
				r.closeWindow(tab)
				r.log.Debug().Str("tab", tab).Str("session", w.session).Msg("key not confirmed by the log")
			}
		})
	}))
	r.poke(tab, w, e.path)
}

// poke re-reads the session's log now and again every pokeEvery while the
// window is open.
func (r *Relay) poke(tab string, w *window, path string) {
	if r.follow == nil || path == "" {
		return
	}
	r.follow.Poke(path)
	w.stop = append(w.stop, r.clock.AfterFunc(pokeEvery, func() {
		r.enqueue(func() {
			if r.windows[tab] == w {
				r.poke(tab, w, path)
			}
		})
	}))
}

func (r *Relay) closeWindow(tab string) {
	w := r.windows[tab]
	if w == nil {
		return
	}
	for _, stop := range w.stop {
		stop()
	}
	delete(r.windows, tab)
}

// windowFor returns the open window of a session, if any.
func (r *Relay) windowFor(e *entry) *window {
	if e.tab == "" {
		return nil
	}
	if w := r.windows[e.tab]; w != nil && w.session == e.s.ID {
		return w
	}
	return nil
}

// confirm attributes an interrupt the log just reported to a pending key
// press: the marker was appended after the key's baseline. It rewrites the
// change's source and rule and records the key→marker latency.
func (r *Relay) confirm(e *entry, l LogLine, ch *session.Change) {
	w := r.windowFor(e)
	if w == nil || l.Evidence.Kind != parsers.KindInterrupt || l.Offset < w.baseline {
		return
	}
	ms := r.clock.Now().Sub(w.at).Milliseconds()
	r.counters.InterruptsConfirmed++
	r.counters.KeyToMarkerLastMs = ms
	if ms > r.counters.KeyToMarkerMaxMs {
		r.counters.KeyToMarkerMaxMs = ms
	}
	ch.Source, ch.Rule = session.SourceKeyLog, "key.confirmed"
	e.s.Source, e.s.Rule = ch.Source, ch.Rule
	r.closeWindow(e.tab)
}

// moveOn closes a session's window when a hook moved the session on first
// (new prompt, Stop, SessionEnd): the key is then not an interrupt.
func (r *Relay) moveOn(e *entry, h parsers.Hook) {
	w := r.windowFor(e)
	if w == nil || h.AgentID != "" {
		return
	}
	switch h.Event {
	case "UserPromptSubmit", "Stop", "StopFailure", "SessionEnd":
		r.counters.InterruptsUnconfirmed++
		r.closeWindow(e.tab)
	}
}
