package replay

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"
)

func TestCompare(t *testing.T) {
	a := Entry{Seq: 1, Session: "s1", Agent: "claude", Tab: "T", State: "working", Reason: "prompt", Source: "hook", Rule: "hook.prompt"}
	b := a
	b.Seq, b.State, b.Reason, b.Rule = 2, "done", "turn_end", "hook.stop"
	with := func(e Entry, f func(*Entry)) Entry { f(&e); return e }
	for _, tc := range []struct {
		name               string
		recorded, replayed []Entry
		at                 int // -1: no divergence
		want               string
	}{
		{"same", []Entry{a, b}, []Entry{a, b}, -1, ""},
		{"empty", nil, nil, -1, ""},
		{"time differs only", []Entry{a}, []Entry{with(a, func(e *Entry) { e.Offset = 9; e.At = e.At.Add(1) })}, -1, ""},
		{"seq", []Entry{a, b}, []Entry{a, with(b, func(e *Entry) { e.Seq = 3 })}, 1, "seq=3"},
		{"session", []Entry{a}, []Entry{with(a, func(e *Entry) { e.Session = "s2" })}, 0, "session=s2"},
		{"tab", []Entry{a}, []Entry{with(a, func(e *Entry) { e.Tab = "" })}, 0, `tab=""`},
		{"state", []Entry{a}, []Entry{with(a, func(e *Entry) { e.State = "ready" })}, 0, "ready/prompt"},
		{"reason", []Entry{a}, []Entry{with(a, func(e *Entry) { e.Reason = "tool" })}, 0, "working/tool"},
		{"source", []Entry{a}, []Entry{with(a, func(e *Entry) { e.Source = "log" })}, 0, "source=log"},
		{"rule", []Entry{a}, []Entry{with(a, func(e *Entry) { e.Rule = "log.prompt" })}, 0, "rule=log.prompt"},
		{"detail", []Entry{a}, []Entry{with(a, func(e *Entry) { e.Detail = "Bash" })}, 0, `detail="Bash"`},
		{"title", []Entry{a}, []Entry{with(a, func(e *Entry) { e.Title = "fix it" })}, 0, `title="fix it"`},
		{"replay lacks a change", []Entry{a, b}, []Entry{a}, 1, "replayed: (none)"},
		{"replay has one more", []Entry{a}, []Entry{a, b}, 1, "recorded: (none)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Compare(tc.recorded, tc.replayed)
			if tc.at < 0 {
				if d != nil {
					t.Fatalf("diverged: %v", d)
				}
				return
			}
			if d == nil || d.Index != tc.at || !strings.Contains(d.Error(), tc.want) {
				t.Fatalf("got %v, want change %d with %q", d, tc.at, tc.want)
			}
		})
	}
}

// Recordings the replay once diverged on, each made by a live relay and
// minimised: replayed, they publish what they recorded.
func TestReplayReproducesRecording(t *testing.T) {
	for _, tc := range []struct{ file, why string }{
		// An Esc whose report (stamped when pressed) arrived after the
		// interrupt marker the agent wrote since: the live relay took the
		// marker alone (log.interrupt); applied at its press, the key
		// opened a window first (key.confirmed).
		{"key-reported-after-marker.rec.jsonl", "a key applied where its report arrived"},
		// A quiet period whose deadline passed while a log line (a tool
		// call, stamped after the deadline) was ahead of its run: live the
		// line went first and the quiet found the turn going on; run at
		// its deadline, it ended the turn (log.quiet_after_final).
		{"timer-run-after-a-later-line.rec.jsonl", "a timer run where the live relay ran it"},
		// Gemini CLI's new chat file, named by its SessionStart hook once
		// it existed: the recorded watcher read its first lines as history,
		// after start-up. Placed with the recording's first history, the
		// session was there before its hook. (Cut from a CI-like run's
		// TestGeminiResume, its tab T3 alone; that run's relay published
		// the hook's change twice more, for two history lines that changed
		// nothing, which it no longer does: those two are left out.)
		{"history-read-after-start.rec.jsonl", "history read after start-up where it was read"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			out, err := File(context.Background(), filepath.Join("testdata", tc.file), nil, Note{}, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Recorded) == 0 {
				t.Fatal("the recording holds no changes")
			}
			if err := out.Check(); err != nil {
				t.Fatalf("%s: %v", tc.why, err)
			}
		})
	}
}
