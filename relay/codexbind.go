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
// process names the thread it shows (measured: README "How states are
// decided", Codex binding). What ties a TUI to its thread is the user: the
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
const submitWindow = time.Second

// submitSkew is how far after a turn start's stamp a submit may lie: the
// rollout stamps in milliseconds, the key is stamped when wrap read it.
const submitSkew = 50 * time.Millisecond

// submitted records an Enter typed into tab at at.
func (r *Relay) submitted(tab string, at time.Time) {
	r.counters.Submits++
	if r.submits == nil {
		r.submits = map[string]time.Time{}
	}
	for t, s := range r.submits {
		if at.Sub(s) > 2*submitWindow {
			delete(r.submits, t) // too old to bind anything: keep the map small
		}
	}
	r.submits[tab] = at
}

// turnStarted applies codex.bind.submit to a turn start of e stamped at.
// It runs before the evidence is folded, so the change it leads to is
// published with the tab.
func (r *Relay) turnStarted(e *entry, at time.Time) {
	if e.tab != "" {
		delete(r.submits, e.tab)
		return
	}
	if e.s.Agent != parsers.AgentCodex || len(r.submits) == 0 {
		return
	}
	var cands []string
	for tab, s := range r.submits {
		if s.Before(at.Add(-submitWindow)) || s.After(at.Add(submitSkew)) {
			continue
		}
		if b := r.sessions[r.tabs[tab]]; b != nil && b.s.State != session.Ended {
			continue
		}
		cands = append(cands, tab)
	}
	switch len(cands) {
	case 0:
		return
	case 1:
	default:
		r.counters.BindsAmbiguous++
		r.log.Debug().Str("session", e.s.ID).Strs("tabs", cands).Str("rule", "codex.bind.ambiguous").
			Msg("turn start follows submits in several tabs: no tab bound")
		return
	}
	tab := cands[0]
	ms := at.Sub(r.submits[tab]).Milliseconds()
	delete(r.submits, tab)
	r.tabs[tab] = e.s.ID
	e.tab = tab
	r.changed = true
	r.counters.BindsSubmit++
	r.counters.SubmitToTurnLastMs = ms
	if ms > r.counters.SubmitToTurnMaxMs {
		r.counters.SubmitToTurnMaxMs = ms
	}
	r.log.Debug().Str("session", e.s.ID).Str("tab", tab).Int64("submit_to_turn_ms", ms).
		Str("rule", "codex.bind.submit").Msg("tab bound by its submit")
}

// logTurnStart applies codex.bind.submit to a live log line that starts a
// turn (or carries the prompt that does, in rollouts without task_*).
func (r *Relay) logTurnStart(e *entry, l LogLine) {
	if l.Evidence.Kind != parsers.KindTurnStart && l.Evidence.Kind != parsers.KindPrompt {
		return
	}
	at, err := time.Parse(time.RFC3339Nano, l.Evidence.At)
	if err != nil {
		at = r.clock.Now()
	}
	r.turnStarted(e, at)
}

// hookTurnStart applies codex.bind.submit to a hook that starts a turn:
// UserPromptSubmit, and Codex 0.169's SessionStart, fired at the first
// prompt.
func (r *Relay) hookTurnStart(e *entry, h parsers.Hook) {
	if h.AgentID == "" && (h.Event == "UserPromptSubmit" || h.Event == "SessionStart") {
		r.turnStarted(e, r.clock.Now())
	}
}

// outlived applies rule codex.turn_outlived_tab: evidence of the turn that
// was running when the session's tab closed (Codex finishes it in its
// background server) brings the session back, with no tab, working; the
// evidence then decides the rest (its turn end: done). fold folds the
// evidence and reports its change. A new turn start is a resume instead
// (log.session_resumed), and needs no outlived turn.
func (r *Relay) outlived(e *entry, from string, fold func() (session.Change, bool)) (session.Change, bool) {
	back, ok := e.s.Outlive(from, from+".turn_outlived_tab")
	ch, folded := fold()
	if !ok || folded {
		return ch, folded
	}
	return back, true
}
