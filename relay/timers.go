package relay

import "time"

// A timer that changes state is an input like any other. Live, its run is
// queued behind whatever reached the inbox first, so a step stamped after
// its deadline can run before it: each run is recorded (RecTimer, with the
// number of its arming) and a replay runs it where the live relay did, not
// where its deadline falls.
type timers struct {
	n      uint64            // armings so far
	armed  map[uint64]func() // by number, until run or stopped
	replay bool              // runs come from RunTimer only (ReplayTimers)
}

// after runs f on the relay goroutine d from now, unless stopped first.
// Armings are numbered in the order steps make them, the same live and in a
// replay of the same inputs.
func (r *Relay) after(d time.Duration, f func()) (stop func() bool) {
	if r.timers.armed == nil {
		r.timers.armed = map[uint64]func(){}
	}
	r.timers.n++
	n := r.timers.n
	r.timers.armed[n] = f
	stopClock := func() bool { return true }
	if !r.timers.replay {
		stopClock = r.clock.AfterFunc(d, func() { r.enqueue(func() { r.runTimer(n) }) })
	}
	return func() bool {
		_, armed := r.timers.armed[n]
		delete(r.timers.armed, n)
		stopClock()
		return armed
	}
}

// runTimer runs arming n, if it is still armed, and records that it ran.
func (r *Relay) runTimer(n uint64) {
	f, ok := r.timers.armed[n]
	if !ok {
		return // stopped after its deadline, before its turn
	}
	delete(r.timers.armed, n)
	r.record(RecordLine{Kind: RecTimer, Timer: n})
	f()
}

// ReplayTimers has the relay's timers run only when RunTimer says, as a
// recording's RecTimer lines do. Call before Run.
func (r *Relay) ReplayTimers() { r.timers.replay = true }

// RunTimer runs the relay's arming n (a replay feeds the recorded runs).
func (r *Relay) RunTimer(n uint64) { r.enqueue(func() { r.runTimer(n) }) }
