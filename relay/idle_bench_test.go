package relay

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
)

// BenchmarkIdleSessions is the heap the relay holds per session once
// start-up has folded N finished two-line Claude transcripts and they sit
// idle (fresh), and once a restart has restored their checkpoint (restore),
// as a daemon over 10 000 old sessions does for most of its life (bench/run
// daemon measures the whole daemon's RSS). The paths and ids are held
// outside the relay, as the watcher holds them.
func BenchmarkIdleSessions(b *testing.B) {
	const n, dirs = 5000, 250
	type file struct{ path, id string }
	files := make([]file, n)
	for i := range files {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		files[i] = file{fmt.Sprintf("/home/u/.claude/projects/-w-p%03d/%s.jsonl", i%dirs, id), id}
	}
	lines := func(id string) [2]string {
		return [2]string{
			fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":"/w/p","version":"2.1.328","timestamp":"2026-12-01T08:00:00.000Z","message":{"role":"user","content":"hello"}}`, id),
			fmt.Sprintf(`{"type":"assistant","sessionId":%q,"cwd":"/w/p","version":"2.1.328","timestamp":"2026-12-01T08:00:01.000Z","message":{"role":"assistant","model":"m","stop_reason":"end_turn","content":[{"type":"text","text":"hi"}]}}`, id),
		}
	}
	start := func() (*Relay, func()) {
		r := New(DefaultConfig(), nil, nil, zerolog.Nop())
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { r.Run(ctx); close(done) }()
		return r, func() { cancel(); <-done }
	}
	heap := func() int64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	var state []byte
	fresh, restore := -1.0, -1.0 // the least over the iterations: garbage a collection missed only adds
	for b.Loop() {
		before := heap()
		r, cancel := start()
		for _, f := range files {
			p := parsers.New(claude)
			var end int64
			for i, l := range lines(f.id) {
				ev, err := p.Parse([]byte(l))
				if err != nil {
					b.Fatal(err)
				}
				off := end
				end += int64(len(l)) + 1
				r.Log(LogLine{Path: f.path, Session: f.id, Agent: claude, Offset: off, End: end, Line: i + 1,
					Evidence: ev, Bootstrap: true})
			}
		}
		r.BootstrapDone()
		<-r.Booted()
		if _, err := r.Status(context.Background()); err != nil { // and the relay is idle
			b.Fatal(err)
		}
		if d := float64(heap()-before) / n; fresh < 0 || d < fresh {
			fresh = d
		}
		saved := make(chan Saved, 1)
		r.Save(func(s Saved) { saved <- s })
		state = (<-saved).State
		cancel()
		r = nil

		before = heap()
		r2, cancel2 := start()
		r2.Restore(state)
		<-r2.Restored()
		if st, err := r2.Status(context.Background()); err != nil || len(st.Sessions) != n {
			b.Fatalf("restored %d sessions (%v), want %d", len(st.Sessions), err, n)
		}
		after := heap()
		runtime.KeepAlive(state) // it was there before, as the checkpoint file's bytes are
		if d := float64(after-before) / n; restore < 0 || d < restore {
			restore = d
		}
		cancel2()
	}
	runtime.KeepAlive(files)
	b.ReportMetric(fresh, "fresh-B/session")
	b.ReportMetric(restore, "restore-B/session")
}
