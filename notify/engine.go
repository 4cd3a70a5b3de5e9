package notify

import (
	"sort"
	"time"

	"github.com/logwatch/logwatch/relay/wire"
)

// Rules are the decisions the person makes about alerts (notify: in the
// configuration).
type Rules struct {
	// Done alerts for a finished turn too (waiting always alerts).
	Done bool
	// Rate is the least time between two alerts of one session: a second
	// one inside it waits for the rest of it, and is dropped if the
	// session moved on meanwhile.
	Rate time.Duration
}

// Op is what a sink is asked to do.
type Op int

const (
	OpShow Op = iota
	OpWithdraw
)

func (o Op) String() string {
	if o == OpWithdraw {
		return "withdraw"
	}
	return "show"
}

// Action is one decision of the engine, for every sink.
type Action struct {
	Op    Op
	Alert Alert
}

// Mark says a session's turn was dealt with (alerted, or seen as it began):
// the engine never alerts for the same key, state and since again, across
// restarts too (the marks are saved next to the checkpoint).
type Mark struct {
	State string    `json:"state"`
	Since time.Time `json:"since"`
	At    time.Time `json:"at"` // when it was made: the oldest go first past MaxMarks
}

// MaxMarks bounds the marks kept (one per session in an alerted state).
const MaxMarks = 4096

// track is what the engine knows of one session.
type track struct {
	a       Alert
	in      bool      // a is in an alerting state: a's turn is still on
	shown   bool      // a Show went out and no Withdraw since
	last    time.Time // the last Show
	pending bool      // a Show waits for the rate limit: due at last+Rate
}

// Engine decides, from the relay's changes, the focus and the host apps
// covering sessions, what every sink shows. It is deterministic: no I/O,
// no clock (every call takes now), no goroutine; the Notifier is its edge.
type Engine struct {
	rules  Rules
	s      map[string]*track
	focus  map[uint64]string // connection → host\x00tab it looks at
	covers map[uint64]bool   // connections of host apps showing their own alerts
	marks  map[string]Mark
	dirty  bool // marks changed since Marks was last taken
}

// NewEngine starts an engine with the marks a previous daemon saved.
func NewEngine(rules Rules, marks map[string]Mark) *Engine {
	e := &Engine{rules: rules, s: map[string]*track{}, focus: map[uint64]string{},
		covers: map[uint64]bool{}, marks: map[string]Mark{}}
	for k, m := range marks {
		e.marks[k] = m
	}
	return e
}

// KeyOf names a session across hosts. The NUL cannot appear in a host
// name (config.CheckRemote), so no local id can spell a remote's key.
func KeyOf(host, session string) string {
	if host == "" {
		return session
	}
	return host + "\x00" + session
}

func tabKey(host, tab string) string { return host + "\x00" + tab }

// alertOf is what a sink shows of ev.
func alertOf(ev wire.Event) Alert {
	return Alert{Key: KeyOf(ev.Host, ev.Session), Host: ev.Host, Session: ev.Session, Agent: ev.Agent,
		Title: ev.Title, State: ev.State, Reason: ev.Reason, Detail: ev.Detail, Tab: ev.Tab, Cwd: ev.Cwd,
		Since: ev.Since, Seq: ev.Seq}
}

// alerting says whether a session in this state deserves an alert: a wait
// always; a finished turn when asked for, and only a turn that really
// ended (a Stop, or a StopFailure): never an interrupt (that is ready), a
// Stop with subagents still running (that is working), a compaction
// outside a turn, or an acknowledgement. A stale remote session's state is
// old news: it never alerts.
func (e *Engine) alerting(a Alert, stale bool) bool {
	if stale {
		return false
	}
	switch a.State {
	case "waiting":
		return true
	case "done":
		return e.rules.Done && (a.Reason == "turn_end" || a.Reason == "error")
	}
	return false
}

// historyAge is how long ago a session with no live process last changed
// when its state read at start-up is old news.
const historyAge = 10 * time.Minute

// history says whether a session read from the logs at start-up, or first
// seen in a snapshot, is old news: no live process and no change for
// historyAge. Without it a first start (no marks yet) alerted every wait
// the logs still ended in, hours or days old. A change as it happens is
// always news (a remote's clock may be behind).
func history(ev wire.Event, now time.Time) bool {
	return (ev.Snapshot || ev.Bootstrap) && !ev.Live && now.Sub(ev.Since) > historyAge
}

// quiet says whether the person already sees a: its tab is focused, or a
// host app connected with alerts shows this machine's tabbed sessions.
func (e *Engine) quiet(a Alert) bool {
	if a.Tab == "" {
		return false
	}
	if a.Host == "" && len(e.covers) > 0 {
		return true
	}
	tk := tabKey(a.Host, a.Tab)
	for _, f := range e.focus {
		if f == tk {
			return true
		}
	}
	return false
}

func (e *Engine) marked(a Alert) bool {
	m, ok := e.marks[a.Key]
	return ok && m.State == a.State && m.Since.Equal(a.Since)
}

func (e *Engine) mark(a Alert, now time.Time) {
	e.marks[a.Key] = Mark{State: a.State, Since: a.Since, At: now}
	e.dirty = true
	if len(e.marks) > MaxMarks {
		e.trimMarks()
	}
}

func (e *Engine) unmark(key string) {
	if _, ok := e.marks[key]; ok {
		delete(e.marks, key)
		e.dirty = true
	}
}

// trimMarks drops the oldest marks past MaxMarks.
func (e *Engine) trimMarks() {
	keys := make([]string, 0, len(e.marks))
	for k := range e.marks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := e.marks[keys[i]].At, e.marks[keys[j]].At
		if a.Equal(b) {
			return keys[i] < keys[j]
		}
		return a.Before(b)
	})
	for _, k := range keys[:len(keys)-MaxMarks] {
		delete(e.marks, k)
	}
}

// Change takes one of the relay's events (snapshot, change or resync).
func (e *Engine) Change(ev wire.Event, now time.Time) []Action {
	a := alertOf(ev)
	t := e.s[a.Key]
	if t == nil {
		t = &track{}
		e.s[a.Key] = t
	}
	prev, was := t.a, t.in
	t.a = a
	t.in = e.alerting(a, ev.Stale || history(ev, now))
	var out []Action
	if t.in && was && prev.State == a.State {
		// The same wait (or finished turn), its detail or evidence updated:
		// the relay moves since with every change it publishes, so the
		// mark follows it (a restart restores the latest since).
		if m, ok := e.marks[a.Key]; ok && m.State == a.State && !m.Since.Equal(a.Since) {
			m.Since = a.Since
			e.marks[a.Key] = m
			e.dirty = true
		}
		return nil
	}
	if !t.in {
		// Moved on (answered, acknowledged, interrupted, ended) or never
		// alerting: nothing of it may stay shown.
		t.pending = false
		if t.shown {
			t.shown = false
			out = append(out, Action{OpWithdraw, a})
		}
		if !ev.Stale {
			e.unmark(a.Key)
		}
		if a.State == "ended" {
			delete(e.s, a.Key)
		}
		return out
	}
	if e.marked(a) {
		// This turn was dealt with (here or before a restart): a detail
		// update, a resync or a restored session. What a previous daemon
		// showed may still show: withdrawn when the session moves on.
		t.shown = t.shown || !e.quiet(a)
		return nil
	}
	if e.quiet(a) {
		// The person sees it begin: dealt with.
		e.mark(a, now)
		t.pending = false
		if t.shown {
			t.shown = false
			out = append(out, Action{OpWithdraw, a})
		}
		return out
	}
	if !t.last.IsZero() && e.rules.Rate > 0 && now.Sub(t.last) < e.rules.Rate {
		t.pending = true
		return nil
	}
	return e.show(t, now)
}

func (e *Engine) show(t *track, now time.Time) []Action {
	t.pending = false
	t.shown = true
	t.last = now
	e.mark(t.a, now)
	return []Action{{OpShow, t.a}}
}

// Focus says which tab connection conn's person looks at ("" for none);
// what that tab's session shows is withdrawn.
func (e *Engine) Focus(conn uint64, host, tab string, now time.Time) []Action {
	if tab == "" {
		delete(e.focus, conn)
		return nil
	}
	e.focus[conn] = tabKey(host, tab)
	return e.hush(now)
}

// Forget drops what connection conn said (its focus, its cover): it closed.
func (e *Engine) Forget(conn uint64) {
	delete(e.focus, conn)
	delete(e.covers, conn)
}

// Cover says connection conn is a host app that shows its own alerts for
// this machine's sessions with a tab, while it stays connected.
func (e *Engine) Cover(conn uint64, now time.Time) []Action {
	e.covers[conn] = true
	return e.hush(now)
}

// hush withdraws (and marks as dealt with) what is now quiet.
func (e *Engine) hush(now time.Time) []Action {
	var out []Action
	for _, k := range e.sortedKeys() {
		t := e.s[k]
		if (!t.shown && !t.pending) || !e.quiet(t.a) {
			continue
		}
		e.mark(t.a, now)
		t.pending = false
		if t.shown {
			t.shown = false
			out = append(out, Action{OpWithdraw, t.a})
		}
	}
	return out
}

// Due issues the alerts the rate limit held whose time has come.
func (e *Engine) Due(now time.Time) []Action {
	var out []Action
	for _, k := range e.sortedKeys() {
		t := e.s[k]
		if t.pending && !now.Before(t.last.Add(e.rules.Rate)) {
			out = append(out, e.show(t, now)...)
		}
	}
	return out
}

// Next is when Due has something to do (zero: nothing waits).
func (e *Engine) Next() time.Time {
	var next time.Time
	for _, t := range e.s {
		if !t.pending {
			continue
		}
		if d := t.last.Add(e.rules.Rate); next.IsZero() || d.Before(next) {
			next = d
		}
	}
	return next
}

// Marks returns the marks when they changed since the last call (nil, false
// otherwise), for the edge to save.
func (e *Engine) Marks() (map[string]Mark, bool) {
	if !e.dirty {
		return nil, false
	}
	e.dirty = false
	out := make(map[string]Mark, len(e.marks))
	for k, m := range e.marks {
		out[k] = m
	}
	return out, true
}

func (e *Engine) sortedKeys() []string {
	keys := make([]string, 0, len(e.s))
	for k := range e.s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
