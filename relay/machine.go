package relay

import (
	"time"

	"github.com/rs/zerolog"
)

// machine is the relay's state and its rules: a deterministic step
// function over typed inputs. It reads no clock (the edge sets now before
// each step), no file system and no /proc (process facts come through
// procs), and sends nothing: each step leaves its published changes and
// the effects it needs (timers, following and poking logs) in out, which
// the edge takes when the step ends.
type machine struct {
	cfg   Config
	log   zerolog.Logger
	now   time.Time // the step's time, set by the edge
	procs procs
	out   outbox
	// watching: there is a log watcher to follow and poke logs.
	watching bool

	store    store              // the sessions, live and frozen, and the logs' marks (store.go)
	bind     binder             // which tab shows which session (bind.go)
	reg      registry           // the agents' registry processes (registry.go)
	windows  map[string]*window // tab → open interrupt-confirmation window (window.go)
	rem      remotes            // the remote hosts' sessions (remote.go)
	seq      uint64             // of the last published change
	counters Counters
}

func newMachine(cfg Config, log zerolog.Logger, watching bool, p procs) *machine {
	return &machine{
		cfg: cfg, log: log, watching: watching, procs: p,
		store: store{
			worktrees: cfg.Worktrees,
			sessions:  map[string]*entry{},
			files:     map[string]folded{},
		},
		bind: binder{
			tabs:     map[string]string{},
			tabProcs: map[string]tabProc{},
			fresh:    map[string]int{},
		},
		reg: registry{
			procs: map[string]*regProc{},
			idx:   map[string][]*regProc{},
		},
		windows: map[string]*window{},
	}
}

// outbox is what a step leaves for the edge: the changes to publish, in
// order, and the effects to carry out, in order.
type outbox struct {
	events  []Event
	effects []effect
	// full hands the edge a full batch of events mid-step: the settling
	// of start-up's history publishes one change per session, and 10 000
	// of them held to the step's end were 2.5 MB.
	full func()
}

// outboxBatch is how many changes the outbox holds before it hands them
// over; outboxKeep how much room it keeps between steps (a step publishes
// a change or two and leaves a few effects).
const (
	outboxBatch = 64
	outboxKeep  = 8
)

// effect is one thing a step needs done outside the machine.
type effect struct {
	kind effectKind
	d    time.Duration // fxArm
	t    firer         // fxArm, fxStop
	path string        // fxFollow, fxPoke
	// fxRemote: the request to forward to the remote's daemon
	remote string
	req    Request
	// unrecorded: fxArm of a timer that changes no state (timers.go)
	unrecorded bool
}

type effectKind uint8

const (
	fxArm    effectKind = iota // arm t to fire after d
	fxStop                     // stop t
	fxFollow                   // follow the log at path
	fxPoke                     // re-read the log at path now
	fxRemote                   // forward req to the remote's daemon
)

// timer is a timer the edge armed for the machine.
type timer struct {
	stop func() bool // set by the edge once armed
	// name says which timer it is ("quiet SESSION", "sweep", …), recorded
	// with its run: a replay runs the timer of that name, whatever its
	// arming's number, which differs where the live steps armed otherwise
	// (a rewritten log read as other lines).
	name string
}

func (t *timer) handle() *timer { return t }

// firer is an armed timer and the step it runs when it fires, on the
// owner goroutine like any input.
type firer interface {
	handle() *timer
	fire(m *machine)
}

// funcTimer is a timer whose step is a function.
type funcTimer struct {
	timer
	f func()
}

func (t *funcTimer) fire(*machine) { t.f() }

// after arms a timer named name that runs f as a step after d.
func (m *machine) after(d time.Duration, name string, f func()) *funcTimer {
	t := &funcTimer{timer: timer{name: name}, f: f}
	m.arm(d, t)
	return t
}

// afterUnrecorded is after for a timer whose run changes no state (a
// poke): the edge runs it by the clock and does not record it.
func (m *machine) afterUnrecorded(d time.Duration, f func()) *funcTimer {
	t := &funcTimer{f: f}
	m.out.effects = append(m.out.effects, effect{kind: fxArm, d: d, t: t, unrecorded: true})
	return t
}

// arm has the edge arm t for d.
func (m *machine) arm(d time.Duration, t firer) {
	m.out.effects = append(m.out.effects, effect{kind: fxArm, d: d, t: t})
}

// stop has the edge stop t (a nil one, or one that fired, is no-op).
func (m *machine) stop(t firer) {
	m.out.effects = append(m.out.effects, effect{kind: fxStop, t: t})
}

// followLog has the watcher follow path.
func (m *machine) followLog(path string) {
	m.out.effects = append(m.out.effects, effect{kind: fxFollow, path: path})
}

// pokeLog has the watcher re-read path now.
func (m *machine) pokeLog(path string) {
	m.out.effects = append(m.out.effects, effect{kind: fxPoke, path: path})
}

// The machine's questions about processes, through the seam.
func (m *machine) alive(pid int, start uint64) bool { return m.procs.Alive(pid, start) }
func (m *machine) descends(pid, ancestor int) bool  { return m.procs.Descends(pid, ancestor) }
func (m *machine) watchExit(pid int, start uint64) bool {
	return m.procs.Watch(pid, start)
}

// forgetExit ends the watch of a process's exit, unless another of the
// registry's entries still has it watched (a process a hook named for two
// sessions, or its registry file and a hook).
func (m *machine) forgetExit(pid int, start uint64) {
	for _, q := range m.reg.procs {
		if q.watched && q.e.Pid == pid && q.start == start {
			return
		}
	}
	m.procs.Forget(pid, start)
}
