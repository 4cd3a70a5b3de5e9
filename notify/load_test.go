package notify

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/relay/wire"
)

// fakeClock is the notifier's clock in tests: time moves when told.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }
func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	return func() bool { return true } // Due is driven by the test
}

// TestThousandSessionsAtOnce: a thousand sessions waiting at once, then
// answered and waiting again inside the rate: each sink's queue stays
// within its bound (the rest counted as dropped), and no session is shown
// twice within the rate.
func TestThousandSessionsAtOnce(t *testing.T) {
	block := make(chan struct{})
	slow := &recSink{name: "slow", block: block}
	clk := &fakeClock{now: t0}
	n := New(Rules{Rate: 30 * time.Second}, []Sink{slow}, Options{Queue: 64, Timeout: time.Minute, Clock: clk}, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	stop := n.Start(ctx)
	defer func() { cancel(); stop() }()
	evs := func(state, reason string, since time.Duration) []wire.Event {
		out := make([]wire.Event, 1000)
		for i := range out {
			out[i] = wire.Event{Session: fmt.Sprint("s", i), Agent: "claude", State: state, Reason: reason, Since: t0.Add(since)}
		}
		return out
	}
	n.Changed(evs("waiting", "permission", 0)...)
	r := n.runners[0]
	if q := r.queued(); q > 64 {
		t.Fatalf("queue holds %d, bound 64", q)
	}
	st := r.stats()
	if st.Dropped < 1000-64-1 {
		t.Fatalf("dropped %d of 1000 past a queue of 64", st.Dropped)
	}
	clk.now = t0.Add(time.Second)
	n.Changed(evs("working", "tool", time.Second)...)
	clk.now = t0.Add(2 * time.Second)
	n.Changed(evs("waiting", "permission", 2*time.Second)...)
	n.mu.Lock()
	held := 0
	for _, tr := range n.eng.s {
		if tr.pending {
			held++
		}
	}
	due := n.eng.Next()
	n.mu.Unlock()
	if held != 1000 || !due.Equal(t0.Add(30*time.Second)) {
		t.Fatalf("held %d, due %v: the rate limit let alerts through", held, due)
	}
	if q := r.queued(); q > 64 {
		t.Fatalf("queue holds %d after the second burst, bound 64", q)
	}
	close(block)
}
