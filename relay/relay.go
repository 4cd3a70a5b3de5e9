// Package relay reconciles hook events, log evidence and key presses into one
// state per agent session and streams the changes to subscribers.
//
// A single goroutine (Run) owns every session: hook requests, key reports,
// watcher evidence, timers and API calls only enqueue work for it. It is
// split by what each part owns:
//
//   - the edge (Relay: relay.go, requests.go, feeds.go, procfacts.go,
//     record.go, subscribe.go): validates and records each input where it
//     enters, reads the clock, /proc and the file system, runs the input as
//     one step of the machine, then publishes the step's changes and
//     carries out its effects;
//   - the machine (machine.go, steps.go, quiet.go, window.go, publish.go,
//     drift.go): the rules, deterministic: no I/O, time given with each
//     step, process facts through the procs seam;
//   - its parts, each owning its invariant: the store (store.go, frozen.go,
//     persist.go: sessions live and frozen, log marks, the checkpoint), the
//     binder (bind.go, tabproc.go, submitbind.go: tab ↔ session ↔
//     process) and the registry (registry.go, liveness.go);
//   - the API (api.go): requests decoded and dispatched (Handle), for the
//     server (package relay/server), which reaches the relay through the
//     small interface it defines.
package relay

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"time"

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
	// TryRoots are watched and trusted as Roots, and not listed: the
	// private homes of `logwatch try`.
	TryRoots []string `json:"-"`
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
	// BootMore: more of this session's history follows at once; settle it
	// after the last line (watcher.Record.BootMore).
	BootMore bool
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
	timers timers // the machine's armed timers (timers.go)
	// remotes forwards requests to remote daemons (nil: no remote).
	remotes RemoteSender
}

// RemoteSender is what the relay needs of the remote links: forward a
// request to a remote's daemon, without waiting (its answer is the
// remote's next change).
type RemoteSender interface {
	Send(remote string, req Request) error
}

// SetRemotes gives the relay the remote links' sender. Call before Run.
func (r *Relay) SetRemotes(s RemoteSender) { r.remotes = s }

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
	for _, rt := range append(slices.Clone(cfg.Roots), cfg.TryRoots...) {
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
	r.m.out.full = r.publish
	return r
}

// SetRecorder makes the relay record its inputs and outputs. Call before Run.
func (r *Relay) SetRecorder(rec Recorder) {
	r.rec = rec
	r.record(RecordLine{Kind: RecStart, Config: &r.m.cfg, Timers: true})
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
	r.publish()
	if cap(m.out.events) > outboxKeep {
		m.out.events = nil // a batch start-up filled: not kept for every later step
	}
	for _, fx := range m.out.effects {
		switch fx.kind {
		case fxArm:
			r.arm(fx)
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
		case fxRemote:
			if r.remotes == nil {
				break // a replay: the remote's answer is in the recording
			}
			if err := r.remotes.Send(fx.remote, fx.req); err != nil {
				r.log.Warn().Err(err).Str("host", fx.remote).Str("op", fx.req.Op).Msg("request not forwarded to the remote")
			}
		}
	}
	clear(m.out.effects)
	m.out.effects = m.out.effects[:0]
	if cap(m.out.effects) > outboxKeep {
		m.out.effects = nil // a rare step's many: not kept for every later one
	}
}

// publish records the changes the machine left and sends them to the
// subscribers, in order.
func (r *Relay) publish() {
	m := r.m
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
}

// enqueue runs f on the relay goroutine without waiting; it blocks (applying
// back-pressure to the caller) while the inbox is full.
func (r *Relay) enqueue(f func()) {
	select {
	case r.loop.inbox <- f:
	case <-r.loop.done:
	}
}
