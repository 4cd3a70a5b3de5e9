package relay

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/vclock"
)

type lineRecorder struct {
	mu    sync.Mutex
	lines []RecordLine
}

func (l *lineRecorder) Record(rl RecordLine) {
	l.mu.Lock()
	l.lines = append(l.lines, rl)
	l.mu.Unlock()
}

// timers are the recorded timer runs: each one's arming and name.
func (l *lineRecorder) timers() (nums []uint64, names []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, rl := range l.lines {
		if rl.Kind == RecTimer {
			nums, names = append(nums, rl.Timer), append(names, rl.Name)
		}
	}
	return nums, names
}

// A timer's run is recorded with the number of its arming, and a relay
// replaying timers runs it when told, not when the clock passes its
// deadline: live, a step stamped after the deadline may run first.
func TestTimerRunsRecorded(t *testing.T) {
	run := func(replay bool) (*harness, *lineRecorder) {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		h := &harness{t: t, clock: vclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)), follow: &fakeFollower{},
			ctx: ctx, off: map[string]int64{}, parser: map[string]parsers.Parser{}}
		h.r = New(Config{}, h.clock, h.follow, zerolog.Nop())
		rec := &lineRecorder{}
		h.r.SetRecorder(rec)
		if replay {
			h.r.ReplayTimers()
		}
		h.clock.Settle = func() { h.r.Status(ctx) }
		go h.r.Run(ctx)
		sub, err := h.r.Subscribe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		h.sub = sub
		h.r.BootstrapDone()
		h.line(claude, "q1", `{"type":"user","sessionId":"q1","cwd":"/w","message":{"role":"user","content":"hi"}}`, false)
		h.line(claude, "q1", `{"type":"assistant","sessionId":"q1","message":{"role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"ok"}]}}`, false)
		h.expect("working/prompt/log.turn_start")
		return h, rec
	}

	live, rec := run(false)
	live.clock.Advance(DefaultConfig().TurnQuiet)
	live.expect("done/turn_end/log.quiet_after_final")
	ran, names := rec.timers() // the start-up's quiet period, then the session's
	if len(ran) != 2 {
		t.Fatalf("timer runs recorded: %v, want two", ran)
	}

	replayed, rec2 := run(true)
	replayed.clock.Advance(2 * DefaultConfig().TurnQuiet)
	replayed.expect() // its deadline passed: it runs where the recording says
	for _, n := range ran {
		replayed.r.RunTimer(n, "") // a recording from before timers had names
	}
	replayed.expect("done/turn_end/log.quiet_after_final")
	if got, _ := rec2.timers(); !slices.Equal(got, ran) {
		t.Fatalf("replayed timer runs %v, want %v", got, ran)
	}
	replayed.r.RunTimer(ran[1], "") // ran already: nothing
	replayed.r.RunTimer(99, "")     // never armed: nothing
	replayed.expect()

	// By name, whatever the number: a replay whose steps armed more
	// timers than the live relay's (a rewritten log read as other lines)
	// still runs the one that ran.
	if !slices.Equal(names, []string{"quiet start", "quiet q1"}) {
		t.Fatalf("timer names recorded: %q", names)
	}
	byName, _ := run(true)
	byName.clock.Advance(2 * DefaultConfig().TurnQuiet)
	byName.r.RunTimer(ran[0]+100, names[0])
	byName.r.RunTimer(ran[1]+100, "quiet other") // no such timer: nothing
	byName.expect()
	byName.r.RunTimer(ran[1]+100, names[1])
	byName.expect("done/turn_end/log.quiet_after_final")
}
