package gemini

import (
	"fmt"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/parsertest"
)

// describe is one line's evidence as the capture tables below spell it.
func describe(ev parsers.Evidence) string {
	s := fmt.Sprintf("%s %s", ev.Kind, ev.Type)
	switch {
	case ev.Kind == parsers.KindTool:
		s += " " + ev.Tool + " " + string(ev.ToolInput)
	case ev.Kind == parsers.KindInterrupt:
		s += " " + ev.Interrupt
	case ev.Final && ev.End != "":
		s += " final " + string(ev.End)
	case ev.Final:
		s += " final"
	}
	return s
}

// TestCaptures reads the real Gemini CLI's chat files
// (testdata/captures/PROVENANCE.md): each line's evidence, written by hand
// from what the scenario did on screen.
func TestCaptures(t *testing.T) {
	const (
		head    = "none session"
		ctx     = "none $set/messages"
		msgs    = "none $set/messages"
		upd     = "none $set/lastUpdated"
		prompt  = "turn_start user"
		answer  = "activity gemini final"
		cancel  = "interrupt info user"
		replayU = "none user"
		replayG = "none gemini"
	)
	loop := []string{msgs, "activity user", upd, msgs, "activity info final api_error", upd}
	session1 := []string{head, ctx,
		// hello alpha: answered.
		prompt, upd, answer, upd,
		// please TOOL now: the answer before the approval dialog looks
		// final; Allow once; the same answer again with its call, the
		// result, the closing answer.
		prompt, upd, answer, upd,
		`tool gemini run_shell_command {"command":"touch approved.txt"}`, "activity user", upd, answer, upd,
		// again TOOL reject: Esc at the dialog; the call cancelled, the
		// marker, then the history re-appended with new ids and its $set.
		prompt, upd, answer, upd, "activity gemini", cancel, upd,
		replayU, upd, replayG, upd, replayU, upd, replayG, upd, replayU, upd, replayG, upd, msgs,
	}
	// Two SLOW prompts the CLI halted as a loop (the fake's first slow
	// answer repeated itself); Esc and Ctrl+C came after the halt.
	session1 = append(session1, prompt, upd)
	session1 = append(session1, loop...)
	session1 = append(session1, prompt, upd)
	session1 = append(session1, loop...)
	// gemini --resume latest: the id, the history.
	session1 = append(session1, "none $set/sessionId", msgs,
		// SLOW, Esc mid-stream; SLOW, Ctrl+C mid-stream.
		prompt, upd, cancel, upd, msgs,
		prompt, upd, cancel, upd, msgs,
		// /compress: the id, the compressed history, the empty info.
		"none $set/sessionId", msgs, "compaction info", upd)
	want := map[string][]string{
		"session-1":     session1,
		"resume-stub-1": {head, ctx},
		// hello beta answered; SLOW for kill, then kill -9: the prompt
		// stays the last line.
		"kill9-1": {head, ctx, prompt, upd, answer, upd, prompt, upd},
		// TestGeminiTool: Allow once, then Esc at the dialog.
		"suite-tool-1": {head, ctx,
			prompt, upd, answer, upd, `tool gemini run_shell_command {"command":"touch approved.txt"}`, "activity user", upd, answer, upd,
			prompt, upd, answer, upd, "activity gemini", cancel, upd,
			replayU, upd, replayG, upd, replayU, upd, replayG, upd, msgs},
		// TestGeminiCompress: "Compression was not beneficial for this
		// history size." is an info without text as well, and no history.
		"suite-compress-1": {head, ctx, prompt, upd, answer, upd, "compaction info", upd},
	}
	parsertest.Captures(t, func() parsers.Parser { return NewParser() }, describe, want)
}

// TestCaptureIdentity: the header names the session; the prompts are the
// titles of a session the CLI never titles.
func TestCaptureIdentity(t *testing.T) {
	p := NewParser()
	ev, err := p.Parse(parsertest.CaptureLines(t, "session-1")[0])
	if err != nil || ev.SessionID != "7389ec91-4f54-47e3-a648-bbe004ca0b62" {
		t.Fatalf("header: %+v %v", ev, err)
	}
	_, prompts := parsertest.Titles(t, NewParser(), "testdata/captures/session-1.jsonl")
	if len(prompts) == 0 || prompts[0] != "hello alpha" || strings.Contains(strings.Join(prompts, "|"), "session_context") {
		t.Errorf("prompts %q", prompts)
	}
}

// TestEdits: the document edits say nothing of the turn; one the parser
// does not know is drift, never a state.
func TestEdits(t *testing.T) {
	for line, want := range map[string]string{
		`{"$set":{"summary":"<state_snapshot> x </state_snapshot>","memoryScratchpad":{"version":1}}}`: "none $set/summary",
		`{"$set":{"memoryScratchpad":{"version":1}}}`:                                                  "none $set/memoryScratchpad",
		`{"$set":{"lastUpdated":"t","messages":[]}}`:                                                   "none $set/messages",
		`{"$set":{"lastUpdated":"t","sessionId":"s"}}`:                                                 "none $set/sessionId",
		`{"$rewindTo":"m1"}`:                          "none $rewindTo",
		`{"$set":{"brandNew":1}}`:                     "none $set/brandNew unknown",
		`{"$set":[]}`:                                 "none $set unknown",
		`{"id":"a","type":"brand_new","content":"x"}`: "none brand_new unknown",
	} {
		ev, err := NewParser().Parse([]byte(line))
		got := describe(ev)
		if ev.Unknown {
			got += " unknown"
		}
		if err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", line, got, err, want)
		}
	}
}
