//go:build !darwin

package desktop

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/desktoptest"
)

// BenchmarkShow: Show issued → the notification server received its Notify
// (as the bus monitor saw it routed) and → the server's reply (Show
// returned), p50 and p99 over b.N alerts (run with -benchtime=200x), on a
// private bus with dunst. Eight sessions take turns, so most Shows replace.
func BenchmarkShow(b *testing.B) {
	srv := desktoptest.Start(b)
	s := New(Config{Address: srv.Address}, zerolog.Nop())
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Connect first: the bench measures alerts, not the first dial.
	if _, _, err := s.Probe(ctx); err != nil {
		b.Fatal(err)
	}
	issued := make([]time.Time, 0, b.N)
	replied := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		a := waiting(fmt.Sprintf("s%d", i%8), "bench", fmt.Sprintf("reason %d", i))
		t0 := time.Now()
		if err := s.Show(ctx, a); err != nil {
			b.Fatal(err)
		}
		issued = append(issued, t0)
		replied = append(replied, time.Since(t0))
	}
	b.StopTimer()
	ev := notifies(srv.WaitFor(wait, "every Notify seen", func(ev []desktoptest.Event) bool { return len(notifies(ev)) >= b.N }))
	received := make([]time.Duration, b.N)
	for i := range b.N {
		received[i] = ev[i].At.Sub(issued[i])
	}
	report(b, "received", received)
	report(b, "replied", replied)
}

func report(b *testing.B, what string, d []time.Duration) {
	slices.Sort(d)
	q := func(p float64) float64 { return float64(d[int(p*float64(len(d)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), what+"-p50-ms")
	b.ReportMetric(q(0.99), what+"-p99-ms")
}
