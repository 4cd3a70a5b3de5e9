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
	r := newRunner(&recSink{name: "x"}, time.Second, 3, zerolog.Nop())
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
