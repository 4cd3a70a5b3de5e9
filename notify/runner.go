package notify

import (
	"container/list"
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/relay/wire"
)

// SinkStats are one sink's running totals, as `status` shows them.
type SinkStats = wire.SinkStats

// runner calls one sink from a goroutine of its own, through a bounded
// queue holding at most one action per session: a newer action replaces
// the queued one, and a withdraw of a show that has not gone out cancels
// it. A call that fails or hangs costs this sink alone.
//
// Past the bound a show is refused, but not the withdraw of an alert this
// sink shows: a stale alert is worse than a missing one. Those withdraws
// are bounded by the alerts out (one per session in shown).
type runner struct {
	sink    Sink
	timeout time.Duration
	max     int
	now     func() time.Time
	log     zerolog.Logger
	// called, when set, hears of each call as it is issued (benchmarks).
	called func(Action)

	mu    sync.Mutex
	order *list.List               // keys in arrival order
	q     map[string]*list.Element // key → its element; Value is *queued
	shown map[string]bool          // keys with a show out (not withdrawn since)
	wake  chan struct{}
	// lastErr is the last failed call's error, at lastAt.
	lastErr string
	lastAt  time.Time

	shownN, withdrawnN, failedN, replacedN, cancelledN, droppedN atomic.Int64
}

type queued struct {
	key string
	act Action
}

func newRunner(s Sink, timeout time.Duration, max int, now func() time.Time, log zerolog.Logger) *runner {
	return &runner{sink: s, timeout: timeout, max: max, now: now, order: list.New(), q: map[string]*list.Element{},
		shown: map[string]bool{}, wake: make(chan struct{}, 1),
		log: log.With().Str("sink", s.Name()).Logger()}
}

// put queues act, never blocking.
func (r *runner) put(act Action) {
	k := act.Alert.Key
	r.mu.Lock()
	defer r.mu.Unlock()
	if el, ok := r.q[k]; ok {
		old := el.Value.(*queued)
		if act.Op == OpWithdraw && old.act.Op == OpShow && !r.shown[k] {
			r.order.Remove(el)
			delete(r.q, k)
			r.cancelledN.Add(1)
			return
		}
		old.act = act
		r.replacedN.Add(1)
		return
	}
	if len(r.q) >= r.max && (act.Op == OpShow || !r.shown[k]) {
		r.droppedN.Add(1)
		return
	}
	r.q[k] = r.order.PushBack(&queued{key: k, act: act})
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *runner) next() (Action, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	el := r.order.Front()
	if el == nil {
		return Action{}, false
	}
	r.order.Remove(el)
	qd := el.Value.(*queued)
	delete(r.q, qd.key)
	if qd.act.Op == OpShow {
		r.shown[qd.key] = true
	} else {
		delete(r.shown, qd.key)
	}
	return qd.act, true
}

// run calls the sink until ctx ends; it sleeps while nothing is queued.
func (r *runner) run(ctx context.Context) {
	for {
		act, ok := r.next()
		if !ok {
			select {
			case <-r.wake:
				continue
			case <-ctx.Done():
				return
			}
		}
		r.call(ctx, act)
	}
}

func (r *runner) call(ctx context.Context, act Action) {
	cctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	if r.called != nil {
		r.called(act)
	}
	var err error
	if act.Op == OpShow {
		err = r.sink.Show(cctx, act.Alert)
	} else {
		err = r.sink.Withdraw(cctx, act.Alert)
	}
	if err != nil {
		n := r.failedN.Add(1)
		r.mu.Lock()
		r.lastErr, r.lastAt = err.Error(), r.now()
		r.mu.Unlock()
		// The alert's text is log data: the session id says which.
		r.log.Warn().Err(err).Str("op", act.Op.String()).Str("session", act.Alert.Session).
			Str("host", act.Alert.Host).Int64("failed", n).Msg("sink call failed")
		return
	}
	if act.Op == OpShow {
		r.shownN.Add(1)
	} else {
		r.withdrawnN.Add(1)
	}
}

func (r *runner) stats() SinkStats {
	st := SinkStats{Name: r.sink.Name(), Shown: r.shownN.Load(), Withdrawn: r.withdrawnN.Load(),
		Failed: r.failedN.Load(), Replaced: r.replacedN.Load(), Cancelled: r.cancelledN.Load(), Dropped: r.droppedN.Load()}
	r.mu.Lock()
	if r.lastErr != "" {
		at := r.lastAt
		st.LastError, st.LastErrorAt = r.lastErr, &at
	}
	r.mu.Unlock()
	return st
}

// queued reports how many actions wait (tests).
func (r *runner) queued() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.q)
}
