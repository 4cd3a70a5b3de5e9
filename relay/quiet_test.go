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

// TestPiRetry: an answer that failed with an error pi retries by itself
// (its Evidence.Retry: pi 0.73.1 writes nothing through the backoff and
// the retry's answer) keeps the turn working past the quiet, and the
// retry's answer ends it once. An Esc during the backoff, which cancels
// the retry without a line, ends it as the failure once its window
// closes; an Esc while the retry streams is the interrupt its marker
// confirms.
func TestPiRetry(t *testing.T) {
	t.Setenv("PI_CODING_AGENT_DIR", t.TempDir()) // pi's default retry settings
	at := func(h *harness) string { return h.clock.Now().UTC().Format(time.RFC3339Nano) }
	line := func(h *harness, n int, msg string) {
		h.t.Helper()
		h.line(agPi, "p", fmt.Sprintf(`{"type":"message","id":"%08x","parentId":"%08x","timestamp":%q,"message":%s}`, n, n-1, at(h), msg), false)
	}
	prompt := `{"role":"user","content":[{"type":"text","text":"go"}]}`
	failed := `{"role":"assistant","content":[],"stopReason":"error","errorMessage":"500 fake server error 500"}`
	answer := `{"role":"assistant","content":[{"type":"text","text":"ok"}],"stopReason":"stop"}`
	aborted := `{"role":"assistant","content":[],"stopReason":"aborted","errorMessage":"Operation aborted"}`
	start := func(t *testing.T) *harness {
		h := newHarness(t, Config{InterruptWindow: 2 * time.Second, TurnQuiet: 3 * time.Second})
		h.r.BootstrapDone()
		h.line(agPi, "p", `{"type":"session","version":3,"id":"p","timestamp":"2026-11-29T12:00:00.000Z","cwd":"/w"}`, false)
		h.enter("t1", 100*time.Millisecond) // binds the prompt that follows (BindBySubmit)
		line(h, 1, prompt)
		h.expect("working/prompt/log.turn_start")
		line(h, 2, failed)
		h.clock.Advance(10 * time.Second) // past the quiet: the backoff and the retry's request
		h.expect()
		return h
	}
	t.Run("retried", func(t *testing.T) {
		h := start(t)
		line(h, 3, answer)
		h.clock.Advance(time.Second)
		h.expect("done/turn_end/log.quiet_after_final")
	})
	t.Run("failed again, retried again", func(t *testing.T) {
		h := start(t)
		line(h, 3, failed)
		h.clock.Advance(10 * time.Second)
		h.expect()
		line(h, 4, answer)
		h.clock.Advance(time.Second)
		h.expect("done/turn_end/log.quiet_after_final")
	})
	t.Run("Esc during the backoff", func(t *testing.T) {
		h := start(t)
		must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
		h.clock.Advance(2*time.Second - time.Millisecond)
		h.expect()
		h.clock.Advance(time.Millisecond)
		h.expect("done/error/key.retry_cancelled")
	})
	t.Run("Esc while the retry streams", func(t *testing.T) {
		h := start(t)
		must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
		h.clock.Advance(30 * time.Millisecond)
		line(h, 3, aborted)
		h.expect("ready/interrupted/key.confirmed")
		h.clock.Advance(5 * time.Second)
		h.expect()
	})
	t.Run("Ctrl+C does not cancel it", func(t *testing.T) {
		h := start(t)
		must(t, h.r.Key(h.ctx, "t1", KeyCtrlC, time.Time{}))
		h.clock.Advance(5 * time.Second)
		h.expect()
		line(h, 3, answer)
		h.clock.Advance(time.Second)
		h.expect("done/turn_end/log.quiet_after_final")
	})
}
