package relay

import (
	"context"
	"sort"
	"sync"
)

// subscribers are the streams the edge publishes each step's changes to,
// and the socket server's figures for status.
type subscribers struct {
	set   map[*Subscription]bool
	conns func() ConnCounters // the socket server's figures, once it exists
}

// Subscription is one subscriber's stream of events.
//
// A subscriber is never dropped for being slow. Changes are queued up to
// the backlog; past it the subscription coalesces: it keeps only the latest
// change of each session (so its memory is bounded by the backlog plus one
// event per session), and once the subscriber has read the queue it gets
// those, in seq order, marked Resync. Seq numbers then show the gap.
type Subscription struct {
	ch       chan Event
	err      string // why the relay dropped it, once C is closed
	r        *Relay
	snapshot int // how many snapshot events C starts with

	mu      sync.Mutex
	pending map[string]Event // coalesced while ch is full: the latest change per session (by host and id)
	more    chan struct{}    // capacity 1: pending has changes
}

// C delivers a snapshot (one Event per session, Snapshot set), then every
// change, until the subscriber falls more than the backlog behind: then
// More fires, and once C is drained Resync has the rest. C is closed when
// the relay stops or the subscriber cancels.
func (s *Subscription) C() <-chan Event { return s.ch }

// Snapshot is how many snapshot events C starts with (0: no session yet).
func (s *Subscription) Snapshot() int { return s.snapshot }

// More fires when changes were coalesced because C was full.
func (s *Subscription) More() <-chan struct{} { return s.more }

// Resync takes the coalesced changes, oldest first, each marked Resync.
// Call it after draining C: everything in C is older.
func (s *Subscription) Resync() []Event {
	s.mu.Lock()
	p := s.pending
	s.pending = nil
	s.mu.Unlock()
	out := make([]Event, 0, len(p))
	for _, ev := range p {
		out = append(out, ev)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// Err says why the stream ended, after C is closed ("" after Cancel).
func (s *Subscription) Err() string { return s.err }

// Cancel ends the subscription.
func (s *Subscription) Cancel() {
	s.r.enqueue(func() {
		if s.r.subs.set[s] {
			delete(s.r.subs.set, s)
			close(s.ch)
		}
	})
}

// Subscribe starts a stream. A subscriber that falls more than the backlog
// behind gets coalesced changes (see Subscription); it never slows the
// relay.
func (r *Relay) Subscribe(ctx context.Context) (*Subscription, error) {
	var sub *Subscription
	err := r.do(ctx, func() {
		n := r.m.store.rowCount() + r.m.remoteRows()
		sub = &Subscription{ch: make(chan Event, n+r.m.cfg.Backlog), r: r, snapshot: n, more: make(chan struct{}, 1)}
		r.m.snapshot(func(ev Event) { sub.ch <- ev })
		r.subs.set[sub] = true
	})
	return sub, err
}

// send queues ev for sub, coalescing once the queue is full.
func (r *Relay) send(sub *Subscription, ev Event) {
	sub.mu.Lock()
	if sub.pending == nil {
		select {
		case sub.ch <- ev:
			sub.mu.Unlock()
			return
		default:
		}
		sub.pending = map[string]Event{}
		r.m.counters.SubscriberResyncs++
	}
	ev.Resync = true
	sub.pending[ev.Host+"\x00"+ev.Session] = ev
	sub.mu.Unlock()
	select {
	case sub.more <- struct{}{}:
	default:
	}
}

func (r *Relay) drop(sub *Subscription, why string) {
	if !r.subs.set[sub] {
		return
	}
	delete(r.subs.set, sub)
	sub.err = why
	close(sub.ch)
}
