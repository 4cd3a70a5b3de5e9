package notify

import (
	"context"
	"fmt"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/relay/wire"
)

// BenchmarkChangeToCall measures a change's way from the relay's stream
// (Changed) to its sink call being issued, p50 and p99, with 100 sessions
// known; and the CPU the notifier then uses idle for a second.
func BenchmarkChangeToCall(b *testing.B) {
	issued := make(chan time.Time, 1)
	n := New(Rules{}, []Sink{&recSink{name: "x"}}, Options{}, zerolog.Nop())
	n.runners[0].called = func(Action) { issued <- time.Now() }
	ctx, cancel := context.WithCancel(context.Background())
	stop := n.Start(ctx)
	defer func() { cancel(); stop() }()
	for i := 0; i < 100; i++ {
		n.Changed(wire.Event{Session: fmt.Sprint("bg", i), State: "working", Since: t0})
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		state := "waiting"
		if i%2 == 1 {
			state = "working"
		}
		start := time.Now()
		n.Changed(wire.Event{Session: "s", State: state, Since: t0.Add(time.Duration(i))})
		lat = append(lat, (<-issued).Sub(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	before := cpu()
	time.Sleep(time.Second)
	b.ReportMetric(float64((cpu() - before).Microseconds()), "idle-cpu-µs/s")
}

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestIdleNoTimer: with nothing held for the rate limit no timer is armed
// and the runners sleep on their channel: an idle notifier wakes for
// nothing.
func TestIdleNoTimer(t *testing.T) {
	n := New(Rules{Rate: time.Minute}, []Sink{&recSink{name: "x"}}, Options{}, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	stop := n.Start(ctx)
	defer func() { cancel(); stop() }()
	n.Changed(wire.Event{Session: "a", State: "waiting", Since: t0})
	n.Changed(wire.Event{Session: "a", State: "working", Since: t0.Add(time.Second)})
	n.mu.Lock()
	armed := n.timer != nil
	n.mu.Unlock()
	if armed {
		t.Fatal("a timer is armed with nothing held")
	}
	n.Changed(wire.Event{Session: "a", State: "waiting", Since: t0.Add(2 * time.Second)})
	n.mu.Lock()
	armed = n.timer != nil
	n.mu.Unlock()
	if !armed {
		t.Fatal("an alert held for the rate limit has no timer")
	}
	n.Changed(wire.Event{Session: "a", State: "ended", Since: t0.Add(3 * time.Second)})
	n.mu.Lock()
	armed = n.timer != nil
	n.mu.Unlock()
	if armed {
		t.Fatal("the timer outlived the held alert")
	}
}
