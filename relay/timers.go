package relay

// A timer that changes state is an input like any other. Live, its run is
// queued behind whatever reached the inbox first, so a step stamped after
// its deadline can run before it: each run is recorded (RecTimer, with the
// number of its arming) and a replay runs it where the live relay did, not
// where its deadline falls.
type timers struct {
	n      uint64           // armings so far
	armed  map[uint64]firer // by number, until run or stopped
	replay bool             // runs come from RunTimer only (ReplayTimers)
}

// arm carries out a step's fxArm: t runs as a step d from now, unless
// stopped first. An unrecorded timer (a poke) runs by the clock. Armings are numbered in the order the steps leave them,
// the same live and in a replay of the same inputs.
func (r *Relay) arm(fx effect) {
	if fx.unrecorded {
		t := fx.t
		t.handle().stop = r.clock.AfterFunc(fx.d, func() { r.enqueue(func() { t.fire(r.m) }) })
		return
	}
	if r.timers.armed == nil {
		r.timers.armed = map[uint64]firer{}
	}
	r.timers.n++
	n := r.timers.n
	r.timers.armed[n] = fx.t
	stopClock := func() bool { return true }
	if !r.timers.replay {
		stopClock = r.clock.AfterFunc(fx.d, func() { r.enqueue(func() { r.runTimer(n) }) })
	}
	fx.t.handle().stop = func() bool {
		_, armed := r.timers.armed[n]
		delete(r.timers.armed, n)
		stopClock()
		return armed
	}
}

// runTimer runs arming n as a step, if it is still armed, and records that
// it ran.
func (r *Relay) runTimer(n uint64) {
	t, ok := r.timers.armed[n]
	if !ok {
		return // stopped after its deadline, before its turn
	}
	delete(r.timers.armed, n)
	r.record(RecordLine{Kind: RecTimer, Timer: n, Name: t.handle().name})
	t.fire(r.m)
}

// runTimerNamed runs the armed timer named name (the earliest armed, if
// several are), or arming n for a recording that names none.
func (r *Relay) runTimerNamed(n uint64, name string) {
	if name == "" {
		r.runTimer(n)
		return
	}
	var first uint64
	for k, t := range r.timers.armed {
		if t.handle().name == name && (first == 0 || k < first) {
			first = k
		}
	}
	if first != 0 {
		r.runTimer(first)
	}
}

// ReplayTimers has the relay's timers run only when RunTimer says, as a
// recording's RecTimer lines do. Call before Run.
func (r *Relay) ReplayTimers() { r.timers.replay = true }

// RunTimer runs the relay's timer named name, or its arming n when the
// recording names none (a replay feeds the recorded runs).
func (r *Relay) RunTimer(n uint64, name string) { r.enqueue(func() { r.runTimerNamed(n, name) }) }
