package opencode

import (
	"fmt"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/parsertest"
)

// Lines as the store reader writes event rows (formats/opencode.md §3.4).
const (
	lineCreated   = `{"type":"session.created.1","session":"ses_1","parent":"","seq":0,"rowid":1,"data":{"sessionID":"ses_1","info":{"id":"ses_1","directory":"/w","version":"1.18.33","title":"New session"}}}`
	lineUser      = `{"type":"message.updated.1","session":"ses_1","parent":"","seq":1,"rowid":2,"data":{"sessionID":"ses_1","info":{"id":"msg_u1","role":"user","time":{"created":1796182095188},"agent":"build"}}}`
	lineUserAgain = `{"type":"message.updated.1","session":"ses_1","parent":"","seq":9,"rowid":10,"data":{"sessionID":"ses_1","info":{"id":"msg_u1","role":"user","time":{"created":1796182095188},"summary":{"diffs":[]}}}}`
	lineAnswer    = `{"type":"message.updated.1","session":"ses_1","parent":"","seq":3,"rowid":4,"data":{"sessionID":"ses_1","info":{"id":"msg_a1","parentID":"msg_u1","role":"assistant","agent":"build","time":{"created":1796182095341}}}}`
	lineStop      = `{"type":"message.updated.1","session":"ses_1","parent":"","seq":7,"rowid":8,"data":{"sessionID":"ses_1","info":{"id":"msg_a1","role":"assistant","time":{"created":1796182095341},"finish":"stop"}}}`
	lineDone      = `{"type":"message.updated.1","session":"ses_1","parent":"","seq":8,"rowid":9,"data":{"sessionID":"ses_1","info":{"id":"msg_a1","role":"assistant","time":{"created":1796182095341,"completed":1796182102428},"finish":"stop"}}}`
	lineToolCalls = `{"type":"message.updated.1","session":"ses_1","parent":"","seq":8,"rowid":9,"data":{"sessionID":"ses_1","info":{"id":"msg_a1","role":"assistant","time":{"created":1,"completed":2},"finish":"tool-calls"}}}`
	lineAborted   = `{"type":"message.updated.1","session":"ses_1","parent":"","seq":8,"rowid":9,"data":{"sessionID":"ses_1","info":{"id":"msg_a1","role":"assistant","time":{"created":1,"completed":2},"error":{"name":"MessageAbortedError","data":{"message":"Aborted"}}}}}`
	lineAPIError  = `{"type":"message.updated.1","session":"ses_1","parent":"","seq":8,"rowid":9,"data":{"sessionID":"ses_1","info":{"id":"msg_a1","role":"assistant","time":{"created":1,"completed":2},"error":{"name":"APIError","data":{"message":"bad","statusCode":400}}}}}`
	lineCompacted = `{"type":"message.updated.1","session":"ses_1","parent":"","seq":8,"rowid":9,"data":{"sessionID":"ses_1","info":{"id":"msg_a2","role":"assistant","mode":"compaction","agent":"compaction","summary":true,"time":{"created":1,"completed":2},"finish":"stop"}}}`
	lineToolRun   = `{"type":"message.part.updated.1","session":"ses_1","parent":"","seq":5,"rowid":6,"data":{"sessionID":"ses_1","part":{"id":"prt_1","messageID":"msg_a1","sessionID":"ses_1","type":"tool","tool":"bash","callID":"c1","state":{"status":"running","input":{"command":"echo hi","description":"Print hi"},"time":{"start":1}}},"time":1}}`
	lineToolDone  = `{"type":"message.part.updated.1","session":"ses_1","parent":"","seq":6,"rowid":7,"data":{"sessionID":"ses_1","part":{"id":"prt_1","type":"tool","tool":"bash","state":{"status":"completed","input":{"command":"echo hi"},"output":"hi\n"}}}}`
	lineText      = `{"type":"message.part.updated.1","session":"ses_1","parent":"","seq":4,"rowid":5,"data":{"sessionID":"ses_1","part":{"id":"prt_0","type":"text","text":""}}}`
)

func TestOpenCodeLines(t *testing.T) {
	tests := []struct {
		name  string
		lines []string // read in order by one parser; the last is checked
		want  parsertest.Want
		tool  string
	}{
		{"session created", []string{lineCreated}, parsertest.Want{Typ: "session.created.1", Session: "ses_1"}, ""},
		{"prompt", []string{lineUser}, parsertest.Want{Kind: parsers.KindTurnStart, Typ: "message.updated.1/user"}, ""},
		{"the prompt's row rewritten at the turn's end", []string{lineUser, lineUserAgain}, parsertest.Want{Typ: "message.updated.1/user"}, ""},
		{"answer begun", []string{lineAnswer}, parsertest.Want{Kind: parsers.KindActivity, Typ: "message.updated.1/assistant"}, ""},
		{"last step written", []string{lineStop}, parsertest.Want{Kind: parsers.KindActivity, Typ: "message.updated.1/assistant", Final: true}, ""},
		{"answer completed", []string{lineDone}, parsertest.Want{Kind: parsers.KindTurnEnd, Typ: "message.updated.1/assistant", End: parsers.EndNormal}, ""},
		{"a step that called tools", []string{lineToolCalls}, parsertest.Want{Kind: parsers.KindActivity, Typ: "message.updated.1/assistant", Final: true}, ""},
		{"interrupted", []string{lineAborted}, parsertest.Want{Kind: parsers.KindInterrupt, Typ: "message.updated.1/assistant", Interrupt: parsers.InterruptAborted}, ""},
		{"provider error", []string{lineAPIError}, parsertest.Want{Kind: parsers.KindTurnEnd, Typ: "message.updated.1/assistant", End: parsers.EndAPIError}, ""},
		{"compaction over", []string{lineCompacted}, parsertest.Want{Kind: parsers.KindCompaction, Typ: "message.updated.1/assistant"}, ""},
		{"tool running", []string{lineToolRun}, parsertest.Want{Kind: parsers.KindTool, Typ: "message.part.updated.1/tool", Tool: "bash"}, `{"command":"echo hi"}`},
		{"tool completed", []string{lineToolDone}, parsertest.Want{Kind: parsers.KindActivity, Typ: "message.part.updated.1/tool"}, ""},
		{"text streaming begun", []string{lineText}, parsertest.Want{Kind: parsers.KindActivity, Typ: "message.part.updated.1/text"}, ""},
		{"a part type this release lacks", []string{`{"type":"message.part.updated.1","session":"s","seq":1,"rowid":1,"data":{"part":{"type":"hologram"}}}`},
			parsertest.Want{Typ: "message.part.updated.1/hologram", Unknown: true}, ""},
		{"an event type this release lacks", []string{`{"type":"session.teleported.2","session":"s","seq":1,"rowid":1,"data":{}}`},
			parsertest.Want{Typ: "session.teleported.2", Unknown: true}, ""},
		{"a message of another role", []string{`{"type":"message.updated.1","session":"s","seq":1,"rowid":1,"data":{"info":{"id":"m","role":"system"}}}`},
			parsertest.Want{Typ: "message.updated.1/?", Unknown: true}, ""},
		{"a row without data", []string{`{"type":"message.updated.1","session":"s","seq":1,"rowid":1}`},
			parsertest.Want{Typ: "message.updated.1", Unknown: true}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser()
			var ev parsers.Evidence
			for _, l := range tc.lines {
				var err error
				if ev, err = p.Parse([]byte(l)); err != nil {
					t.Fatal(err)
				}
			}
			parsertest.Check(t, ev, tc.want)
			if string(ev.ToolInput) != tc.tool {
				t.Errorf("tool input = %s, want %s", ev.ToolInput, tc.tool)
			}
		})
	}
}

// A parser forgets the oldest prompts it saw, never the newest: a prompt's
// rewrite at its turn's end is never taken for a new turn.
func TestOpenCodeSeenBound(t *testing.T) {
	p := NewParser()
	ev := parsers.Evidence{}
	for i := range 3 * seenMax {
		id := []byte(fmt.Sprintf("msg_%012x%014d", i, i))
		if !p.first(id, &ev) {
			t.Fatalf("prompt %d taken as seen", i)
		}
		if p.first(id, &ev) {
			t.Fatalf("prompt %d's rewrite taken as a new turn", i)
		}
	}
	if n := len(p.old) + len(p.cur); n > seenMax {
		t.Fatalf("%d prompts remembered, bound %d", n, seenMax)
	}
}

func TestOpenCodeMalformed(t *testing.T) {
	for _, l := range []string{"", "not json", `["a"]`, `{"type":`} {
		if _, err := NewParser().Parse([]byte(l)); err != parsers.ErrMalformed {
			t.Errorf("%q: err %v, want ErrMalformed", l, err)
		}
	}
}

func FuzzOpenCodeParse(f *testing.F) {
	for _, l := range []string{lineCreated, lineUser, lineAnswer, lineStop, lineDone, lineToolCalls, lineAborted, lineAPIError, lineCompacted, lineToolRun, lineText} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		parsertest.Fuzz(t, NewParser(), line, abortedError)
	})
}

// A prompt is stamped when its Enter was read, as near as the database
// tells: a new session's first by the session's row (its own is made after
// the process's lazy start), a later one by its own.
func TestOpenCodePromptStamps(t *testing.T) {
	created := `{"type":"session.created.1","session":"ses_1","parent":"","seq":0,"rowid":1,"data":{"info":{"id":"ses_1","directory":"/w","time":{"created":1796218799878}}}}`
	first := `{"type":"message.updated.1","session":"ses_1","parent":"","seq":1,"rowid":2,"data":{"info":{"id":"msg_1","role":"user","time":{"created":1796218802989}}}}`
	next := `{"type":"message.updated.1","session":"ses_1","parent":"","seq":9,"rowid":10,"data":{"info":{"id":"msg_2","role":"user","time":{"created":1796218810000}}}}`
	p := NewParser()
	var got []string
	for _, l := range []string{created, first, next} {
		ev, err := p.Parse([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.At)
	}
	want := []string{"", "2026-12-02T13:39:59.878Z", "2026-12-02T13:40:10Z"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("stamp %d = %q, want %q", i, got[i], want[i])
		}
	}
}
