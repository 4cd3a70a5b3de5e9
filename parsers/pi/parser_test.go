package pi

import (
	"bytes"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/parsertest"
)

// The lines of formats/pi.md §2.3 and §2.5, as pi 0.73.1 writes them.
const (
	lineHeader   = `{"type":"session","version":3,"id":"01a234c7-68f4-734a-9be7-38ca90876b79","timestamp":"2026-12-02T03:23:33.493Z","cwd":"/path/to/proj"}`
	lineFork     = `{"type":"session","version":3,"id":"01a234c8-0000-7000-8000-000000000001","timestamp":"2026-12-02T03:24:00.000Z","cwd":"/path/to/proj","parentSession":"/home/u/.pi/agent/sessions/--path-to-proj--/x.jsonl"}`
	lineModel    = `{"type":"model_change","id":"b91aad9f","parentId":null,"timestamp":"2026-12-02T03:23:37.100Z","provider":"fake","modelId":"fake-model"}`
	lineThink    = `{"type":"thinking_level_change","id":"84d732df","parentId":"b91aad9f","timestamp":"2026-12-02T03:23:37.100Z","thinkingLevel":"off"}`
	lineUser     = `{"type":"message","id":"17dfac1e","parentId":"84d732df","timestamp":"2026-12-02T03:23:37.245Z","message":{"role":"user","content":[{"type":"text","text":"hello alpha"}],"timestamp":1796181817245}}`
	lineAnswer   = `{"type":"message","id":"ebe49f91","parentId":"17dfac1e","timestamp":"2026-12-02T03:23:37.375Z","message":{"role":"assistant","content":[{"type":"text","text":"Hello from the fake model."}],"api":"openai-completions","provider":"fake","model":"fake-model","usage":{"input":1391,"output":17,"cacheRead":0,"cacheWrite":0,"totalTokens":1408},"stopReason":"stop","timestamp":1796181817375,"responseId":"req-2e26ddaa"}}`
	lineToolCall = `{"type":"message","id":"aa000001","parentId":"ebe49f91","timestamp":"2026-12-02T03:23:40.000Z","message":{"role":"assistant","content":[{"type":"text","text":"I will run a command. "},{"type":"toolCall","id":"call_0fbaf42602","name":"bash","arguments":{"command":"echo TOOL-START; sleep 2; echo TOOL-END","timeout":30}}],"stopReason":"toolUse","timestamp":1796181820000}}`
	lineResult   = `{"type":"message","id":"aa000002","parentId":"aa000001","timestamp":"2026-12-02T03:23:42.000Z","message":{"role":"toolResult","toolCallId":"call_0fbaf42602","toolName":"bash","content":[{"type":"text","text":"TOOL-START\nTOOL-END\n"}],"isError":false,"timestamp":1796181822000}}`
	lineAborted  = `{"type":"message","id":"aa000003","parentId":"aa000002","timestamp":"2026-12-02T03:23:43.000Z","message":{"role":"assistant","content":[{"type":"text","text":"streaming slo"}],"stopReason":"aborted","errorMessage":"Operation aborted","timestamp":1796181823000}}`
	lineAbortEmp = `{"type":"message","id":"aa000004","parentId":"aa000003","timestamp":"2026-12-02T03:23:44.000Z","message":{"role":"assistant","content":[],"stopReason":"aborted","errorMessage":"Operation aborted","timestamp":1796181824000}}`
	lineError    = `{"type":"message","id":"aa000005","parentId":"aa000004","timestamp":"2026-12-02T03:23:45.000Z","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"500 fake server error","timestamp":1796181825000}}`
	lineCompact  = `{"type":"compaction","id":"91fd5946","parentId":"1b433174","timestamp":"2026-12-02T03:23:46.000Z","summary":"## Goal\n…","firstKeptEntryId":"1b433174","tokensBefore":8713,"details":{"readFiles":[],"modifiedFiles":[]},"fromHook":false}`
	lineBranch   = `{"type":"branch_summary","id":"e2997f2e","parentId":"84d732df","timestamp":"2026-12-02T03:23:47.000Z","fromId":"84d732df","summary":"The user explored a different branch.","details":{},"fromHook":false}`
)

func TestPiLines(t *testing.T) {
	t.Setenv("PI_CODING_AGENT_DIR", t.TempDir()) // pi's default retry settings
	tests := []struct {
		name, line string
		want       parsertest.Want
		tool       string // the ToolInput, when a tool
	}{
		{"header", lineHeader, parsertest.Want{Typ: "session", Session: "01a234c7-68f4-734a-9be7-38ca90876b79"}, ""},
		{"fork header", lineFork, parsertest.Want{Typ: "session", Session: "01a234c8-0000-7000-8000-000000000001"}, ""},
		{"v1 header", `{"type":"session","id":"v1-id","timestamp":"t","cwd":"/w"}`, parsertest.Want{Typ: "session", Session: "v1-id"}, ""},
		{"model change", lineModel, parsertest.Want{Typ: "model_change"}, ""},
		{"thinking level", lineThink, parsertest.Want{Typ: "thinking_level_change"}, ""},
		{"prompt", lineUser, parsertest.Want{Kind: parsers.KindTurnStart, Typ: "message/user"}, ""},
		{"answer", lineAnswer, parsertest.Want{Kind: parsers.KindActivity, Typ: "message/assistant", Final: true}, ""},
		{"length", strings.Replace(lineAnswer, `"stop"`, `"length"`, 1), parsertest.Want{Kind: parsers.KindActivity, Typ: "message/assistant", Final: true}, ""},
		{"tool call", lineToolCall, parsertest.Want{Kind: parsers.KindTool, Typ: "message/assistant", Tool: "bash"}, `{"command":"echo TOOL-START; sleep 2; echo TOOL-END"}`},
		{"tool call, stop", strings.Replace(lineToolCall, `"toolUse"`, `"stop"`, 1), parsertest.Want{Kind: parsers.KindTool, Typ: "message/assistant", Tool: "bash"}, `{"command":"echo TOOL-START; sleep 2; echo TOOL-END"}`},
		{"read tool", `{"type":"message","id":"a","parentId":"b","timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"read","arguments":{"path":"src/a.go"}}],"stopReason":"toolUse"}}`,
			parsertest.Want{Kind: parsers.KindTool, Typ: "message/assistant", Tool: "read"}, `{"path":"src/a.go"}`},
		{"escaped tool call", `{"type":"message","id":"a","parentId":"b","timestamp":"t","message":{"role":"assistant","content":[{"type":"tool\u0043all","name":"ls","arguments":{}}],"stopReason":"toolUse"}}`,
			parsertest.Want{Kind: parsers.KindTool, Typ: "message/assistant", Tool: "ls"}, `{}`},
		{"tool result", lineResult, parsertest.Want{Kind: parsers.KindActivity, Typ: "message/toolResult"}, ""},
		{"aborted", lineAborted, parsertest.Want{Kind: parsers.KindInterrupt, Typ: "message/assistant", Interrupt: parsers.InterruptAborted}, ""},
		{"aborted after tool", lineAbortEmp, parsertest.Want{Kind: parsers.KindInterrupt, Typ: "message/assistant", Interrupt: parsers.InterruptAborted}, ""},
		{"aborted with a partial call", strings.Replace(lineToolCall, `"toolUse"`, `"aborted"`, 1), parsertest.Want{Kind: parsers.KindInterrupt, Typ: "message/assistant", Interrupt: parsers.InterruptAborted}, ""},
		{"error", lineError, parsertest.Want{Kind: parsers.KindActivity, Typ: "message/assistant", Retry: true}, ""},
		{"error not retried", strings.Replace(lineError, "500 fake server error", "400 bad request", 1), parsertest.Want{Kind: parsers.KindActivity, Typ: "message/assistant", Final: true, End: parsers.EndAPIError}, ""},
		{"compaction", lineCompact, parsertest.Want{Kind: parsers.KindCompaction, Typ: "compaction"}, ""},
		{"branch summary", lineBranch, parsertest.Want{Typ: "branch_summary"}, ""},
		{"label", `{"type":"label","id":"a","parentId":"b","timestamp":"t","targetId":"b","label":"x"}`, parsertest.Want{Typ: "label"}, ""},
		{"session info", `{"type":"session_info","id":"a","parentId":"b","timestamp":"t","name":"x"}`, parsertest.Want{Typ: "session_info"}, ""},
		{"custom", `{"type":"custom","id":"a","parentId":"b","timestamp":"t","customType":"x","data":{}}`, parsertest.Want{Typ: "custom"}, ""},
		{"custom message", `{"type":"custom_message","id":"a","parentId":"b","timestamp":"t","customType":"x","content":"hi","display":true}`, parsertest.Want{Typ: "custom_message"}, ""},
		{"user's shell command", `{"type":"message","id":"a","parentId":"b","timestamp":"t","message":{"role":"bashExecution","command":"ls","output":"a"}}`, parsertest.Want{Typ: "message/bashExecution"}, ""},
		{"v2 hook message", `{"type":"message","id":"a","parentId":"b","timestamp":"t","message":{"role":"hookMessage","content":"x"}}`, parsertest.Want{Typ: "message/hookMessage"}, ""},
		{"unknown type", `{"type":"brand_new","id":"a","parentId":"b","timestamp":"t"}`, parsertest.Want{Typ: "brand_new", Unknown: true}, ""},
		{"unknown role", `{"type":"message","id":"a","parentId":"b","timestamp":"t","message":{"role":"oracle","content":[]}}`, parsertest.Want{Typ: "message/oracle", Unknown: true}, ""},
		{"message without role", `{"type":"message","id":"a","parentId":"b","timestamp":"t","message":"x"}`, parsertest.Want{Typ: "message/", Unknown: true}, ""},
		{"escaped prompt type", `{"type":"m\u0065ssage","id":"a","parentId":"b","timestamp":"t","message":{"role":"user","content":[]}}`, parsertest.Want{Kind: parsers.KindTurnStart, Typ: "message/user"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := NewParser().Parse([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			parsertest.Check(t, ev, tc.want)
			if string(ev.ToolInput) != tc.tool {
				t.Errorf("tool input = %s, want %s", ev.ToolInput, tc.tool)
			}
			parsertest.Same(t, func() parsers.Parser { return NewParser() }, tc.name, [][]byte{[]byte(tc.line)})
		})
	}
}

func TestPiIdentityAndTime(t *testing.T) {
	p := NewParser()
	ev, _ := p.Parse([]byte(lineHeader))
	if ev.Cwd != "/path/to/proj" || ev.At != "2026-12-02T03:23:33.493Z" {
		t.Fatalf("header: cwd %q at %q", ev.Cwd, ev.At)
	}
	// Only the header names the session: an entry's id is the tree's.
	ev, _ = p.Parse([]byte(lineUser))
	if ev.SessionID != "" || ev.Cwd != "" || ev.At != "2026-12-02T03:23:37.245Z" {
		t.Fatalf("entry: %+v", ev)
	}
}

func TestPiMalformed(t *testing.T) {
	for _, line := range []string{``, `   `, "\x00", `{"type":"message"`, `[1]`, `"s"`, `{"a":1} x`, `{"type":"message",}`} {
		if _, err := NewParser().Parse([]byte(line)); err != parsers.ErrMalformed {
			t.Errorf("%q: err = %v, want ErrMalformed", line, err)
		}
	}
}

func TestPiDetect(t *testing.T) {
	var p fastjson.Parser
	for _, tc := range []struct {
		line string
		want bool
	}{
		{lineHeader, true}, {lineModel, true}, {lineUser, true}, {lineCompact, true}, {lineBranch, true},
		{`{"type":"session","version":1,"id":"x","timestamp":"t","cwd":"/w"}`, true},
		// Codex's bare items and Claude's lines are not pi's.
		{`{"type":"message","role":"user","content":[]}`, false},
		{`{"type":"compaction","encrypted_content":"x"}`, false},
		{`{"type":"user","parentUuid":null,"sessionId":"s"}`, false},
		{`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}`, false},
		{`{"type":"session"}`, false},
	} {
		v, err := p.Parse(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		if got := detect(v); got != tc.want {
			t.Errorf("%s: detect = %v, want %v", tc.line, got, tc.want)
		}
	}
}

func TestPiLayout(t *testing.T) {
	s := Spec()
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/h/.pi/agent/sessions/--home-alice-proj--/2026-12-02T03-23-33-493Z_01a234c7-68f4-734a-9be7-38ca90876b79.jsonl", true},
		{"/elsewhere/--tmp-x--/2026-12-02T03-23-33-493Z_01a234c7.jsonl", true},
		{"/h/.claude/projects/-home-alice-proj/0b3c.jsonl", false},
		{"/h/.codex/sessions/2026/12/02/rollout-2026-12-02T03-23-33-0b3c.jsonl", false},
	} {
		if got := s.Layout.Claims(tc.path); got != tc.want {
			t.Errorf("claims %s = %v, want %v", tc.path, got, tc.want)
		}
	}
	if !s.Layout.WantDir(1, "--home-alice-proj--") || s.Layout.WantDir(2, "x") ||
		!s.Layout.WantFile(2, "a_b.jsonl") || s.Layout.WantFile(1, "a_b.jsonl") || s.Layout.WantFile(2, "a_b.json") {
		t.Error("layout: want --<cwd>--/<ts>_<uuid>.jsonl")
	}
	if id, sub := s.Layout.SessionOf("/r/--w--/2026_01a234bb-b442-73ba-be36-2ce97d4f6800.jsonl"); id != "" || sub {
		t.Errorf("session of a path = %q: the header names it (a fork's file name may not)", id)
	}
}

func TestPiResumes(t *testing.T) {
	p := NewParser()
	for _, tc := range []struct {
		line string
		want bool
	}{
		{lineUser, true}, {lineModel, true}, {lineCompact, true}, {lineBranch, true},
		{lineAnswer, false}, {lineResult, false}, {lineAborted, false},
		{`{"type":"brand_new","id":"a","parentId":"b"}`, false},
	} {
		ev, _ := p.Parse([]byte(tc.line))
		if got := resumes(ev); got != tc.want {
			t.Errorf("%.60s: resumes = %v, want %v", tc.line, got, tc.want)
		}
	}
}

func TestExtensionSource(t *testing.T) {
	for _, bin := range []string{"/usr/local/bin/logwatch", `/opt/it's "here"/logwatch`, "/tmp/\u2028/logwatch"} {
		src := extension.Source(bin)
		if bytes.Contains(src, []byte("__LOGWATCH_")) || !bytes.Contains(src, []byte(`const AGENT = "pi";`)) {
			t.Fatalf("extension for %q:\n%s", bin, src)
		}
		got, ours := extension.Bin(src)
		if !ours || got != bin {
			t.Errorf("Bin = %q, %v; want %q, true", got, ours, bin)
		}
	}
	if _, ours := extension.Bin([]byte("export default function (pi) {}\n")); ours {
		t.Error("a user's extension taken for logwatch's")
	}
	for _, ev := range Spec().Hooks.Events {
		if !bytes.Contains(extensionTemplate, []byte(`"`+ev+`"`)) {
			t.Errorf("the extension never sends %s, which pi's Hooks.Events lists", ev)
		}
	}
}

func FuzzPiParse(f *testing.F) {
	for _, l := range []string{lineHeader, lineUser, lineAnswer, lineToolCall, lineResult, lineAborted, lineError, lineCompact} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		parsertest.Fuzz(t, NewParser(), line, "aborted")
		parsertest.Same(t, func() parsers.Parser { return NewParser() }, "fuzz", [][]byte{line})
	})
}
