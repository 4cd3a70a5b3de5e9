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
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
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

// Relay is the owner goroutine and the edge around the machine: it takes
// every input (requests, watcher records, timers, process exits), stamps
// it with the clock, runs it as one step of the machine, then publishes
// the step's changes to the subscribers and carries out its effects.
// Create it with New and start Run.
type Relay struct {
	m      *machine
	clock  Clock
	log    zerolog.Logger
	follow Follower
	roots  []string // cfg.Roots made absolute, each also with symlinks resolved
	rec    Recorder // nil unless recording
	procs  edgeProcs
	loop   loop
	subs   subscribers
}

// loop is how inputs reach the owner goroutine, and what it tells of its
// progress.
type loop struct {
	inbox       chan func()
	done        chan struct{}
	bootDone    chan struct{} // closed once the bootstrap is folded and published
	restoredCh  chan struct{}
	restoreOnce sync.Once
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
	r := &Relay{
		clock: clock, follow: follow, roots: roots,
		log: log.With().Str("component", "relay").Logger(),
		loop: loop{
			inbox:      make(chan func(), 4096),
			done:       make(chan struct{}),
			bootDone:   make(chan struct{}),
			restoredCh: make(chan struct{}),
		},
		subs: subscribers{set: map[*Subscription]bool{}},
	}
	r.procs.r = r
	r.m = newMachine(cfg, r.log, follow != nil, &r.procs)
	return r
}

// SetRecorder makes the relay record its inputs and outputs. Call before Run.
func (r *Relay) SetRecorder(rec Recorder) {
	r.rec = rec
	r.record(RecordLine{Kind: RecStart, Config: &r.m.cfg})
}

// Run processes work until ctx ends. It is the only goroutine that touches
// session state.
func (r *Relay) Run(ctx context.Context) error {
	defer r.procs.close() // after done is closed: a late exit report must not block
	defer close(r.loop.done)
	for {
		select {
		case <-ctx.Done():
			for sub := range r.subs.set {
				r.drop(sub, "relay stopped")
			}
			return nil
		case f := <-r.loop.inbox:
			r.m.now = r.clock.Now()
			f()
			r.endStep()
		}
	}
}

// do runs f on the relay goroutine and waits for it (and for its step's
// changes to be published).
func (r *Relay) do(ctx context.Context, f func()) error {
	ran := make(chan struct{})
	select {
	case r.loop.inbox <- func() { f(); r.endStep(); close(ran) }:
	case <-r.loop.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ran:
		return nil
	case <-r.loop.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// endStep takes what the step left: its changes are recorded and sent to
// the subscribers, its effects carried out, in the order it left them.
func (r *Relay) endStep() {
	m := r.m
	if m.store.freezing == freezeEager {
		m.freezeIdle(true)
	}
	for i := range m.out.events {
		if r.rec != nil {
			ev := m.out.events[i]
			r.record(RecordLine{Kind: RecChange, Event: &ev})
		}
		for sub := range r.subs.set {
			r.send(sub, m.out.events[i])
		}
	}
	clear(m.out.events)
	m.out.events = m.out.events[:0]
	for _, fx := range m.out.effects {
		switch fx.kind {
		case fxArm:
			t := fx.t
			t.handle().stop = r.clock.AfterFunc(fx.d, func() { r.enqueue(func() { t.fire(r.m) }) })
		case fxStop:
			if h := fx.t.handle(); h.stop != nil {
				h.stop()
			}
		case fxFollow:
			if r.follow != nil {
				r.follow.Follow(fx.path)
			}
		case fxPoke:
			if r.follow != nil {
				r.follow.Poke(fx.path)
			}
		}
	}
	clear(m.out.effects)
	m.out.effects = m.out.effects[:0]
}

// enqueue runs f on the relay goroutine without waiting; it blocks (applying
// back-pressure to the caller) while the inbox is full.
func (r *Relay) enqueue(f func()) {
	select {
	case r.loop.inbox <- f:
	case <-r.loop.done:
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
	// The roots check touches the file system: here, off the owner
	// goroutine, for the machine to use if the path is new to the session.
	under := h.TranscriptPath != "" && r.underRoots(h.TranscriptPath)
	return r.do(ctx, func() {
		if r.rec != nil {
			r.record(RecordLine{Kind: RecHook, Agent: agent, Tab: tab, Payload: append(json.RawMessage(nil), payload...)})
		}
		r.m.hook(h, tab, under)
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

// Log delivers one log line from the watcher. It blocks while the relay is
// busy: the watcher slows down instead of losing lines.
func (r *Relay) Log(l LogLine) {
	r.enqueue(func() {
		if r.rec != nil { // the hot path: build nothing unless recording
			r.record(RecordLine{Kind: RecLog, Path: l.Path, Session: l.Session, Agent: string(l.Agent), Subagent: l.Subagent,
				Offset: l.Offset, End: l.End, Line: l.Line, Raw: string(l.Raw), Bootstrap: l.Bootstrap, Replay: l.Replay && r.m.store.restored})
		}
		r.m.logLine(l)
	})
}

// Oversized counts lines the watcher skipped for their length; the file's
// position moves past them (l.Gen, l.End, l.Line).
func (r *Relay) Oversized(l LogLine, n int) {
	r.enqueue(func() {
		if r.rec != nil {
			r.record(RecordLine{Kind: RecOversized, Path: l.Path, Gen: l.Gen, End: l.End, Line: l.Line, N: n})
		}
		r.m.oversized(l, n)
	})
}

// BootstrapDone tells the relay the watcher has read every existing log's
// recent history: the folded states are published once, flagged bootstrap,
// and evidence from now on is live.
func (r *Relay) BootstrapDone() {
	r.enqueue(func() {
		r.record(RecordLine{Kind: RecBootstrapDone})
		r.m.bootstrapDone()
		select {
		case <-r.loop.bootDone:
		default:
			close(r.loop.bootDone)
		}
	})
}

// Booted is closed once BootstrapDone has been applied: every existing
// log's history is folded and published, and start-up's garbage is behind.
func (r *Relay) Booted() <-chan struct{} { return r.loop.bootDone }

// Ack acknowledges a finished turn: done → ready.
func (r *Relay) Ack(ctx context.Context, id string) error {
	if err := validID("session", id); err != nil {
		r.countBad()
		return err
	}
	var err error
	if e := r.do(ctx, func() {
		r.record(RecordLine{Kind: RecAck, Session: id})
		err = r.m.ack(id)
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
		n = r.m.tabClosed(tab)
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
		err = r.m.gone(id)
	}); e != nil {
		return e
	}
	return err
}

// Status returns every session and the counters.
func (r *Relay) Status(ctx context.Context) (Status, error) {
	var st Status
	err := r.do(ctx, func() {
		st = r.m.status()
		st.Counters.Subscribers = int64(len(r.subs.set))
		if r.subs.conns != nil {
			st.Counters.ConnCounters = r.subs.conns()
		}
	})
	if err != nil {
		st = Status{Sessions: []Event{}, Worktrees: []WorktreeState{}, Roots: append([]string{}, r.m.cfg.Roots...)}
	}
	return st, err
}

// LogOffset is the end of the last line received from path (0 if none):
// a replay waits on it to know the watcher delivered what it wrote.
func (r *Relay) LogOffset(ctx context.Context, path string) (int64, error) {
	var off int64
	err := r.do(ctx, func() {
		f, _ := r.m.store.file(path)
		off = f.offset
	})
	return off, err
}
