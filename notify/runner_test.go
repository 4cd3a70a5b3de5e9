package notify

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// recSink records its calls; block, when set, holds every call until it
// is closed (or the call's deadline).
type recSink struct {
	name  string
	mu    sync.Mutex
	calls []string
	block chan struct{}
	fail  bool
}

func (s *recSink) Name() string { return s.name }

func (s *recSink) rec(ctx context.Context, op string, a Alert) error {
	if s.block != nil {
		select {
		case <-s.block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.mu.Lock()
	s.calls = append(s.calls, op+" "+a.Key+"/"+a.State)
	s.mu.Unlock()
	if s.fail {
		return errors.New("refused")
	}
	return nil
}

func (s *recSink) Show(ctx context.Context, a Alert) error     { return s.rec(ctx, "show", a) }
func (s *recSink) Withdraw(ctx context.Context, a Alert) error { return s.rec(ctx, "withdraw", a) }

func (s *recSink) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

func show(key, state string) Action { return Action{OpShow, Alert{Key: key, State: state}} }
func withdraw(key string) Action    { return Action{OpWithdraw, Alert{Key: key}} }

// TestRunnerQueue: one queued action per session, the newest; a withdraw
// cancels a show that has not gone out; past the bound, refused and counted.
func TestRunnerQueue(t *testing.T) {
	r := newRunner(&recSink{name: "x"}, time.Second, 3, time.Now, zerolog.Nop())
	r.put(show("a", "waiting"))
	r.put(show("a", "done")) // replaces
	r.put(show("b", "waiting"))
	r.put(withdraw("b")) // cancels: b was never shown
	r.put(show("c", "waiting"))
	r.put(show("d", "waiting"))
	r.put(show("e", "waiting")) // full: a, c, d
	st := r.stats()
	if r.queued() != 3 || st.Replaced != 1 || st.Cancelled != 1 || st.Dropped != 1 {
		t.Fatalf("queued %d, stats %+v", r.queued(), st)
	}
	var order []string
	for {
		act, ok := r.next()
		if !ok {
			break
		}
		order = append(order, act.Op.String()+" "+act.Alert.Key+"/"+act.Alert.State)
	}
	if fmt.Sprint(order) != "[show a/done show c/waiting show d/waiting]" {
		t.Fatalf("order %v", order)
	}
	// a went out: its withdraw is queued, not cancelled.
	r.put(withdraw("a"))
	if act, ok := r.next(); !ok || act.Op != OpWithdraw {
		t.Fatalf("withdraw of a shown alert lost: %v %v", act, ok)
	}
}

// TestRunnerWithdrawPastBound: a full queue refuses a show, but never the
// withdraw of an alert the sink shows (it would stay up, stale); a
// withdraw of one it never showed is refused like a show. The queue then
// holds at most the bound plus one withdraw per alert out.
func TestRunnerWithdrawPastBound(t *testing.T) {
	r := newRunner(&recSink{name: "x"}, time.Second, 2, time.Now, zerolog.Nop())
	r.put(show("a", "waiting"))
	r.put(show("b", "waiting"))
	for _, ok := r.next(); ok; _, ok = r.next() {
	} // a and b are out
	r.put(show("c", "waiting"))
	r.put(show("d", "waiting"))
	r.put(show("e", "waiting")) // full: refused
	r.put(withdraw("a"))        // past the bound: a is up
	r.put(withdraw("b"))
	r.put(withdraw("x")) // never shown here: refused
	r.put(withdraw("a")) // already queued: replaces, adds nothing
	st := r.stats()
	if r.queued() != 4 || st.Dropped != 2 || st.Replaced != 1 {
		t.Fatalf("queued %d, stats %+v", r.queued(), st)
	}
	var order []string
	for act, ok := r.next(); ok; act, ok = r.next() {
		order = append(order, act.Op.String()+" "+act.Alert.Key)
	}
	if fmt.Sprint(order) != "[show c show d withdraw a withdraw b]" {
		t.Fatalf("order %v", order)
	}
	// a and b are down: their withdraws no longer pass the bound.
	r.put(show("f", "waiting"))
	r.put(show("g", "waiting"))
	r.put(withdraw("a"))
	if r.queued() != 2 || r.stats().Dropped != 3 {
		t.Fatalf("queued %d, stats %+v", r.queued(), r.stats())
	}
}

// TestRunnerLastError: a failed call is counted with its error and when,
// kept until the next failure.
func TestRunnerLastError(t *testing.T) {
	at := time.Date(2026, 12, 5, 4, 30, 0, 0, time.UTC)
	sink := &recSink{name: "x", fail: true}
	r := newRunner(sink, time.Second, 4, func() time.Time { return at }, zerolog.Nop())
	if st := r.stats(); st.LastError != "" || st.LastErrorAt != nil {
		t.Fatalf("no call yet: %+v", st)
	}
	r.call(context.Background(), show("a", "waiting"))
	sink.fail = false
	r.call(context.Background(), withdraw("a"))
	st := r.stats()
	if st.Failed != 1 || st.Withdrawn != 1 || st.LastError != "refused" || st.LastErrorAt == nil || !st.LastErrorAt.Equal(at) {
		t.Fatalf("stats %+v", st)
	}
}

// TestHangingSinkSlowsNoOther: a sink that never answers holds its own
// queue only; another sink takes every alert at once, and the hanging one
// is cut at its deadline.
func TestHangingSinkSlowsNoOther(t *testing.T) {
	hang := &recSink{name: "hang", block: make(chan struct{})}
	fast := &recSink{name: "fast"}
	n := New(Rules{}, []Sink{hang, fast}, Options{Timeout: 200 * time.Millisecond, Queue: 8}, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, r := range n.runners {
		go r.run(ctx)
	}
	for i := 0; i < 20; i++ {
		n.dispatch([]Action{show(fmt.Sprint("s", i), "waiting")})
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(fast.got()) < 8 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := len(fast.got()); got < 8 {
		t.Fatalf("the fast sink got %d alerts while the other hung", got)
	}
	for n.runners[0].stats().Failed == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n.runners[0].stats().Failed == 0 {
		t.Fatal("the hanging call was never cut at its deadline")
	}
	if hq := n.runners[0].queued(); hq > 8 {
		t.Fatalf("the hanging sink's queue holds %d, bound 8", hq)
	}
}
