package relay

import (
	"fmt"
	"testing"
	"time"

	"github.com/logwatch/logwatch/parsers"
)

const agPi = parsers.Agent("pi")

// piLine is one line of a pi session file (formats/pi.md §2.3) under id,
// its parent the line before it.
func piLine(n int, body string) string {
	parent := "null"
	if n > 1 {
		parent = fmt.Sprintf("%q", fmt.Sprintf("%08x", n-1))
	}
	return fmt.Sprintf(`{"type":%s,"id":"%08x","parentId":%s,"timestamp":"2026-11-29T12:00:00.000Z"%s}`,
		map[bool]string{true: `"message"`, false: `"compaction"`}[body != ""], n, parent, body)
}

func piPrompt(n int) string {
	return piLine(n, `,"message":{"role":"user","content":[{"type":"text","text":"go"}]}`)
}
func piAnswer(n int, stop string) string {
	return piLine(n, `,"message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"stopReason":"`+stop+`"}`)
}

// TestPiQuiet: a pi turn without the extension ends FinalQuiet (1 s) after
// its final answer, not turn_quiet (3 s) after it, and what pi writes after
// a final answer (formats/pi.md §2.5, §2.7, §2.8) makes no false done: a
// steer's prompt within milliseconds, a retry after an error seconds later,
// a compaction after the run.
func TestPiQuiet(t *testing.T) {
	cfg := Config{TurnQuiet: 3 * time.Second}
	start := func(t *testing.T) *harness {
		h := newHarness(t, cfg)
		h.r.BootstrapDone()
		h.line(agPi, "p", `{"type":"session","version":3,"id":"p","timestamp":"2026-11-29T12:00:00.000Z","cwd":"/w"}`, false)
		h.line(agPi, "p", piPrompt(1), false)
		h.expect("working/prompt/log.turn_start")
		return h
	}
	// advance moves the clock by d and checks what it published.
	advance := func(h *harness, d time.Duration, want ...string) {
		h.t.Helper()
		h.clock.Advance(d)
		h.expect(want...)
	}
	done := "done/turn_end/log.quiet_after_final"

	t.Run("final answer", func(t *testing.T) {
		h := start(t)
		h.line(agPi, "p", piAnswer(2, "stop"), false)
		advance(h, time.Second-time.Millisecond)
		advance(h, time.Millisecond, done)
	})
	t.Run("metadata after it", func(t *testing.T) {
		// A line that says nothing of the turn (the model switched) starts
		// the answer's quiet period over, as long.
		h := start(t)
		h.line(agPi, "p", piAnswer(2, "stop"), false)
		advance(h, 500*time.Millisecond)
		h.line(agPi, "p", `{"type":"model_change","id":"00000003","parentId":"00000002","timestamp":"2026-11-29T12:00:00.000Z","provider":"fake","modelId":"m"}`, false)
		advance(h, time.Second-time.Millisecond)
		advance(h, time.Millisecond, done)
	})
	t.Run("steer or follow-up", func(t *testing.T) {
		// The queued prompt (a steer typed while the answer streamed, or a
		// follow-up), written after the answer it followed (5 ms after it,
		// live): the run goes on, and ends after the next answer.
		h := start(t)
		h.line(agPi, "p", piAnswer(2, "stop"), false)
		advance(h, 20*time.Millisecond)
		h.line(agPi, "p", piPrompt(3), false)
		advance(h, 5*time.Second)
		h.line(agPi, "p", piAnswer(4, "stop"), false)
		advance(h, time.Second, done)
	})
	t.Run("retry after an error", func(t *testing.T) {
		// pi retries after retry.baseDelayMs (0.5 s measured, 2 s by
		// default) and writes nothing until the retry's answer ends: an
		// error keeps turn_quiet.
		h := start(t)
		h.line(agPi, "p", piAnswer(2, "error"), false)
		advance(h, 2900*time.Millisecond)
		h.line(agPi, "p", piAnswer(3, "stop"), false)
		advance(h, time.Second, done)
	})
	t.Run("retries used up", func(t *testing.T) {
		h := start(t)
		h.line(agPi, "p", piAnswer(2, "error"), false)
		advance(h, 500*time.Millisecond)
		h.line(agPi, "p", piAnswer(3, "error"), false)
		advance(h, 3*time.Second-time.Millisecond)
		advance(h, time.Millisecond, done)
	})
	t.Run("with the extension", func(t *testing.T) {
		// Its Stop ends the turn; the log's quiet, a stand-in for a lost
		// one, leaves a slow hook process turn_quiet.
		h := start(t)
		hook := func(event string) {
			must(t, h.hook("", "pi", `{"hook_event_name":"`+event+`","session_id":"p","cwd":"/w"}`))
		}
		hook("UserPromptSubmit")
		h.line(agPi, "p", piAnswer(2, "stop"), false)
		advance(h, 2*time.Second)
		hook("Stop")
		h.expect("done/turn_end/hook.stop")
	})
	t.Run("compaction after the run", func(t *testing.T) {
		// Auto-compaction's line comes ~3.2 s after the answer whose usage
		// crossed the threshold: the run had ended, the done stands.
		h := start(t)
		h.line(agPi, "p", piAnswer(2, "stop"), false)
		advance(h, time.Second, done)
		advance(h, 2200*time.Millisecond)
		h.line(agPi, "p", piLine(3, ``), false)
		advance(h, 5*time.Second)
		if e := h.state("p"); e.State != "done" {
			t.Fatalf("after the compaction: %+v", e)
		}
	})
}
