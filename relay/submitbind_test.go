package relay

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/parsers"
)

// Codex 0.169 rollout lines stamped at a given time, and a session's opening.
func xAt(at time.Time, typ, extra string) string {
	return fmt.Sprintf(`{"timestamp":%q,"type":"event_msg","payload":{"type":%q%s}}`, at.UTC().Format("2006-01-02T15:04:05.000Z"), typ, extra)
}

func xMeta(id string) string {
	return fmt.Sprintf(`{"timestamp":"t","type":"session_meta","payload":{"id":%q,"cwd":"/w/app","cli_version":"0.169.0"}}`, id)
}

// enter reports an Enter typed into tab d before the clock's now.
func (h *harness) enter(tab string, d time.Duration) {
	h.t.Helper()
	must(h.t, h.r.Key(h.ctx, tab, KeyEnter, h.clock.Now().Add(-d)))
}

// codexTurn writes the start of a Codex 0.169 session's first turn, stamped
// now, as the rollout has it.
func (h *harness) codexTurn(id, turn string) {
	h.t.Helper()
	h.line(codex, id, xMeta(id), false)
	h.line(codex, id, xAt(h.clock.Now(), "task_started", `,"turn_id":"`+turn+`"`), false)
}

// tabbed returns the events published since the last call as
// "state/reason/rule@tab".
func (h *harness) tabbed() []string {
	return h.drain(func(ev Event) string {
		return fmt.Sprintf("%s %s/%s/%s@%s", ev.Session, ev.State, ev.Reason, ev.Rule, ev.Tab)
	})
}

func (h *harness) expectTabbed(want ...string) {
	h.t.Helper()
	if got := h.tabbed(); strings.Join(got, " | ") != strings.Join(want, " | ") {
		h.t.Fatalf("changes:\n got  %q\n want %q", got, want)
	}
}

func TestCodexBindSubmit(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(h *harness)
	}{
		{"bind.submit: the turn start after a tab's Enter binds the session to it", func(h *harness) {
			h.enter("B", 30*time.Millisecond)
			h.codexTurn("b", "t1")
			// The hooks, run in the shared server, name no tab.
			must(h.t, h.hook("", "codex", claudeHook("SessionStart", "b", "source", "startup")))
			must(h.t, h.hook("", "codex", claudeHook("UserPromptSubmit", "b", "turn_id", "t1")))
			must(h.t, h.hook("", "codex", claudeHook("Stop", "b", "turn_id", "t1")))
			h.expectTabbed("b working/prompt/log.turn_start@B", "b done/turn_end/hook.stop@B")
			if st := h.sync().Counters; st.BindsSubmit != 1 || st.Submits != 1 || st.Keys != 0 || st.SubmitToTurnLastMs != 30 {
				h.t.Fatalf("counters %+v", st)
			}
		}},
		{"bind.submit: a hook's turn start binds when it comes before the rollout", func(h *harness) {
			h.enter("B", 10*time.Millisecond)
			must(h.t, h.hook("", "codex", claudeHook("UserPromptSubmit", "b", "turn_id", "t1")))
			h.codexTurn("b", "t1")
			h.expectTabbed("b working/prompt/hook.prompt@B")
		}},
		{"bind.ambiguous: submits in two tabs bind neither turn start", func(h *harness) {
			h.enter("A", 40*time.Millisecond)
			h.enter("B", 20*time.Millisecond)
			h.codexTurn("a", "t1")
			h.codexTurn("b", "t1")
			must(h.t, h.hook("", "codex", claudeHook("Stop", "a", "turn_id", "t1")))
			must(h.t, h.hook("", "codex", claudeHook("Stop", "b", "turn_id", "t1")))
			h.expectTabbed("a working/prompt/log.turn_start@", "b working/prompt/log.turn_start@",
				"a done/turn_end/hook.stop@", "b done/turn_end/hook.stop@")
			if n := h.sync().Counters.BindsAmbiguous; n != 1 {
				h.t.Fatalf("binds_ambiguous = %d, want 1", n)
			}
			// The submits were spent: A's next prompt, half a second later,
			// binds its session (B's old Enter is no candidate any more).
			h.clock.Advance(500 * time.Millisecond)
			h.enter("A", 10*time.Millisecond)
			h.line(codex, "a", xAt(h.clock.Now(), "task_started", `,"turn_id":"t2"`), false)
			h.expectTabbed("a working/prompt/log.turn_start@A")
		}},
		{"bind.ambiguous: a late submit beside an ambiguous turn start binds nothing", func(h *harness) {
			h.enter("A", 40*time.Millisecond)
			h.enter("B", 20*time.Millisecond)
			h.codexTurn("a", "t1") // ambiguous: A and B
			h.codexTurn("b", "t1") // their submits are spent: none, beside the ambiguous one
			h.enter("C", 10*time.Millisecond)
			h.expectTabbed("a working/prompt/log.turn_start@", "b working/prompt/log.turn_start@")
		}},
		{"bind.ambiguous: another tab's Enter, pressed before a bound turn start but reported after it, undoes the binding", func(h *harness) {
			h.enter("A", 20*time.Millisecond)
			h.codexTurn("a", "t1")
			h.enter("B", 10*time.Millisecond) // pressed 10 ms before a's stamp
			h.codexTurn("b", "t1")            // B's Enter is spent: no tab either
			h.expectTabbed("a working/prompt/log.turn_start@A", "a working/prompt/bind.ambiguous@", "b working/prompt/log.turn_start@")
			if c := h.sync().Counters; c.BindsRetracted != 1 || c.BindsAmbiguous != 1 {
				h.t.Fatalf("counters %+v", c)
			}
			if st := h.state("a"); st.Tab != "" {
				h.t.Fatalf("session a still in tab %q", st.Tab)
			}
		}},
		{"bind.submit: another tab's Enter after the bound turn start's skew undoes nothing", func(h *harness) {
			h.enter("A", 20*time.Millisecond)
			h.codexTurn("a", "t1")
			h.clock.Advance(submitSkew + 10*time.Millisecond)
			h.enter("B", 0)
			h.codexTurn("b", "t1")
			h.expectTabbed("a working/prompt/log.turn_start@A", "b working/prompt/log.turn_start@B")
		}},
		{"bind.submit: a tab bound to a live session is no candidate", func(h *harness) {
			h.enter("A", 20*time.Millisecond)
			h.codexTurn("a", "t1")
			must(h.t, h.hook("", "codex", claudeHook("Stop", "a", "turn_id", "t1")))
			h.clock.Advance(5 * time.Second)
			// A's Enter (its next prompt, a dialog, a /new) and another
			// session's turn start with no Enter of its own (a prompt given
			// on codex's command line, a queued message).
			h.enter("A", 10*time.Millisecond)
			h.codexTurn("x", "t1")
			h.expectTabbed("a working/prompt/log.turn_start@A", "a done/turn_end/hook.stop@A", "x working/prompt/log.turn_start@")
		}},
		{"bind.submit: a submit binds once", func(h *harness) {
			h.enter("B", 20*time.Millisecond)
			h.codexTurn("b", "t1")
			must(h.t, h.hook("", "codex", claudeHook("SessionEnd", "b")))
			h.codexTurn("x", "t1") // within the window, after B's submit was used
			h.expectTabbed("b working/prompt/log.turn_start@B", "b ended/session_end/hook.session_end@B", "x working/prompt/log.turn_start@")
		}},
		{"bind.submit: the bound session's own turn start uses up its tab's submit", func(h *harness) {
			h.enter("B", 20*time.Millisecond)
			h.codexTurn("b", "t1")
			must(h.t, h.hook("", "codex", claudeHook("Stop", "b", "turn_id", "t1")))
			must(h.t, h.hook("", "codex", claudeHook("SessionEnd", "b")))
			h.clock.Advance(5 * time.Second)
			h.enter("B", 20*time.Millisecond)
			must(h.t, h.hook("", "codex", claudeHook("UserPromptSubmit", "b", "turn_id", "t2")))
			h.codexTurn("x", "t1")
			h.expectTabbed("b working/prompt/log.turn_start@B", "b done/turn_end/hook.stop@B", "b ended/session_end/hook.session_end@B",
				"b working/prompt/hook.prompt@B", "x working/prompt/log.turn_start@")
		}},
		{"bind.submit: a submit too long before the turn start, or after it, binds nothing", func(h *harness) {
			h.enter("A", submitWindow+time.Millisecond)
			h.codexTurn("a", "t1")
			h.codexTurn("b", "t1")
			h.clock.Advance(submitSkew + time.Millisecond)
			must(h.t, h.r.Key(h.ctx, "B", KeyEnter, time.Time{}))
			h.expectTabbed("a working/prompt/log.turn_start@", "b working/prompt/log.turn_start@")
		}},
		{"bind.submit: history read at start-up binds nothing", func(h *harness) {
			h.enter("B", 20*time.Millisecond)
			h.line(codex, "b", xMeta("b"), true)
			h.line(codex, "b", xAt(h.clock.Now(), "task_started", `,"turn_id":"t1"`), true)
			h.r.BootstrapDone()
			h.expectTabbed("b working/prompt/log.turn_start@")
		}},
		{"bind.submit: Claude sessions are bound by their hooks and registry, not by submits", func(h *harness) {
			h.enter("B", 20*time.Millisecond)
			h.line(claude, "s", cPrompt("s", "hi"), false)
			h.expectTabbed("s working/prompt/log.turn_start@")
		}},
		{"bind.submit_late: a submit reported after its turn start binds it and shows it again", func(h *harness) {
			h.codexTurn("b", "t1")
			h.enter("B", 30*time.Millisecond) // pressed before the turn start, reported after it
			must(h.t, h.hook("", "codex", claudeHook("UserPromptSubmit", "b", "turn_id", "t1")))
			h.expectTabbed("b working/prompt/log.turn_start@", "b working/prompt/bind.submit_late@B")
		}},
		{"bind.submit_late: a resumed session, its SessionStart first, bound by its new tab's late Enter", func(h *harness) {
			h.enter("A", 20*time.Millisecond)
			h.codexTurn("a", "t1")
			h.line(codex, "a", xAt(h.clock.Now(), "task_complete", `,"turn_id":"t1"`), false)
			if _, err := h.r.TabClosed(h.ctx, "A"); err != nil {
				h.t.Fatal(err)
			}
			h.clock.Advance(10 * time.Second)
			// `codex resume` in tab B: the lazy SessionStart, then the rollout,
			// then B's Enter, reported late.
			must(h.t, h.hook("", "codex", claudeHook("SessionStart", "a", "source", "resume")))
			h.line(codex, "a", xAt(h.clock.Now(), "task_started", `,"turn_id":"t2"`), false)
			h.enter("B", 30*time.Millisecond)
			h.expectTabbed("a working/prompt/log.turn_start@A", "a done/turn_end/log.turn_end@A", "a ended/tab_closed/api.tab_closed@A",
				"a ready/session_start/hook.session_start@", "a working/prompt/log.turn_start@", "a working/prompt/bind.submit_late@B")
		}},
		{"bind.submit_late: two tabless turn starts in the submit's window bind neither", func(h *harness) {
			h.codexTurn("a", "t1")
			h.codexTurn("b", "t1")
			h.enter("B", 30*time.Millisecond)
			h.expectTabbed("a working/prompt/log.turn_start@", "b working/prompt/log.turn_start@")
		}},
		{"bind.submit_late: an ambiguous turn start stays unbound", func(h *harness) {
			h.enter("A", 40*time.Millisecond)
			h.enter("B", 20*time.Millisecond)
			h.codexTurn("b", "t1")
			h.enter("C", 10*time.Millisecond)
			must(h.t, h.hook("", "codex", claudeHook("UserPromptSubmit", "b", "turn_id", "t1")))
			h.expectTabbed("b working/prompt/log.turn_start@")
		}},
		{"bind.submit_late: a submit long before the turn start binds nothing", func(h *harness) {
			h.codexTurn("b", "t1")
			h.enter("B", submitWindow+10*time.Millisecond)
			h.expectTabbed("b working/prompt/log.turn_start@")
		}},
		{"bind.submit: an Esc in the bound tab confirms that session only", func(h *harness) {
			h.enter("A", 20*time.Millisecond)
			h.codexTurn("a", "t1")
			h.clock.Advance(3 * time.Second)
			h.enter("B", 20*time.Millisecond)
			h.codexTurn("b", "t1")
			h.expectTabbed("a working/prompt/log.turn_start@A", "b working/prompt/log.turn_start@B")
			must(h.t, h.r.Key(h.ctx, "B", KeyEsc, h.clock.Now()))
			h.line(codex, "b", xAt(h.clock.Now(), "turn_aborted", `,"turn_id":"t1","reason":"interrupted"`), false)
			h.expectTabbed("b ready/interrupted/key.confirmed@B")
			if st := h.state("a"); st.State != "working" || st.Tab != "A" {
				h.t.Fatalf("session a is %s in %q, want working in A", st.State, st.Tab)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(newHarness(t, Config{})) })
	}
}

// codex.turn_outlived_tab: the tab closes while its Codex turn runs; the turn
// goes on in the background server.
func TestCodexTurnOutlivedTab(t *testing.T) {
	for _, c := range []struct {
		name  string
		after func(h *harness)
		want  []string
	}{
		{"the turn's output, then its end: back working, then done", func(h *harness) {
			h.line(codex, "b", `{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"late"}]}}`, false)
			h.line(codex, "b", xAt(h.clock.Now(), "task_complete", `,"turn_id":"t1"`), false)
			must(h.t, h.hook("", "codex", claudeHook("Stop", "b", "turn_id", "t1")))
		}, []string{"b working/resumed/log.turn_outlived_tab@", "b done/turn_end/log.turn_end@"}},
		{"its end first (the Stop hook): done at once", func(h *harness) {
			must(h.t, h.hook("", "codex", claudeHook("Stop", "b", "turn_id", "t1")))
			h.line(codex, "b", xAt(h.clock.Now(), "task_complete", `,"turn_id":"t1"`), false)
		}, []string{"b done/turn_end/hook.stop@"}},
		{"metadata only: still ended", func(h *harness) {
			h.line(codex, "b", `{"timestamp":"t","type":"token_usage_record","payload":{"turn_id":"t1"}}`, false)
		}, nil},
		{"SessionEnd first (the server stopped): the turn is over, nothing more", func(h *harness) {
			must(h.t, h.hook("", "codex", claudeHook("SessionEnd", "b")))
			h.line(codex, "b", xAt(h.clock.Now(), "task_complete", `,"turn_id":"t1"`), false)
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Config{})
			h.enter("B", 20*time.Millisecond)
			h.codexTurn("b", "t1")
			if _, err := h.r.TabClosed(h.ctx, "B"); err != nil {
				t.Fatal(err)
			}
			h.expectTabbed("b working/prompt/log.turn_start@B", "b ended/tab_closed/api.tab_closed@B")
			c.after(h)
			h.expectTabbed(c.want...)
		})
	}
	t.Run("a tab closed at an idle prompt: the session stays ended", func(t *testing.T) {
		h := newHarness(t, Config{})
		h.enter("B", 20*time.Millisecond)
		h.codexTurn("b", "t1")
		h.line(codex, "b", xAt(h.clock.Now(), "task_complete", `,"turn_id":"t1"`), false)
		if _, err := h.r.TabClosed(h.ctx, "B"); err != nil {
			t.Fatal(err)
		}
		must(h.t, h.hook("", "codex", claudeHook("Stop", "b", "turn_id", "t1"))) // a late echo
		h.expectTabbed("b working/prompt/log.turn_start@B", "b done/turn_end/log.turn_end@B", "b ended/tab_closed/api.tab_closed@B")
	})
}

// Lateness is judged by arrival too (docs/security.md, "Key stamps"): an
// Enter from another tab reported more than 2 s after its stamp, stamped
// beside a bound turn start or just before a tabless one, binds and undoes
// nothing (a report arrives within ~100 ms, measured), whatever the
// agent's submit window.
func TestCodexLateSubmitByArrival(t *testing.T) {
	for _, late := range []time.Duration{lateReport + time.Millisecond, 3 * time.Second, 30 * time.Second} {
		t.Run("a bound turn start, another tab's Enter "+late.String()+" late", func(t *testing.T) {
			h := newHarness(t, Config{TurnQuiet: time.Hour})
			pressed := h.clock.Now().Add(-20 * time.Millisecond)
			h.enter("A", 20*time.Millisecond)
			h.codexTurn("a", "t1")
			h.expectTabbed("a working/prompt/log.turn_start@A")
			h.clock.Advance(late - 20*time.Millisecond)
			must(t, h.r.Key(h.ctx, "B", KeyEnter, pressed)) // stamped at A's submit
			h.expectTabbed()
			if c := h.sync().Counters; c.BindsRetracted != 0 || c.BindsAmbiguous != 0 {
				t.Fatalf("counters %+v: a report %s late undid a binding", c, late)
			}
			if st := h.state("a"); st.Tab != "A" {
				t.Fatalf("session a in tab %q, want A", st.Tab)
			}
		})
		t.Run("a tabless turn start, its Enter "+late.String()+" late", func(t *testing.T) {
			h := newHarness(t, Config{TurnQuiet: time.Hour})
			turn := h.clock.Now()
			h.codexTurn("b", "t1")
			h.clock.Advance(late)
			must(t, h.r.Key(h.ctx, "B", KeyEnter, turn.Add(-30*time.Millisecond)))
			h.expectTabbed("b working/prompt/log.turn_start@")
			if c := h.sync().Counters; c.BindsSubmit != 0 {
				t.Fatalf("counters %+v: a report %s late bound a session", c, late)
			}
		})
	}
	t.Run("an Enter reported within 2 s still undoes", func(t *testing.T) {
		h := newHarness(t, Config{TurnQuiet: time.Hour})
		pressed := h.clock.Now().Add(-20 * time.Millisecond)
		h.enter("A", 20*time.Millisecond)
		h.codexTurn("a", "t1")
		h.clock.Advance(lateReport - 20*time.Millisecond)
		must(t, h.r.Key(h.ctx, "B", KeyEnter, pressed))
		h.expectTabbed("a working/prompt/log.turn_start@A", "a working/prompt/bind.ambiguous@")
	})
}

// ocPrompt delivers a new OpenCode session's first user message, live, as
// the store feed does: its row stamped at, by OpenCode.
func (h *harness) ocPrompt(id string, rowid int, at time.Time) {
	h.t.Helper()
	line := fmt.Sprintf(`{"type":"message.updated.1","session":%q,"parent":"","seq":%d,"rowid":%d,"data":{"sessionID":%q,"info":{"id":"msg_u%s","sessionID":%q,"role":"user","time":{"created":%d}}}}`,
		id, rowid, rowid, id, id, id, at.UnixMilli())
	ev, err := parsers.New(agOpenCode).Parse([]byte(line))
	if err != nil {
		h.t.Fatal(err)
	}
	h.r.Log(LogLine{Path: ocDB, Session: id, Agent: agOpenCode, Offset: int64(rowid - 1), End: int64(rowid), Evidence: ev, Raw: []byte(line)})
}

// ompPrompt writes a new omp session's header and its first user
// message, stamped at, as omp 18 writes its log (at the first answer).
func (h *harness) ompPrompt(id string, at time.Time) {
	h.t.Helper()
	ts := at.UTC().Format("2006-01-02T15:04:05.000Z")
	h.line("omp", id, fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":%q,"cwd":"/w/app"}`, id, ts), false)
	h.line("omp", id, fmt.Sprintf(`{"type":"message","id":"u1","parentId":null,"timestamp":%q,"message":{"role":"user","content":[{"type":"text","text":"hi"}],"attribution":"user","timestamp":%d}}`, ts, at.UnixMilli()), false)
}

// opened reports tab's process, as wrap does when the tab opens.
func (h *harness) opened(tab string, pid int) {
	h.t.Helper()
	must(h.t, h.r.TabProcessStarted(h.ctx, tab, pid, uint64(pid)))
}

// bind.submit_first: the first prompt of a process starting up on a loaded
// machine, stamped seconds after its Enter.
func TestFirstPromptLoaded(t *testing.T) {
	for _, lag := range []time.Duration{4 * time.Second, 7800 * time.Millisecond, 15 * time.Second} {
		t.Run("OpenCode stamped "+lag.String()+" after the only fresh tab's Enter: bound", func(t *testing.T) {
			h := newHarness(t, Config{TurnQuiet: time.Hour})
			h.opened("A", 4001)
			h.opened("B", 4002) // idle: no Enter
			h.enter("A", 0)
			h.clock.Advance(lag)
			h.ocPrompt(ocID(1), 1, h.clock.Now())
			h.expectTabbed(ocID(1) + " working/prompt/log.turn_start@A")
			if c := h.sync().Counters; c.BindsSubmit != 1 || c.SubmitToTurnLastMs != lag.Milliseconds() {
				t.Fatalf("counters %+v", c)
			}
		})
	}
	for _, lag := range []time.Duration{3900 * time.Millisecond, 7800 * time.Millisecond} {
		t.Run("omp stamped "+lag.String()+" after the only fresh tab's Enter: bound", func(t *testing.T) {
			h := newHarness(t, Config{TurnQuiet: time.Hour})
			h.opened("A", 4001)
			h.enter("A", 0)
			enter := h.clock.Now()
			h.clock.Advance(lag + 2*time.Second) // written at the first answer
			h.ompPrompt("o1", enter.Add(lag))
			h.expectTabbed("o1 working/prompt/log.turn_start@A")
		})
	}
	for _, c := range []struct {
		name string
		run  func(h *harness)
		want []string
	}{
		{"Enters in two fresh tabs: neither is bound", func(h *harness) {
			h.opened("A", 4001)
			h.opened("B", 4002)
			h.enter("A", 0)
			h.clock.Advance(time.Second)
			h.enter("B", 0)
			h.clock.Advance(5 * time.Second)
			h.codexTurn("a", "t1")
		}, []string{"a working/prompt/log.turn_start@"}},
		{"a stray Enter in another tab (a shell, no process known) makes it ambiguous", func(h *harness) {
			h.opened("A", 4001)
			h.enter("A", 0)
			h.clock.Advance(3 * time.Second)
			h.enter("S", 0)
			h.clock.Advance(3 * time.Second)
			h.codexTurn("a", "t1")
		}, []string{"a working/prompt/log.turn_start@"}},
		{"an Enter in a tab showing a live session is no candidate: the fresh tab's binds", func(h *harness) {
			h.opened("L", 4009)
			h.enter("L", 20*time.Millisecond)
			h.codexTurn("l", "t1") // L shows l, working
			h.clock.Advance(time.Second)
			h.opened("A", 4001)
			h.enter("A", 0)
			h.clock.Advance(2 * time.Second)
			h.enter("L", 0) // a steer, a dialog: it answers l
			h.clock.Advance(4 * time.Second)
			h.codexTurn("a", "t1")
		}, []string{"l working/prompt/log.turn_start@L", "a working/prompt/log.turn_start@A"}},
		{"the only Enter in a tab showing a live session binds nothing", func(h *harness) {
			h.opened("L", 4009)
			h.enter("L", 20*time.Millisecond)
			h.codexTurn("l", "t1")
			h.clock.Advance(2 * time.Second)
			h.enter("L", 0)
			h.clock.Advance(6 * time.Second)
			h.codexTurn("x", "t1")
		}, []string{"l working/prompt/log.turn_start@L", "x working/prompt/log.turn_start@"}},
		{"a tab that typed before (a shell running commands) is not fresh", func(h *harness) {
			h.opened("A", 4001)
			h.enter("A", 0)
			h.clock.Advance(20 * time.Second)
			h.enter("A", 0)
			h.clock.Advance(6 * time.Second)
			h.codexTurn("x", "t1")
		}, []string{"x working/prompt/log.turn_start@"}},
		{"a tab whose process is not known is not fresh", func(h *harness) {
			h.enter("A", 0)
			h.clock.Advance(6 * time.Second)
			h.codexTurn("x", "t1")
		}, []string{"x working/prompt/log.turn_start@"}},
		{"an Enter stamped after the turn start binds nothing", func(h *harness) {
			h.opened("A", 4001)
			turn := h.clock.Now()
			h.clock.Advance(time.Second)
			h.enter("A", 0)
			h.line(codex, "x", xMeta("x"), false)
			h.line(codex, "x", xAt(turn, "task_started", `,"turn_id":"t1"`), false)
		}, []string{"x working/prompt/log.turn_start@"}},
		{"an Enter older than firstPromptLag binds nothing", func(h *harness) {
			h.opened("A", 4001)
			h.enter("A", 0)
			h.clock.Advance(firstPromptLag + time.Second)
			h.codexTurn("x", "t1")
		}, []string{"x working/prompt/log.turn_start@"}},
		{"another tabless turn start after the Enter, waiting for a tab: neither is bound", func(h *harness) {
			h.opened("A", 4001)
			enter := h.clock.Now()
			h.clock.Advance(1500 * time.Millisecond)
			h.codexTurn("x", "t1")                         // stamped after A's Enter, before its report
			h.line(claude, "c", cPrompt("c", "hi"), false) // bound by hooks, not submits: no rival
			h.clock.Advance(400 * time.Millisecond)
			must(h.t, h.r.Key(h.ctx, "A", KeyEnter, enter)) // reported 1.9 s late: still counts
			h.clock.Advance(4 * time.Second)
			h.codexTurn("a", "t1")
		}, []string{"x working/prompt/log.turn_start@", "c working/prompt/log.turn_start@", "a working/prompt/log.turn_start@"}},
		{"a later turn start with no Enter could be the bound Enter's: the binding is undone", func(h *harness) {
			h.opened("A", 4001)
			h.enter("A", 0)
			enter := h.clock.Now()
			h.clock.Advance(6 * time.Second)
			h.codexTurn("x", "t1") // bound to A
			h.clock.Advance(2 * time.Second)
			// A's own session, its prompt stamped 5 s after the Enter,
			// written later (omp writes its file at the first answer).
			h.line(codex, "a", xMeta("a"), false)
			h.line(codex, "a", xAt(enter.Add(5*time.Second), "task_started", `,"turn_id":"t1"`), false)
		}, []string{"x working/prompt/log.turn_start@A", "x working/prompt/bind.ambiguous@", "a working/prompt/log.turn_start@"}},
		{"a later turn start stamped long after the Enter leaves the binding", func(h *harness) {
			h.opened("A", 4001)
			h.enter("A", 0)
			h.clock.Advance(6 * time.Second)
			h.codexTurn("a", "t1")
			h.clock.Advance(firstPromptLag)
			h.codexTurn("x", "t1")
		}, []string{"a working/prompt/log.turn_start@A", "x working/prompt/log.turn_start@"}},
		{"another fresh tab's Enter reported late, before the bound turn start: undone", func(h *harness) {
			h.opened("A", 4001)
			h.opened("B", 4002)
			h.enter("A", 0)
			h.clock.Advance(6 * time.Second)
			h.codexTurn("a", "t1")
			h.enter("B", 1500*time.Millisecond) // pressed before a's stamp, reported 1.5 s late
		}, []string{"a working/prompt/log.turn_start@A", "a working/prompt/bind.ambiguous@"}},
		{"a tab closed and opened again with a new process is fresh again", func(h *harness) {
			h.opened("A", 4001)
			h.enter("A", 20*time.Millisecond)
			h.codexTurn("a", "t1")
			if _, err := h.r.TabClosed(h.ctx, "A"); err != nil {
				h.t.Fatal(err)
			}
			h.clock.Advance(time.Minute)
			h.opened("A", 4005)
			h.enter("A", 0)
			h.clock.Advance(6 * time.Second)
			h.codexTurn("b", "t1")
		}, []string{"a working/prompt/log.turn_start@A", "a ended/tab_closed/api.tab_closed@A", "b working/prompt/log.turn_start@A"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, Config{TurnQuiet: time.Hour})
			c.run(h)
			h.expectTabbed(c.want...)
		})
	}
}
