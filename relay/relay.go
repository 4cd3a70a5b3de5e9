// Package relay reconciles hook events, log evidence and key presses into one
// state per agent session and streams the changes to subscribers.
//
// A single goroutine (Run) owns every session: hook requests, key reports,
// watcher evidence, timers and API calls only enqueue work for it. Time comes
// from an injected Clock so windows and quiet periods replay
// deterministically.
package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/session"
)

// Config tunes the relay.
type Config struct {
	// Worktrees are registered worktree roots: a session belongs to the
	// longest one that prefixes its cwd.
	Worktrees []string `json:"worktrees"`
	// InterruptWindow is how long a key press waits for the log's marker.
	InterruptWindow time.Duration `json:"interrupt_window"`
	// TurnQuiet is how long a log stays quiet after a final-looking
	// assistant line before a turn without an explicit end record is done.
	TurnQuiet time.Duration `json:"turn_quiet"`
	// Backlog is how many changes a subscriber may fall behind before its
	// changes are coalesced (the latest per session, marked resync).
	Backlog int `json:"backlog"`
	// Roots are the log roots the watcher searches. A hook's transcript_path
	// is followed only when it lies under one of them (after resolving
	// symlinks), so a payload cannot make the daemon open any file it can
	// read; Status reports them, so an empty answer can say where logwatch
	// looked.
	Roots []string `json:"-"`
}

// DefaultConfig is what the daemon runs with unless configured otherwise.
func DefaultConfig() Config {
	return Config{InterruptWindow: 2 * time.Second, TurnQuiet: 3 * time.Second, Backlog: 1024}
}

// Clock is the relay's only source of time.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f on its own goroutine after d; stop cancels it.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// SystemClock is the wall clock.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }
func (SystemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// Follower is what the relay needs from the log watcher: follow a file a
// hook named, and re-read a session's log right now.
type Follower interface {
	Follow(path string)
	Poke(path string) bool
}

// LogLine is one line of an agent log as the watcher delivers it.
type LogLine struct {
	Path      string
	Session   string
	Agent     parsers.Agent
	Subagent  bool
	Offset    int64 // of the line's first byte
	End       int64 // just after its newline
	Line      int
	Evidence  parsers.Evidence
	Malformed bool
	Bootstrap bool // history read at start-up, not happening now
	// Replay marks history an earlier run already folded before its
	// checkpoint: skipped when that run's state was restored.
	Replay bool
	Gen    int    // the file's generation (watcher.Record.Gen)
	Raw    []byte // the line's bytes, only when recording
}

// Errors answered to API callers.
var (
	ErrUnknownSession = errors.New("unknown session")
	ErrClosed         = errors.New("relay stopped")
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
	// unbound is a Codex turn start of a tabless session (codexbind.go);
	// tabless: the session was last published with no tab.
	unbound unboundTurn
	tabless bool
	// Beside tabless, so the flags share a word (168 bytes; sessions at
	// rest are not entries but frozen records, frozen.go).
	booting bool // folded bootstrap history not yet settled
	touched bool // looked up since the last freezeIdle (frozen.go)
}

// Relay owns all session state. Create it with New and start Run.
type Relay struct {
	cfg    Config
	clock  Clock
	log    zerolog.Logger
	follow Follower
	roots  []string // cfg.Roots made absolute, each also with symlinks resolved

	inbox    chan func()
	done     chan struct{}
	bootDone chan struct{} // closed once the bootstrap is folded and published
	rec      Recorder      // nil unless recording

	// Owned by the Run goroutine.
	sessions   map[string]*entry
	tabs       map[string]string     // tab → bound conversation id
	tabProcs   map[string]tabProc    // tab → the process it runs (tabproc.go)
	tabPruneAt int                   // len(tabProcs) at which dead tabs' processes are dropped
	reg        map[string]*regProc   // registry file → its process (registry.go)
	regIdx     map[string][]*regProc // session → its registry processes
	sweepArmed bool                  // a liveness sweep is scheduled
	exits      *proctree.Exits       // tells registry processes' exits, once one is watched
	exitsOff   bool                  // no pidfds here (or in a test): the sweep polls
	facts      ProcFacts             // nil: /proc and pidfds (procfacts.go)
	subs       map[*Subscription]bool
	seq        uint64
	counters   Counters
	windows    map[string]*window // tab → open interrupt-confirmation window
	files      map[string]folded  // path → how far this run received and folded it (frozen sessions keep their own log's: file, setFile)
	frozen     []frozenRec        // sessions at rest, by id (frozen.go)
	frozenDead int                // of them, thawed since the last freezeIdle
	// startQuiet is the quiet period armed at restore for every restored
	// session and at BootstrapDone for those whose history ends on a final
	// message (frozen.go, settle), nil once it ran.
	startQuiet *quietArm
	// freezing is freezeAtRest but in tests, which compare a relay that
	// freezes every session at rest after each step with one that never
	// freezes: freezing must change nothing.
	freezing freezeMode
	restored bool // a saved state was restored: Replay lines are in it
	changed  bool // state changed since the last Save
	booted   bool // BootstrapDone arrived

	conns func() ConnCounters // the socket server's figures, once it exists

	restoredCh  chan struct{}
	restoreOnce sync.Once

	// Owned by the Run goroutine.
	stateSize int // bytes of the last encoded state: the next one's first guess

	// Owned by the Run goroutine (codexbind.go): tab → its last unused
	// submit, and the stamp of the last ambiguous turn start.
	submits     map[string]time.Time
	ambiguousAt time.Time

	timers      timers    // armed timers, by number (timers.go)
	recentBinds []bindRec // bindings by submit still open to a late submit
}

// New returns a relay. follow may be nil (no watcher: hooks only).
func New(cfg Config, clock Clock, follow Follower, log zerolog.Logger) *Relay {
	d := DefaultConfig()
	if cfg.InterruptWindow <= 0 {
		cfg.InterruptWindow = d.InterruptWindow
	}
	if cfg.TurnQuiet <= 0 {
		cfg.TurnQuiet = d.TurnQuiet
	}
	if cfg.Backlog <= 0 {
		cfg.Backlog = d.Backlog
	}
	if clock == nil {
		clock = SystemClock{}
	}
	for i, wt := range cfg.Worktrees {
		cfg.Worktrees[i] = filepath.Clean(wt)
	}
	roots := make([]string, 0, 2*len(cfg.Roots))
	for _, rt := range cfg.Roots {
		if abs, err := filepath.Abs(rt); err == nil {
			roots = append(roots, abs, resolvePath(abs))
		}
	}
	return &Relay{
		cfg: cfg, clock: clock, follow: follow, roots: roots,
		log:      log.With().Str("component", "relay").Logger(),
		inbox:    make(chan func(), 4096),
		done:     make(chan struct{}),
		bootDone: make(chan struct{}),
		sessions: map[string]*entry{},
		tabs:     map[string]string{},
		tabProcs: map[string]tabProc{},
		reg:      map[string]*regProc{},
		regIdx:   map[string][]*regProc{},
		subs:     map[*Subscription]bool{},
		windows:  map[string]*window{},
		files:    map[string]folded{},

		restoredCh: make(chan struct{}),
	}
}

// SetRecorder makes the relay record its inputs and outputs. Call before Run.
func (r *Relay) SetRecorder(rec Recorder) {
	r.rec = rec
	r.record(RecordLine{Kind: RecStart, Config: &r.cfg, Timers: true})
}

// Run processes work until ctx ends. It is the only goroutine that touches
// session state.
func (r *Relay) Run(ctx context.Context) error {
	defer r.regClose() // after done is closed: a late exit report must not block
	defer close(r.done)
	for {
		select {
		case <-ctx.Done():
			for sub := range r.subs {
				r.drop(sub, "relay stopped")
			}
			return nil
		case f := <-r.inbox:
			f()
			if r.freezing == freezeEager {
				r.freezeIdle(true)
			}
		}
	}
}

// do runs f on the relay goroutine and waits for it.
func (r *Relay) do(ctx context.Context, f func()) error {
	ran := make(chan struct{})
	select {
	case r.inbox <- func() { f(); close(ran) }:
	case <-r.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ran:
		return nil
	case <-r.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// enqueue runs f on the relay goroutine without waiting; it blocks (applying
// back-pressure to the caller) while the inbox is full.
func (r *Relay) enqueue(f func()) {
	select {
	case r.inbox <- f:
	case <-r.done:
	}
}

// Hook reports one hook event. agent may be "" (detected from the payload);
// tab is the LOGWATCH_TAB the hook client ran with, "" when none.
func (r *Relay) Hook(ctx context.Context, agent, tab string, payload []byte) error {
	h, err := parsers.ParseHook(payload)
	if err != nil {
		r.countBad()
		return err
	}
	if h.SessionID == "" {
		r.countBad()
		return errors.New("hook payload has no session_id")
	}
	if err := validID("session_id", h.SessionID); err != nil {
		r.countBad()
		return err
	}
	if err := validID("tab", tab); err != nil {
		r.countBad()
		return err
	}
	switch {
	case agent != "":
		if parsers.Lookup(parsers.Agent(agent)) == nil {
			r.countBad()
			return fmt.Errorf("unknown agent %q (want one of %s)", agent, strings.Join(parsers.Names(), ", "))
		}
		h.Agent = parsers.Agent(agent)
	case h.Agent == parsers.AgentUnknown:
		h.Agent = parsers.HookAgent(&h)
		if h.Agent == parsers.AgentUnknown {
			r.countBad()
			return errors.New("hook payload names no agent, and no agent takes unnamed payloads")
		}
	}
	return r.do(ctx, func() {
		if r.rec != nil {
			r.record(RecordLine{Kind: RecHook, Agent: agent, Tab: tab, Payload: append(json.RawMessage(nil), payload...)})
		}
		r.hook(h, tab)
	})
}

// MaxIDBytes bounds a session or tab id in a request: a session id is a
// UUID or a file name (at most 255 bytes, escaped), a tab id the host app's
// handle. Every pending key, submit and binding holds one.
const MaxIDBytes = 1024

// validID refuses an id that is not valid UTF-8 (it would be published
// with U+FFFD in its place, and the published id would then name nothing)
// or longer than MaxIDBytes.
func validID(field, id string) error {
	if len(id) > MaxIDBytes {
		return fmt.Errorf("%w: %s is %d bytes, at most %d", ErrBadRequest, field, len(id), MaxIDBytes)
	}
	if !utf8.ValidString(id) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrBadRequest, field)
	}
	return nil
}

// underRoots reports whether path lies under a log root, lexically and once
// symlinks are resolved.
func (r *Relay) underRoots(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	p := filepath.Clean(path)
	in := func(p string) bool {
		for _, rt := range r.roots {
			if p != rt && strings.HasPrefix(p, rt+string(filepath.Separator)) || rt == string(filepath.Separator) {
				return true
			}
		}
		return false
	}
	return in(p) && in(resolvePath(p))
}

// resolvePath resolves the symlinks of path's longest existing prefix (the
// rest may not exist yet).
func resolvePath(path string) string {
	rest := ""
	for q := path; ; q = filepath.Dir(q) {
		if real, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(q) == q {
			return path
		}
		rest = filepath.Join(filepath.Base(q), rest)
	}
}

func (r *Relay) hook(h parsers.Hook, tab string) {
	r.counters.HooksReceived++
	if prev := r.get(h.SessionID); prev != nil && prev.s.Outlives() {
		tab = "" // the rest of a turn whose tab closed is shown in no tab
	}
	if tab != "" {
		bound, ok := r.tabs[tab]
		if ok && bound != h.SessionID {
			if e := r.get(bound); e != nil && e.s.State != session.Ended {
				// A nested agent run as a tool inherits the tab; its
				// reports are not this tab's conversation.
				r.counters.HooksDropped++
				r.log.Debug().Str("tab", tab).Str("session", h.SessionID).Str("bound", bound).
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
			r.tabs[tab] = h.SessionID
			r.changed = true
		}
	}
	e := r.entry(h.SessionID, h.Agent)
	if tab != "" && e.tab != tab {
		e.tab = tab
		r.changed = true
	}
	if h.AgentID != "" {
		r.counters.HooksSubagent++
	}
	if !parsers.KnownHookEvent(h.Event) {
		r.counters.HooksUnknown++
		r.log.Debug().Str("session", h.SessionID).Str("event", h.Event).Msg("unknown hook event ignored")
	}
	// The roots check touches the file system, so it runs only when a
	// session names a new path (once per session, normally).
	switch {
	case h.TranscriptPath == "" || e.path == h.TranscriptPath:
	case !r.underRoots(h.TranscriptPath):
		r.counters.TranscriptsRefused++
		r.log.Warn().Str("session", h.SessionID).Str("path", h.TranscriptPath).
			Msg("hook transcript_path is outside every log root; not followed")
	default:
		e.path = h.TranscriptPath
		if r.follow != nil {
			r.follow.Follow(h.TranscriptPath)
		}
	}
	r.settle(e)
	r.moveOn(e, h)
	r.hookTurnStart(e, h)
	var ch session.Change
	var ok bool
	switch h.Event {
	case "SessionStart", "UserPromptSubmit", "SessionEnd":
		ch, ok = e.s.Hook(h)
	default:
		if e.s.Outlives() {
			ch, ok = r.outlived(e, session.SourceHook, func() (session.Change, bool) { return e.s.Hook(h) })
		} else {
			ch, ok = e.s.Hook(h)
		}
	}
	// A hook can change the saved state without publishing (a subagent
	// booked, a transcript path, a wait already named): the checkpoint must
	// still be rewritten.
	r.changed = true
	r.locate(e)
	if ok {
		r.moved(e)
		r.publish(e, ch, false)
	}
}

// Log delivers one log line from the watcher. It blocks while the relay is
// busy: the watcher slows down instead of losing lines.
func (r *Relay) Log(l LogLine) {
	r.enqueue(func() { r.logLine(l) })
}

func (r *Relay) logLine(l LogLine) {
	if r.rec != nil { // the hot path: build nothing unless recording
		r.record(RecordLine{Kind: RecLog, Path: l.Path, Session: l.Session, Agent: string(l.Agent), Subagent: l.Subagent,
			Offset: l.Offset, End: l.End, Line: l.Line, Raw: string(l.Raw), Bootstrap: l.Bootstrap, Replay: l.Replay && r.restored})
	}
	r.mark(l)
	if l.Replay && r.restored {
		return // folded into the restored state already
	}
	f, _ := r.file(l.Path) // mark made it
	f.offset = l.End
	r.setFile(l.Path, f)
	r.counters.Lines++
	if l.Malformed {
		r.counters.Malformed++
		return
	}
	if l.Subagent || l.Session == "" {
		return // a subagent's own transcript never drives a session
	}
	known := r.known(l.Session)
	e := r.entry(l.Session, l.Agent)
	if e.path == "" {
		e.path = l.Path
	}
	r.countDrift(e, l.Evidence)
	if l.Bootstrap {
		if !e.booting && known {
			ch := sessionChange(e)
			e.bootFrom = &ch
		}
		e.booting = true
		e.s.Log(l.Evidence)
		e.finalAt = 0
		if e.s.QuietPending() {
			if t, err := time.Parse(time.RFC3339Nano, l.Evidence.At); err == nil {
				e.finalAt = t.UnixNano()
			}
		}
		r.locate(e)
		if r.booted {
			r.settle(e) // history arriving after the start-up read: settle it at once
		}
		return
	}
	r.settle(e)
	e.lastLog = r.clock.Now()
	r.logTurnStart(e, l) // before anything is published: the change carries the tab
	if e.s.State == session.Ended && resumes(l) {
		// The log of an ended session grows again: the conversation was
		// resumed in a new process. It is back, ready, before this line.
		if ch, ok := e.s.Resume(session.SourceLog, "log.session_resumed"); ok {
			r.moved(e)
			r.publish(e, ch, false)
		}
	}
	var ch session.Change
	var ok bool
	if e.s.Outlives() && l.Evidence.Kind != parsers.KindNone {
		ch, ok = r.outlived(e, session.SourceLog, func() (session.Change, bool) { return e.s.Log(l.Evidence) })
	} else {
		ch, ok = e.s.Log(l.Evidence)
	}
	r.locate(e)
	if !ok && !known && !e.s.Phantom() {
		// A log that appeared while we watch is a new session: announce
		// it, ready, even before its first turn.
		ch, ok = e.s.Announce(session.SourceLog, "log.new_session")
	}
	if ok {
		r.confirm(e, l, &ch)
		r.moved(e)
		r.publish(e, ch, false)
	}
	r.regAfterLog(e)
	if e.s.State != session.Working && e.s.State != session.Waiting {
		// The turn ended some other way; a pending key is moot.
		if w := r.windowFor(e); w != nil && l.Offset >= w.baseline {
			r.counters.InterruptsUnconfirmed++
			r.closeWindow(e.tab)
		}
	}
	r.armQuiet(e)
}

// resumes reports whether a line appended to an ended session's log means
// a new process took the conversation up (the agent's Spec.Resumes).
func resumes(l LogLine) bool {
	s := parsers.Lookup(l.Agent)
	return s != nil && s.Resumes != nil && s.Resumes(l.Evidence)
}

// Oversized counts lines the watcher skipped for their length; the file's
// position moves past them (l.Gen, l.End, l.Line).
func (r *Relay) Oversized(l LogLine, n int) {
	r.enqueue(func() {
		if r.rec != nil {
			r.record(RecordLine{Kind: RecOversized, Path: l.Path, Gen: l.Gen, End: l.End, Line: l.Line, N: n})
		}
		r.counters.Oversized += int64(n)
		r.mark(l)
	})
}

// mark records how far this run has folded l's file, for the checkpoint: a
// new generation starts over, an old line never moves the mark back.
func (r *Relay) mark(l LogLine) {
	if f, ok := r.file(l.Path); !ok || f.Gen != l.Gen || l.End > f.End {
		f.Mark = Mark{Gen: l.Gen, End: l.End, Line: l.Line}
		r.setFile(l.Path, f)
	}
}

// BootstrapDone tells the relay the watcher has read every existing log's
// recent history: the folded states are published once, flagged bootstrap,
// and evidence from now on is live.
func (r *Relay) BootstrapDone() {
	r.enqueue(func() {
		r.record(RecordLine{Kind: RecBootstrapDone})
		r.booted = true
		if r.startQuiet == nil {
			r.armStartQuiet() // for histories that end on a final message
		}
		for _, e := range r.sortedLive() {
			if e.booting {
				r.settle(e)
			}
		}
		r.freezeIdle(true) // start-up's history is at rest
		select {
		case <-r.bootDone:
		default:
			close(r.bootDone)
		}
	})
}

// Booted is closed once BootstrapDone has been applied: every existing
// log's history is folded and published, and start-up's garbage is behind.
func (r *Relay) Booted() <-chan struct{} { return r.bootDone }

// settle ends a session's bootstrap: its state so far is history, published
// once so subscribers are current.
func (r *Relay) settle(e *entry) {
	if !e.booting {
		return
	}
	e.booting = false
	// A history that ends on a final message (SDK, 1.0.x, old Codex: no
	// end record) ends its turn after the quiet period. When the message
	// was written longer ago than that, the period passed while nobody
	// watched: the history ended the turn, as verify says. Otherwise the
	// start-up's quiet period (or its own, after start-up) ends it.
	if e.finalAt != 0 && r.clock.Now().UnixNano()-e.finalAt >= int64(r.cfg.TurnQuiet) {
		e.s.Quiet()
	}
	e.finalAt = 0
	e.s.Settle()
	if e.s.Phantom() {
		e.bootFrom = nil
		return // a log with no turn and no hook: not a row (yet)
	}
	if from := e.bootFrom; from == nil || *from != sessionChange(e) {
		r.moved(e) // history changed it; a restored state folded onto unchanged keeps its since
	}
	e.bootFrom = nil
	r.publish(e, sessionChange(e), true)
	if e.s.QuietPending() {
		if r.startQuiet != nil && e.lastLog.IsZero() {
			e.quiet = r.startQuiet
		} else {
			r.armQuiet(e)
		}
	}
}

// armQuiet schedules the quiet-period check for logs without explicit turn
// ends.
func (r *Relay) armQuiet(e *entry) {
	if e.quiet != nil && e.quiet != r.startQuiet {
		e.quiet.stop()
	}
	id := e.s.ID
	seen := e.lastLog
	q := &quietArm{}
	e.quiet = q
	q.stop = r.after(r.cfg.TurnQuiet, func() {
		// Not get: a frozen session has no quiet period pending, and
		// what froze it found its Quiet a no-op.
		cur := r.sessions[id]
		if cur != nil && cur.quiet == q {
			cur.quiet = nil
		}
		if cur == nil || !cur.lastLog.Equal(seen) {
			return
		}
		if ch, ok := cur.s.Quiet(); ok {
			r.moved(cur)
			r.publish(cur, ch, false)
		}
	})
}

// Ack acknowledges a finished turn: done → ready.
func (r *Relay) Ack(ctx context.Context, id string) error {
	if err := validID("session", id); err != nil {
		r.countBad()
		return err
	}
	var err error
	if e := r.do(ctx, func() {
		r.record(RecordLine{Kind: RecAck, Session: id})
		e := r.get(id)
		if e == nil {
			err = fmt.Errorf("%w: %s", ErrUnknownSession, id)
			return
		}
		if ch, ok := e.s.Acknowledge(); ok {
			r.moved(e)
			r.publish(e, ch, false)
		}
	}); e != nil {
		return e
	}
	return err
}

// TabClosed ends every session of a tab and unbinds it.
func (r *Relay) TabClosed(ctx context.Context, tab string) (int, error) {
	return r.TabClosedPid(ctx, tab, 0)
}

// TabClosedPid is TabClosed also naming the tab's process (0: not known), as
// TabProcess does.
func (r *Relay) TabClosedPid(ctx context.Context, tab string, pid int) (int, error) {
	if err := validID("tab", tab); err != nil {
		r.countBad()
		return 0, err
	}
	proc, err := r.tabProcessStep(tab, pid)
	if err != nil {
		return 0, err
	}
	n := 0
	err = r.do(ctx, func() {
		_ = proc() // a table full of tabs: the close still ends this tab's sessions
		r.record(RecordLine{Kind: RecTabClosed, Tab: tab})
		if _, ok := r.tabs[tab]; ok {
			delete(r.tabs, tab)
			r.changed = true
		}
		if _, ok := r.tabProcs[tab]; ok {
			delete(r.tabProcs, tab)
			r.changed = true
		}
		r.closeWindow(tab)
		delete(r.submits, tab)
		for _, e := range r.sortedLive() { // a frozen session has no tab
			if e.tab != tab {
				continue
			}
			if r.regSaidGoodbye(e) {
				n++ // its process removed its file just before: registry.removed
			} else if ch, ok := e.s.End(session.ReasonTabClosed, "api.tab_closed"); ok {
				n++ // the answer counts sessions this close ended, not those already ended
				r.moved(e)
				r.publish(e, ch, false)
			}
			// The tab is gone: a resumed conversation (Codex's turns go on
			// in a background server) is not shown in it.
			e.tab = ""
		}
	})
	return n, err
}

// Gone ends a session whose agent process is known to be gone (SPEC §2:
// ended). A host app that watches processes reports it; replay uses it for
// a recorded process exit.
func (r *Relay) Gone(ctx context.Context, id string) error {
	var err error
	if e := r.do(ctx, func() {
		r.record(RecordLine{Kind: RecGone, Session: id})
		e := r.get(id)
		if e == nil {
			err = fmt.Errorf("%w: %s", ErrUnknownSession, id)
			return
		}
		if ch, ok := e.s.End(session.ReasonProcessGone, "api.process_gone"); ok {
			r.moved(e)
			r.publish(e, ch, false)
		}
	}); e != nil {
		return e
	}
	return err
}

// Status returns every session and the counters.
func (r *Relay) Status(ctx context.Context) (Status, error) {
	st := Status{Sessions: []Event{}, Worktrees: []WorktreeState{}, Roots: append([]string{}, r.cfg.Roots...)}
	err := r.do(ctx, func() {
		st.Sessions = make([]Event, 0, r.rowCount()) // appending grew 5 MB of garbage for 1.3 MB at 5 000 sessions
		r.eachRow(func(e *entry) {
			st.Sessions = append(st.Sessions, r.event(e, sessionChange(e)))
		})
		st.Worktrees = r.worktreeStates()
		st.Counters = r.counters
		st.Counters.Drift = maps.Clone(r.counters.Drift) // encoded off this goroutine
		st.Counters.RegistryProcesses = int64(r.regFiles())
		st.Counters.Subscribers = int64(len(r.subs))
		if r.conns != nil {
			st.Counters.ConnCounters = r.conns()
		}
	})
	return st, err
}

// LogOffset is the end of the last line received from path (0 if none):
// a replay waits on it to know the watcher delivered what it wrote.
func (r *Relay) LogOffset(ctx context.Context, path string) (int64, error) {
	var off int64
	err := r.do(ctx, func() {
		f, _ := r.file(path)
		off = f.offset
	})
	return off, err
}

// entry returns the session with id, creating it ready.
func (r *Relay) entry(id string, agent parsers.Agent) *entry {
	e := r.get(id)
	if e == nil {
		s := session.New(agent)
		s.ID = id
		e = &entry{s: s, since: r.clock.Now(), touched: true}
		r.sessions[id] = e
		r.regAttach(e)
	}
	return e
}

// locate assigns the session to its worktree once its cwd is known.
func (r *Relay) locate(e *entry) {
	if e.worktree == "" && e.s.Cwd != "" {
		e.worktree = Worktree(r.cfg.Worktrees, e.s.Cwd)
	}
}

// sessionChange is a session's current state as a change.
func sessionChange(e *entry) session.Change {
	return session.Change{State: e.s.State, Reason: e.s.Reason, Detail: e.s.Detail, Source: e.s.Source, Rule: e.s.Rule}
}

// moved stamps a state change's time.
func (r *Relay) moved(e *entry) { e.since = r.clock.Now() }

func (r *Relay) event(e *entry, ch session.Change) Event {
	ev := Event{
		Session: e.s.ID, Agent: string(e.s.Agent), Tab: e.tab, Cwd: e.s.Cwd, Worktree: e.worktree,
		State: string(ch.State), Reason: ch.Reason, Detail: ch.Detail, Source: ch.Source,
		Rule: ch.Rule, Since: e.since,
	}
	ev.Pid, ev.Live = r.live(e.s.ID)
	return ev
}

func (r *Relay) publish(e *entry, ch session.Change, bootstrap bool) {
	e.tabless = e.tab == ""
	r.seq++
	r.changed = true
	ev := r.event(e, ch)
	ev.Seq, ev.Bootstrap = r.seq, bootstrap
	if e.worktree != "" {
		ev.WorktreeState = r.rowState(e.worktree)
	}
	r.record(RecordLine{Kind: RecChange, Event: &ev})
	r.log.Debug().Str("session", ev.Session).Str("state", ev.State).Str("reason", ev.Reason).
		Str("source", ev.Source).Str("rule", ev.Rule).Uint64("seq", ev.Seq).Msg("state")
	for sub := range r.subs {
		r.send(sub, ev)
	}
}

// sortedEntries are all sessions by id, frozen ones as copies (for tests:
// the relay itself reads them in place, each).
func (r *Relay) sortedEntries() []*entry {
	var out []*entry
	r.each(true, func(e *entry) {
		if r.sessions[e.s.ID] != e {
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
func (r *Relay) eachRow(fn func(e *entry)) {
	r.each(false, func(e *entry) {
		if !e.s.Phantom() {
			fn(e)
		}
	})
}

// rowCount is how many sessions eachRow visits.
func (r *Relay) rowCount() int {
	n := 0
	for _, e := range r.sessions {
		if !e.s.Phantom() {
			n++
		}
	}
	for i := range r.frozen {
		if f := &r.frozen[i]; f.flags&rDead == 0 && !f.s.Phantom() {
			n++
		}
	}
	return n
}

// rowState is the most urgent state of a worktree's sessions.
func (r *Relay) rowState(wt string) string {
	best := session.State("")
	for _, e := range r.sessions {
		if e.worktree == wt && (best == "" || e.s.State.Urgency() > best.Urgency()) {
			best = e.s.State
		}
	}
	if i := slices.Index(r.cfg.Worktrees, wt); i >= 0 {
		for k := range r.frozen {
			f := &r.frozen[k]
			if int(f.wt) == i+1 && f.flags&rDead == 0 {
				if st := f.s.State(); best == "" || st.Urgency() > best.Urgency() {
					best = st
				}
			}
		}
	}
	return string(best)
}

func (r *Relay) worktreeStates() []WorktreeState {
	out := []WorktreeState{}
	for _, wt := range r.cfg.Worktrees {
		n := 0
		for _, e := range r.sessions {
			if e.worktree == wt && !e.s.Phantom() {
				n++
			}
		}
		code := uint8(slices.Index(r.cfg.Worktrees, wt) + 1)
		for k := range r.frozen {
			if f := &r.frozen[k]; f.wt == code && f.flags&rDead == 0 && !f.s.Phantom() {
				n++
			}
		}
		out = append(out, WorktreeState{Path: wt, State: r.rowState(wt), Sessions: n})
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
