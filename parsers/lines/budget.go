package lines

import (
	"sync"
	"time"
)

// Budget bounds the memory that every Reader sharing it may hold for long
// lines, process-wide: a Reader's base buffer is its own, but growing past
// it for a line reserves exactly that line's length from the Budget first,
// and gives it back once the line was consumed. A Reader over a file finds
// a line's length before it buffers it (see SetBudget), so a line over the
// maximum is skipped without ever being held, and a long line within it
// waits for room instead of adding to the others. A line that does not fit
// in the whole Budget is skipped as oversized.
type Budget struct {
	max int64

	mu    sync.Mutex
	used  int64
	peak  int64
	waits int64
	free  chan struct{} // closed when memory is released: wakes waiters

	// OnIdle, when set, is called (on its own goroutine, at most every
	// idleEvery) when the budget falls back to unused after holding at
	// least idleAfter: the moment to hand freed buffers back to the OS.
	OnIdle   func()
	lastIdle time.Time
	held     int64 // bytes reserved since the budget was last idle
	later    bool  // an OnIdle call is scheduled
}

const (
	idleEvery = 5 * time.Second
	idleAfter = 8 << 20
)

// NewBudget returns a Budget of max bytes.
func NewBudget(max int64) *Budget {
	return &Budget{max: max, free: make(chan struct{})}
}

// BudgetStats are a Budget's figures.
type BudgetStats struct {
	Max   int64 `json:"max"`
	Used  int64 `json:"used"`
	Peak  int64 `json:"peak"`
	Waits int64 `json:"waits"` // reservations that had to wait for room
}

// Stats returns the Budget's figures.
func (b *Budget) Stats() BudgetStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BudgetStats{Max: b.max, Used: b.used, Peak: b.peak, Waits: b.waits}
}

// Reserve takes n bytes for lines held outside a Reader (a session
// database's rows), as a Reader takes them for a long line: it waits while
// the others hold too much, and is false when n exceeds the whole budget
// or stop closed first. Release gives them back.
func (b *Budget) Reserve(n int64, stop <-chan struct{}) bool { return b.acquire(n, stop) }

// Release gives back n bytes Reserve took.
func (b *Budget) Release(n int64) { b.release(n) }

// acquire reserves n bytes, waiting while the others hold too much. It
// returns false when n exceeds the whole budget or stop closed first.
func (b *Budget) acquire(n int64, stop <-chan struct{}) bool {
	if n > b.max {
		return false
	}
	waited := false
	for {
		b.mu.Lock()
		if b.used+n <= b.max {
			b.used += n
			b.held += n
			b.peak = max(b.peak, b.used)
			b.mu.Unlock()
			return true
		}
		if !waited {
			waited = true
			b.waits++
		}
		ch := b.free
		b.mu.Unlock()
		select {
		case <-ch:
		case <-stop:
			return false
		}
	}
}

func (b *Budget) release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	close(b.free)
	b.free = make(chan struct{})
	if b.used > 0 || b.held < idleAfter || b.OnIdle == nil {
		b.mu.Unlock()
		return
	}
	b.held = 0
	wait := idleEvery - time.Since(b.lastIdle)
	switch {
	case wait <= 0:
		b.lastIdle = time.Now()
		go b.OnIdle()
	case !b.later:
		// Too soon after the last call: call it once the interval is over.
		b.later = true
		time.AfterFunc(wait, func() {
			b.mu.Lock()
			b.later, b.lastIdle = false, time.Now()
			b.mu.Unlock()
			b.OnIdle()
		})
	}
	b.mu.Unlock()
}
