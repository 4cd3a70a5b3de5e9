package storefeed_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/opencode"
	"github.com/logwatch/logwatch/parsers/opencode/store/storetest"
	"github.com/logwatch/logwatch/watcher/storefeed"
)

var registerOnce sync.Once

// BenchmarkFeedLatency: a row OpenCode commits → its record out of the
// feed, over the real OpenCode store (its Spec's Store: the SQLite reader
// woken by fsnotify on the database's folder). Each op is one commit of a
// turn's start or end (one event row) and waits for its record; p50/p99
// are of those waits, timed from right before the commit; reads/op the
// queries the feed made per commit.
func BenchmarkFeedLatency(b *testing.B) {
	// The core never names an agent; a test may drive a real one.
	registerOnce.Do(func() {
		if parsers.Lookup(opencode.Name) == nil {
			parsers.Register(opencode.Spec())
		}
	})
	dir := b.TempDir()
	w := storetest.NewWriter(b, filepath.Join(dir, "opencode.db"))
	w.Now = time.Now().UnixMilli()
	s := w.Session("")
	w.Turn(s, 1, 0)

	f := storefeed.New(storefeed.Config{Roots: map[parsers.Agent][]string{opencode.Name: {dir}}}, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		for range f.Records() {
		}
		if err := <-done; err != nil {
			b.Error(err)
		}
	})
	<-f.Ready()
	// The present state (the finished turn) is history, not what is timed.
	for drained := false; !drained; {
		select {
		case <-f.Records():
		case <-time.After(200 * time.Millisecond):
			drained = true
		}
	}

	var t0 time.Time
	w.BeforeCommit = func() { t0 = time.Now() }
	reads := f.Stats().Reads
	lat := make([]time.Duration, 0, b.N)
	i := 0
	for b.Loop() {
		want := parsers.KindTurnStart
		if i%2 == 0 {
			w.Prompt(s)
		} else {
			w.Finish(s)
			want = parsers.KindTurnEnd
		}
		i++
		select {
		case r := <-f.Records():
			lat = append(lat, time.Since(t0))
			if r.Session != s || r.Evidence.Kind != want || r.Bootstrap {
				b.Fatalf("record %+v, want %v of %s", r, want, s)
			}
		case <-time.After(10 * time.Second):
			b.Fatalf("no record within 10 s of commit %d", i)
		}
	}
	slices.Sort(lat)
	pct := func(p int) float64 { return float64(lat[(len(lat)-1)*p/100]) / 1e6 }
	b.ReportMetric(pct(50), "p50-ms")
	b.ReportMetric(pct(99), "p99-ms")
	// Queries per commit: what the wake-up path costs, whatever the load.
	b.ReportMetric(float64(f.Stats().Reads-reads)/float64(len(lat)), "reads/op")
}
