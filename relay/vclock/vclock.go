// Package vclock is a virtual clock for the relay: time moves only when the
// owner advances it, and timers fire in time order. Replay runs the relay on
// it, and so do the relay's tests.
package vclock

import (
	"sort"
	"sync"
	"time"
)

// Clock is a virtual clock. It satisfies relay.Clock.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*timer
	seq    int
	// Settle, if set, runs after each fired timer, so that the work the
	// timer handed to another goroutine (and the timers that work arms)
	// completes before time moves on.
	Settle func()
}

type timer struct {
	at      time.Time
	seq     int // creation order breaks ties
	f       func()
	stopped bool
}

// New returns a clock reading start.
func New(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the virtual time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc runs f when the clock reaches now+d; stop cancels it.
func (c *Clock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &timer{at: c.now.Add(d), seq: c.seq, f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.AdvanceTo(c.Now().Add(d)) }

// AdvanceTo moves the clock to end (never backwards), firing every timer
// that falls due on the way, in time order; timers armed by fired timers
// fire too if they fall due before end.
func (c *Clock) AdvanceTo(end time.Time) {
	for {
		c.mu.Lock()
		if end.Before(c.now) {
			end = c.now
		}
		live := c.timers[:0]
		for _, t := range c.timers {
			if !t.stopped {
				live = append(live, t)
			}
		}
		c.timers = live
		sort.Slice(c.timers, func(i, j int) bool {
			if !c.timers[i].at.Equal(c.timers[j].at) {
				return c.timers[i].at.Before(c.timers[j].at)
			}
			return c.timers[i].seq < c.timers[j].seq
		})
		if len(c.timers) == 0 || c.timers[0].at.After(end) {
			c.now = end
			c.mu.Unlock()
			return
		}
		t := c.timers[0]
		c.timers = c.timers[1:]
		if t.at.After(c.now) {
			c.now = t.at
		}
		c.mu.Unlock()
		t.f()
		if c.Settle != nil {
			c.Settle()
		}
	}
}
