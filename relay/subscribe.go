package relay

import (
	"context"
)

// Subscription is one subscriber's stream of events.
type Subscription struct {
	ch       chan Event
	err      string // why the relay dropped it, once C is closed
	r        *Relay
	snapshot int // how many snapshot events C starts with
}

// C delivers a snapshot (one Event per session, Snapshot set), then every
// change. It is closed when the subscriber is dropped or cancels.
func (s *Subscription) C() <-chan Event { return s.ch }

// Snapshot is how many snapshot events C starts with (0: no session yet).
func (s *Subscription) Snapshot() int { return s.snapshot }

// Err says why the stream ended, after C is closed ("" after Cancel).
func (s *Subscription) Err() string { return s.err }

// Cancel ends the subscription.
func (s *Subscription) Cancel() {
	s.r.enqueue(func() {
		if s.r.subs[s] {
			delete(s.r.subs, s)
			close(s.ch)
		}
	})
}

// Subscribe starts a stream. A subscriber that falls more than the backlog
// behind is dropped (C closes, Err says why) and never slows the relay.
func (r *Relay) Subscribe(ctx context.Context) (*Subscription, error) {
	var sub *Subscription
	err := r.do(ctx, func() {
		entries := r.rows()
		sub = &Subscription{ch: make(chan Event, len(entries)+r.cfg.Backlog), r: r, snapshot: len(entries)}
		for _, e := range entries {
			ev := r.event(e, sessionChange(e))
			ev.Seq, ev.Snapshot = r.seq, true
			if e.worktree != "" {
				ev.WorktreeState = r.rowState(e.worktree)
			}
			sub.ch <- ev
		}
		r.subs[sub] = true
	})
	return sub, err
}

func (r *Relay) drop(sub *Subscription, why string) {
	if !r.subs[sub] {
		return
	}
	delete(r.subs, sub)
	sub.err = why
	close(sub.ch)
}
