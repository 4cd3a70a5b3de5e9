package relay

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// bound starts a Claude session bound to tab t1, working on a prompt.
func bound(t *testing.T) *harness {
	h := newHarness(t, Config{InterruptWindow: 2 * time.Second, TurnQuiet: time.Hour})
	must(t, h.hook("t1", "claude", claudeHook("UserPromptSubmit", "s")))
	h.line(claude, "s", cPrompt("s", "count to 100"), false)
	h.expect("working/prompt/hook.prompt")
	return h
}

func TestWindowConfirmed(t *testing.T) {
	h := bound(t)
	must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
	h.clock.Advance(50 * time.Millisecond)
	h.line(claude, "s", cMarker("s", false), false)
	h.line(claude, "s", cMeta("s"), false) // metadata after the marker does not count
	h.expect("ready/interrupted/key.confirmed")
	st := h.sync()
	if e := h.state("s"); e.Source != "key+log" {
		t.Fatalf("source %q", e.Source)
	}
	c := st.Counters
	if c.Keys != 1 || c.InterruptCandidates != 1 || c.InterruptsConfirmed != 1 || c.InterruptsUnconfirmed != 0 || c.KeyToMarkerLastMs != 50 {
		t.Fatalf("counters %+v", c)
	}
}

func TestWindowUnconfirmed(t *testing.T) {
	h := bound(t)
	must(t, h.r.Key(h.ctx, "t1", KeyCtrlC, time.Time{}))
	h.clock.Advance(1999 * time.Millisecond)
	h.expect()
	h.clock.Advance(2 * time.Millisecond)
	h.expect()
	if c := h.sync().Counters; c.InterruptsUnconfirmed != 1 || c.InterruptCandidates != 1 {
		t.Fatalf("counters %+v", c)
	}
	if st := h.state("s").State; st != "working" {
		t.Fatalf("a key alone changed the state to %s", st)
	}
	// A marker after the window still ends the turn, from the log alone.
	h.line(claude, "s", cMarker("s", false), false)
	h.expect("ready/interrupted/log.interrupt")
}

func TestWindowPokesTheLog(t *testing.T) {
	h := bound(t)
	h.follow.mu.Lock()
	h.follow.pokes = 0
	h.follow.mu.Unlock()
	must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
	h.clock.Advance(100 * time.Millisecond)
	h.sync()
	h.follow.mu.Lock()
	n := h.follow.pokes
	h.follow.mu.Unlock()
	if n != 5 { // at the key, then every 25 ms
		t.Fatalf("pokes = %d", n)
	}
	h.clock.Advance(3 * time.Second)
	h.sync()
	h.follow.mu.Lock()
	after := h.follow.pokes
	h.follow.mu.Unlock()
	if after > 5+2000/25+1 {
		t.Fatalf("pokes went on after the window: %d", after)
	}
}

func TestWindowHookMovedOnFirst(t *testing.T) {
	for _, ev := range []string{"UserPromptSubmit", "Stop", "SessionEnd"} {
		t.Run(ev, func(t *testing.T) {
			h := bound(t)
			must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
			must(t, h.hook("t1", "claude", claudeHook(ev, "s")))
			h.changes()
			if c := h.sync().Counters; c.InterruptsUnconfirmed != 1 {
				t.Fatalf("counters %+v", c)
			}
		})
	}
}

func TestWindowIdleKeysMeanNothing(t *testing.T) {
	h := bound(t)
	must(t, h.hook("t1", "claude", claudeHook("Stop", "s")))
	h.expect("done/turn_end/hook.stop")
	must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
	must(t, h.r.Key(h.ctx, "unknown-tab", KeyEsc, time.Time{}))
	h.clock.Advance(3 * time.Second)
	h.expect()
	if c := h.sync().Counters; c.Keys != 2 || c.InterruptCandidates != 0 {
		t.Fatalf("counters %+v", c)
	}
}

func TestWindowRepeatedPressesAreOneCandidate(t *testing.T) {
	h := bound(t)
	for i := 0; i < 3; i++ {
		must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
		h.clock.Advance(100 * time.Millisecond)
	}
	h.line(claude, "s", cMarker("s", false), false)
	h.expect("ready/interrupted/key.confirmed")
	if c := h.sync().Counters; c.Keys != 3 || c.InterruptCandidates != 1 || c.KeyToMarkerLastMs != 300 {
		t.Fatalf("counters %+v", c)
	}
}

// TestWindowPermissionRejection: Esc at a permission prompt; Claude writes
// the "for tool use" marker.
func TestWindowPermissionRejection(t *testing.T) {
	h := bound(t)
	must(t, h.hook("t1", "claude", claudeHook("PermissionRequest", "s", "tool_name", "Bash", "tool_input", `{"command":"rm -rf /"}`)))
	h.expect("waiting/permission/hook.permission_request")
	must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
	h.line(claude, "s", cToolResult("s", "The user doesn't want to proceed with this tool use."), false)
	h.line(claude, "s", cMarker("s", true), false)
	h.expect("ready/interrupted/key.confirmed")
}

// TestWindowCodexAbortThenQueuedTurn: Esc aborts and a queued prompt starts
// the next turn at once; the session ends up working.
func TestWindowCodexAbortThenQueuedTurn(t *testing.T) {
	h := newHarness(t, Config{TurnQuiet: time.Hour})
	must(t, h.hook("t1", "codex", claudeHook("UserPromptSubmit", "x", "turn_id", "u1")))
	h.line(codex, "x", xEvent("task_started", `,"turn_id":"u1"`), false)
	must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
	h.line(codex, "x", `{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>"}]}}`, false)
	h.line(codex, "x", xEvent("turn_aborted", `,"turn_id":"u1","reason":"interrupted"`), false)
	h.line(codex, "x", xEvent("task_started", `,"turn_id":"u2"`), false)
	h.expect("working/prompt/hook.prompt", "ready/interrupted/key.confirmed", "working/prompt/log.turn_start")
	if st := h.state("x").State; st != "working" {
		t.Fatalf("final %s", st)
	}
}

// TestNeverAFalseReady is the property behind SPEC §5: over random
// interleavings of keys, hooks and log lines on a virtual clock,
// ready/interrupted is published exactly when the rules say, and never in
// response to anything but a real marker line.
//
// The oracle models the rules independently: a turn is opened by whichever
// source reports it first (hooks lead, the log lags and only echoes a turn it
// is behind on); a marker interrupts when it is the log's evidence for the
// turn in progress; its source is key+log when a key pressed while the
// session worked or waited opened a window that is still open (2 s, not
// closed by a hook prompt/stop or the turn ending); a wait reported after
// an interrupt, before the next turn, is the interrupted turn's echo.
func TestNeverAFalseReady(t *testing.T) {
	const runs = 300
	for seed := int64(1); seed <= runs; seed++ {
		rng := rand.New(rand.NewSource(seed))
		h := newHarness(t, Config{InterruptWindow: 2 * time.Second, TurnQuiet: time.Hour})
		must(t, h.hook("t1", "claude", claudeHook("SessionStart", "s")))
		h.changes()
		var (
			turn, hookPos, logPos int
			open, interrupted     bool
			state                 = "ready"
			windowOpen            bool
			windowAt              time.Time
			trace                 []string
		)
		fail := func(format string, args ...any) {
			t.Fatalf("seed %d: %s\ntrace:\n  %s", seed, fmt.Sprintf(format, args...), strings.Join(trace, "\n  "))
		}
		for step := 0; step < 40; step++ {
			if windowOpen && !h.clock.Now().Before(windowAt.Add(2*time.Second)) {
				windowOpen = false
			}
			var kind, want string // want: the expected interrupt rule, "" for none
			switch n := rng.Intn(100); {
			case n < 15:
				kind = "key"
				must(t, h.r.Key(h.ctx, "t1", []string{KeyEsc, KeyCtrlC}[rng.Intn(2)], time.Time{}))
				if !windowOpen && (state == "working" || state == "waiting") {
					windowOpen, windowAt = true, h.clock.Now()
				}
			case n < 25:
				kind = "hook prompt"
				must(t, h.hook("t1", "claude", claudeHook("UserPromptSubmit", "s")))
				if !(open && hookPos < turn) {
					turn++
				}
				hookPos, open, state, windowOpen = turn, true, "working", false
			case n < 30:
				kind = "hook stop"
				must(t, h.hook("t1", "claude", claudeHook("Stop", "s")))
				hookPos, open, state, windowOpen = turn, false, "done", false
			case n < 35:
				kind = "hook permission"
				must(t, h.hook("t1", "claude", claudeHook("PermissionRequest", "s", "tool_name", "Bash")))
				if !interrupted {
					if !open {
						hookPos, open = turn, true
					}
					state = "waiting"
				}
			case n < 45:
				kind = "log prompt"
				h.line(claude, "s", cPrompt("s", "do it"), false)
				if logPos < turn {
					logPos = turn
				} else {
					turn++
					logPos, open, state = turn, true, "working"
				}
			case n < 55:
				kind = "log marker"
				h.line(claude, "s", cMarker("s", rng.Intn(2) == 0), false)
				if logPos == turn && open {
					want = "log.interrupt"
					if windowOpen {
						want = "key.confirmed"
					}
					open, state, windowOpen, interrupted = false, "ready", false, true
				}
			case n < 62:
				kind = "log marker in tool output"
				h.line(claude, "s", cToolResult("s", "[Request interrupted by user]"), false)
			case n < 67:
				kind = "log marker as prompt prefix"
				h.line(claude, "s", cPrompt("s", "[Request interrupted by user] no wait"), false)
				if logPos < turn {
					logPos = turn
				} else {
					turn++
					logPos, open, state = turn, true, "working"
				}
			case n < 75:
				kind = "log metadata"
				h.line(claude, "s", cMeta("s"), false)
			case n < 80:
				kind = "log turn end"
				h.line(claude, "s", cTurnDuration("s", 0), false)
				if logPos == turn && open {
					open, state, windowOpen = false, "done", false
				}
			default:
				d := time.Duration(rng.Intn(1500)) * time.Millisecond
				kind = "advance " + d.String()
				h.clock.Advance(d)
			}
			interrupted = interrupted && state == "ready"
			changes := h.changes()
			got := h.state("s")
			trace = append(trace, fmt.Sprintf("%-28s → %-8s %v", kind, got.State, changes))
			var rules []string
			for _, c := range changes {
				if r, ok := strings.CutPrefix(c, "ready/interrupted/"); ok {
					rules = append(rules, r)
				}
			}
			switch {
			case want == "" && len(rules) > 0:
				fail("ready/interrupted (%v) after %q; the rules say no interrupt", rules, kind)
			case want != "" && (len(rules) != 1 || rules[0] != want):
				fail("after %q: interrupts %v, want exactly one by %s", kind, rules, want)
			case (kind == "key" || strings.HasPrefix(kind, "advance")) && len(changes) > 0:
				fail("%s changed the state: %v", kind, changes)
			case got.State != state:
				fail("state %s, the model says %s", got.State, state)
			}
		}
	}
}

// TestWindowRunsFromThePress: a key reported late (a host app's report
// arriving after the press) gets what is left of the window, not a new one.
func TestWindowRunsFromThePress(t *testing.T) {
	h := bound(t)
	must(t, h.r.Key(h.ctx, "t1", KeyEsc, h.clock.Now().Add(-1500*time.Millisecond)))
	h.clock.Advance(600 * time.Millisecond)
	if c := h.sync().Counters; c.InterruptsUnconfirmed != 1 {
		t.Fatalf("window still open 2.1 s after the press: %+v", c)
	}
	h.line(claude, "s", cMarker("s", false), false)
	h.expect("ready/interrupted/log.interrupt")
}

// cMarkerAt is an interrupt marker with the agent's own timestamp.
func cMarkerAt(s string, at time.Time) string {
	return fmt.Sprintf(`{"type":"user","sessionId":%q,"timestamp":%q,"message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`,
		s, at.UTC().Format("2006-01-02T15:04:05.000Z"))
}

// A marker the agent wrote inside the window but flushed after it (Claude
// 2.1.328 under load) still confirms the key; one stamped outside the
// window, or with no stamp, is the log's own interrupt.
func TestWindowLateFlushedMarker(t *testing.T) {
	cases := []struct {
		name    string
		stamp   time.Duration // the marker's timestamp, from the press
		noStamp bool
		want    string
	}{
		{"stamped inside, read late", 470 * time.Millisecond, false, "ready/interrupted/key.confirmed"},
		{"stamped at the window's end", 2 * time.Second, false, "ready/interrupted/key.confirmed"},
		{"stamped after the window", 2100 * time.Millisecond, false, "ready/interrupted/log.interrupt"},
		{"stamped before the press", -2 * time.Second, false, "ready/interrupted/log.interrupt"},
		{"no stamp", 0, true, "ready/interrupted/log.interrupt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := bound(t)
			press := h.clock.Now()
			must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
			h.clock.Advance(2170 * time.Millisecond) // the window has expired
			h.expect()
			if c := h.sync().Counters; c.InterruptsUnconfirmed != 1 {
				t.Fatalf("counters %+v", c)
			}
			m := cMarker("s", false)
			if !c.noStamp {
				m = cMarkerAt("s", press.Add(c.stamp))
			}
			h.line(claude, "s", m, false)
			h.expect(c.want)
			st := h.sync().Counters
			confirmed := c.want == "ready/interrupted/key.confirmed"
			if confirmed && (st.InterruptsConfirmed != 1 || st.InterruptsUnconfirmed != 0 || st.KeyToMarkerLastMs != 2170) {
				t.Fatalf("counters %+v", st)
			}
			if !confirmed && (st.InterruptsConfirmed != 0 || st.InterruptsUnconfirmed != 1) {
				t.Fatalf("counters %+v", st)
			}
			if e := h.state("s"); confirmed != (e.Source == "key+log") {
				t.Fatalf("source %q", e.Source)
			}
		})
	}
}

// An expired window neither blocks the next press nor confirms a marker
// that comes before the key's baseline.
func TestWindowExpiredThenNewPress(t *testing.T) {
	h := bound(t)
	must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
	h.clock.Advance(2500 * time.Millisecond)
	h.expect()
	press := h.clock.Now()
	must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
	h.clock.Advance(100 * time.Millisecond)
	h.line(claude, "s", cMarkerAt("s", press.Add(50*time.Millisecond)), false)
	h.expect("ready/interrupted/key.confirmed")
	if c := h.sync().Counters; c.InterruptCandidates != 2 || c.InterruptsConfirmed != 1 || c.InterruptsUnconfirmed != 1 || c.KeyToMarkerLastMs != 100 {
		t.Fatalf("counters %+v", c)
	}
}

// Key stamps come from the client and are bounded by the daemon's clock: a
// press stamped ahead of it counts from now (one stamped ≥ 292 years ahead
// overflowed the window's duration and expired it at once), Enter reports
// stamped in the future are pruned like any other, and their count is
// bounded; a tab id is bounded in length.
func TestKeyStampsBounded(t *testing.T) {
	t.Run("esc centuries ahead", func(t *testing.T) {
		h := bound(t)
		must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC)))
		h.clock.Advance(100 * time.Millisecond)
		h.line(claude, "s", cMarker("s", false), false)
		h.expect("ready/interrupted/key.confirmed")
	})
	t.Run("enter reports ahead of the clock", func(t *testing.T) {
		h := newHarness(t, Config{})
		ahead := h.clock.Now().Add(24 * time.Hour)
		for i := range 1000 {
			must(t, h.r.Key(h.ctx, fmt.Sprintf("tab-%d", i), KeyEnter, ahead))
		}
		n := 0
		h.do(func() { n = len(h.r.m.bind.submits) })
		if n > maxSubmits {
			t.Fatalf("%d pending submits, at most %d", n, maxSubmits)
		}
		h.clock.Advance(time.Hour) // past any agent's window (widestWindow), twice over
		must(t, h.r.Key(h.ctx, "last", KeyEnter, time.Time{}))
		h.do(func() { n = len(h.r.m.bind.submits) })
		if n != 1 {
			t.Fatalf("%d pending submits an hour on, want only the last", n)
		}
	})
	t.Run("tab id of 1 MiB", func(t *testing.T) {
		h := newHarness(t, Config{})
		err := h.r.Key(h.ctx, strings.Repeat("t", 1<<20), KeyEnter, time.Time{})
		if err == nil || !strings.Contains(err.Error(), "at most") {
			t.Fatalf("1 MiB tab id: %v, want refused", err)
		}
		if err := h.r.Key(h.ctx, strings.Repeat("t", MaxIDBytes), KeyEnter, time.Time{}); err != nil {
			t.Fatalf("tab id of %d bytes: %v", MaxIDBytes, err)
		}
	})
}

// pi 0.73.1's session lines (formats/pi.md §2.5).
func piHeader(s string) string {
	return fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-11-29T12:00:00.000Z","cwd":"/w/app"}`, s)
}
func piUser(text string) string {
	return fmt.Sprintf(`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-11-29T12:00:00.100Z","message":{"role":"user","content":[{"type":"text","text":%q}]}}`, text)
}

const (
	piToolCall = `{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-11-29T12:00:00.200Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"bash","arguments":{"command":"sleep 9"}}],"stopReason":"toolUse"}}`
	// Esc while the tool runs: its result is an error, then the aborted
	// answer (the marker).
	piToolAborted = `{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-11-29T12:00:01.000Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"\n\nCommand aborted"}],"isError":true}}`
	piAborted     = `{"type":"message","id":"a2","parentId":"r1","timestamp":"2026-11-29T12:00:01.010Z","message":{"role":"assistant","content":[],"stopReason":"aborted","errorMessage":"Operation aborted"}}`
)

// Esc while a tool runs (issue 32, pi 6 of 6 live runs, omp 3 of 5): the
// log confirms the interrupt, then the extension's report of the aborted
// tool arrives (~100 ms later) and its Stop after that; omp also starts and
// ends each tool call the abort cut off (and its ask tool is a question).
// All of it belongs to the turn the log closed: an echo, never a new turn,
// in whichever form the extension sends it; a new prompt is a new turn.
func TestTurnEventsAfterInterruptAreEchoes(t *testing.T) {
	bash := `{"command":"sleep 9"}`
	hook := func(kv ...string) string {
		return jsonObj(append([]string{"session_id", "s", "hook_event_name"}, kv...)...)
	}
	for _, c := range []struct{ name, echo string }{
		{"post tool", hook("PostToolUse", "tool_name", "bash", "tool_input", bash)},
		{"tool failure", hook("PostToolUseFailure", "tool_name", "bash", "tool_input", bash)},
		{"tool interrupted", hook("PostToolUseFailure", "tool_name", "bash", "tool_input", bash, "is_interrupt", "true")},
		{"cut-off tool started", hook("PreToolUse", "tool_name", "bash", "tool_input", bash)},
		{"cut-off question", hook("Notification", "notification_type", "elicitation_dialog", "message", "Pick one")},
		{"cut-off approval", hook("PermissionRequest", "tool_name", "bash", "tool_input", bash)},
	} {
		for _, key := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s, key %v", c.name, key), func(t *testing.T) {
				h := newHarness(t, Config{InterruptWindow: 2 * time.Second, TurnQuiet: 3 * time.Second})
				must(t, h.hook("t1", "pi", claudeHook("SessionStart", "s", "source", "startup")))
				must(t, h.hook("t1", "pi", claudeHook("UserPromptSubmit", "s")))
				h.line("pi", "s", piHeader("s"), false)
				h.line("pi", "s", piUser("please run a TOOL"), false)
				h.line("pi", "s", piToolCall, false)
				must(t, h.hook("t1", "pi", claudeHook("PreToolUse", "s", "tool_name", "bash", "tool_input", bash)))
				h.expect("ready/session_start/hook.session_start", "working/prompt/hook.prompt", "working/tool/hook.pre_tool")
				if key {
					must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
				}
				h.clock.Advance(30 * time.Millisecond)
				h.line("pi", "s", piToolAborted, false)
				h.line("pi", "s", piAborted, false)
				rule := "log.interrupt"
				if key {
					rule = "key.confirmed"
				}
				h.expect("ready/interrupted/" + rule)
				h.clock.Advance(100 * time.Millisecond)
				must(t, h.r.Hook(h.ctx, "pi", "t1", []byte(c.echo)))
				must(t, h.hook("t1", "pi", claudeHook("Stop", "s", "is_interrupt", "true")))
				h.clock.Advance(5 * time.Second)
				h.expect()
				if e := h.state("s"); e.State != "ready" || e.Reason != "interrupted" || e.Rule != rule {
					t.Fatalf("after the echo: %+v", e)
				}
				if c := h.sync().Counters; key && (c.InterruptsConfirmed != 1 || c.InterruptsUnconfirmed != 0) {
					t.Fatalf("counters %+v", c)
				}
				// The next prompt is a new turn, and its tools work.
				must(t, h.hook("t1", "pi", claudeHook("UserPromptSubmit", "s")))
				h.line("pi", "s", piUser("again"), false)
				must(t, h.hook("t1", "pi", claudeHook("PreToolUse", "s", "tool_name", "bash", "tool_input", bash)))
				must(t, h.r.Hook(h.ctx, "pi", "t1", []byte(jsonObj("hook_event_name", "PostToolUse", "session_id", "s", "tool_name", "bash", "tool_input", `{"command":"ls"}`))))
				h.expect("working/prompt/hook.prompt", "working/tool/hook.pre_tool", "working/tool/hook.post_tool")
			})
		}
	}
}

// OpenCode's Esc Esc with its plugin (issue 32 item 2): the plugin's Stop
// marked an interrupt and the store's aborted message both say the turn
// was interrupted, 0.2 to 0.6 s apart, in either order. Whichever comes
// first inside the key's window confirms the key (key+hook, key+log); the
// other changes nothing and counts nothing. A hook's interrupt after the
// window, or with no key, is the hook's own.
func TestWindowConfirmedByHook(t *testing.T) {
	s := ocID(1)
	user := fmt.Sprintf(`{"sessionID":%q,"info":{"id":"msg_u1","role":"user","time":{"created":1796182095188},"agent":"build"}}`, s)
	aborted := fmt.Sprintf(`{"sessionID":%q,"info":{"id":"msg_a1","role":"assistant","time":{"created":1,"completed":2},"error":{"name":"MessageAbortedError","data":{"message":"Aborted"}}}}`, s)
	stop := jsonObj("hook_event_name", "Stop", "session_id", s, "is_interrupt", "true")
	cases := []struct {
		name      string
		key       bool
		hookFirst bool
		late      time.Duration // from the press to the first report
		want      string        // the interrupt's source
		confirmed int64
		unconf    int64
	}{
		{"plugin first", true, true, 300 * time.Millisecond, "key+hook", 1, 0},
		{"store first", true, false, 300 * time.Millisecond, "key+log", 1, 0},
		{"plugin after the window", true, true, 2100 * time.Millisecond, "hook", 0, 1},
		{"plugin with no key", false, true, 300 * time.Millisecond, "hook", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Config{InterruptWindow: 2 * time.Second, TurnQuiet: time.Hour})
			must(t, h.r.Hook(h.ctx, string(agOpenCode), "t1", []byte(jsonObj("hook_event_name", "UserPromptSubmit", "session_id", s))))
			ocRow(h, s, 1, user, false)
			h.expect("working/prompt/hook.prompt")
			if c.key {
				must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{}))
				h.clock.Advance(400 * time.Millisecond)
				must(t, h.r.Key(h.ctx, "t1", KeyEsc, time.Time{})) // the second press interrupts
			}
			h.clock.Advance(c.late)
			hook := func() { must(t, h.r.Hook(h.ctx, string(agOpenCode), "t1", []byte(stop))) }
			if c.hookFirst {
				hook()
				h.clock.Advance(400 * time.Millisecond)
				ocRow(h, s, 2, aborted, false)
			} else {
				ocRow(h, s, 2, aborted, false)
				h.clock.Advance(400 * time.Millisecond)
				hook()
			}
			h.clock.Advance(3 * time.Second)
			got := h.drain(func(e Event) string { return e.State + "/" + e.Reason + "/" + e.Source + "/" + e.Rule })
			rule := "key.confirmed"
			if !strings.HasPrefix(c.want, "key+") {
				rule = "hook.stop_interrupted"
			}
			if want := "ready/interrupted/" + c.want + "/" + rule; len(got) != 1 || got[0] != want {
				t.Fatalf("changes %q, want [%s]", got, want)
			}
			st := h.sync().Counters
			if st.InterruptsConfirmed != c.confirmed || st.InterruptsUnconfirmed != c.unconf {
				t.Fatalf("confirmed %d, unconfirmed %d; want %d, %d (%+v)", st.InterruptsConfirmed, st.InterruptsUnconfirmed, c.confirmed, c.unconf, st)
			}
			if c.confirmed == 1 && st.KeyToMarkerLastMs != (400*time.Millisecond+c.late).Milliseconds() {
				t.Fatalf("key→marker %d ms", st.KeyToMarkerLastMs)
			}
		})
	}
}

// Every hook that reports an interrupt confirms an open window: Claude's
// PostToolUseFailure and Stop with is_interrupt, Codex's Interrupt.
func TestWindowConfirmedByEveryInterruptHook(t *testing.T) {
	for _, c := range []struct{ name, agent, payload string }{
		{"tool interrupted", "claude", claudeHook("PostToolUseFailure", "s", "tool_name", "Bash", "is_interrupt", "true")},
		{"stop interrupted", "claude", claudeHook("Stop", "s", "is_interrupt", "true")},
		{"codex interrupt", "codex", claudeHook("Interrupt", "s")},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Config{InterruptWindow: 2 * time.Second, TurnQuiet: time.Hour})
			must(t, h.hook("t1", c.agent, claudeHook("UserPromptSubmit", "s")))
			h.expect("working/prompt/hook.prompt")
			must(t, h.r.Key(h.ctx, "t1", KeyCtrlC, time.Time{}))
			h.clock.Advance(80 * time.Millisecond)
			must(t, h.hook("t1", c.agent, c.payload))
			h.expect("ready/interrupted/key.confirmed")
			if e := h.state("s"); e.Source != "key+hook" {
				t.Fatalf("source %q", e.Source)
			}
			if st := h.sync().Counters; st.InterruptsConfirmed != 1 || st.InterruptsUnconfirmed != 0 || st.KeyToMarkerLastMs != 80 {
				t.Fatalf("counters %+v", st)
			}
		})
	}
}
