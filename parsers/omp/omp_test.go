package omp

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/parsertest"
)

// Lines as omp 18.2.3 writes them (testdata/captures, formats/pi.md §5.2).
const (
	lineTitle   = `{"type":"title","v":1,"title":"Fake study session","source":"auto","updatedAt":"2026-12-02T08:19:26.509Z","pad":"    "}`
	lineHeader  = `{"type":"session","version":3,"id":"01a235d6-1c3c-701f-bb95-1b71c325d6b4","timestamp":"2026-12-02T08:19:14.108Z","cwd":"/w"}`
	lineModel   = `{"type":"model_change","id":"e253adb1","parentId":null,"timestamp":"2026-12-02T08:19:14.660Z","model":"fake/fake-model","resolvedModelIsFallback":false}`
	lineRetitle = `{"type":"title_change","id":"3b587b19","parentId":"c58fdc9c","timestamp":"2026-12-02T08:18:17.786Z","title":"Fake study session","source":"auto"}`
	lineUser    = `{"type":"message","id":"29b83bde","parentId":"3b587b19","timestamp":"2026-12-02T08:18:17.858Z","message":{"role":"user","content":[{"type":"text","text":"say hello"}],"attribution":"user","timestamp":1796199497708}}`
	lineCall    = `{"type":"message","id":"a1","parentId":"29b83bde","timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_2","name":"bash","arguments":{"command":"echo hi"},"partialArgs":"{\"command\":\"echo hi\"}","streamIndex":0}],"stopReason":"toolUse"}}`
	lineStart   = `{"type":"custom","customType":"tool_execution_start","data":{"toolCallId":"call_2","toolName":"bash","startedAt":"t","args":{"command":"echo hi"}},"id":"a2","parentId":"a1","timestamp":"t"}`
	lineAborted = `{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-12-02T08:21:27.686Z","message":{"role":"assistant","content":[{"type":"text","text":"streaming slo"}],"stopReason":"aborted","errorMessage":"Interrupted by user"}}`
	lineExited  = `{"type":"message","id":"a4","parentId":"a3","timestamp":"t","message":{"role":"assistant","content":[],"stopReason":"aborted","errorMessage":"Previous OMP process exited before completing the turn."}}`
	lineExit    = `{"type":"custom","customType":"session_exit","data":{"reason":"dispose","kind":"normal","recordedAt":"t"},"id":"a5","parentId":"a4","timestamp":"t"}`
	lineOther   = `{"type":"custom","customType":"my-extension","data":{},"id":"a6","parentId":"a5","timestamp":"t"}`
)

func TestOmpLines(t *testing.T) {
	tests := []struct {
		name, line string
		want       parsertest.Want
		tool       string
	}{
		{"title record", lineTitle, parsertest.Want{Typ: "title"}, ""},
		{"header", lineHeader, parsertest.Want{Typ: "session", Session: "01a235d6-1c3c-701f-bb95-1b71c325d6b4"}, ""},
		{"model change", lineModel, parsertest.Want{Typ: "model_change"}, ""},
		{"title change", lineRetitle, parsertest.Want{Typ: "title_change"}, ""},
		{"prompt", lineUser, parsertest.Want{Kind: parsers.KindTurnStart, Typ: "message/user"}, ""},
		{"answer with a call", lineCall, parsertest.Want{Kind: parsers.KindActivity, Typ: "message/assistant"}, ""},
		{"tool start", lineStart, parsertest.Want{Kind: parsers.KindTool, Typ: "custom/tool_execution_start", Tool: "bash"}, `{"command":"echo hi"}`},
		{"interrupted", lineAborted, parsertest.Want{Kind: parsers.KindInterrupt, Typ: "message/assistant", Interrupt: parsers.InterruptAborted}, ""},
		{"predecessor's turn closed", lineExited, parsertest.Want{Kind: parsers.KindActivity, Typ: "message/assistant", Final: true}, ""},
		{"session exit", lineExit, parsertest.Want{Typ: "custom/session_exit"}, ""},
		{"extension's entry", lineOther, parsertest.Want{Typ: "custom"}, ""},
		{"python cell", `{"type":"message","id":"a","parentId":"b","timestamp":"t","message":{"role":"pythonExecution","code":"1"}}`, parsertest.Want{Typ: "message/pythonExecution"}, ""},
		{"mode change", `{"type":"mode_change","id":"a","parentId":"b","timestamp":"t","mode":"plan"}`, parsertest.Want{Typ: "mode_change"}, ""},
		{"tool start without data", `{"type":"custom","customType":"tool_execution_start","id":"a","parentId":"b","timestamp":"t"}`, parsertest.Want{Typ: "custom/tool_execution_start"}, ""},
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

// detect tells omp's files from pi's by what only omp writes; pi's lines,
// which omp writes too, are left to pi.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{lineTitle, true}, {lineRetitle, true}, {lineStart, true}, {lineExit, true},
		{lineHeader, false}, {lineUser, false}, {lineModel, false}, {lineOther, false},
		{`{"type":"title","title":"x"}`, false},
	} {
		v, err := fastjson.Parse(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		if got := detect(v); got != tc.want {
			t.Errorf("detect(%.50s) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

func TestClaims(t *testing.T) {
	for path, want := range map[string]bool{
		"/home/a/.omp/agent/sessions/-proj/2026-12-02T08-19-14-108Z_01a235d6.jsonl":     true,
		"/home/a/.omp/agent/sessions/--srv-x--/2026-12-02T08-19-14-108Z_01a235d6.jsonl": true,
		"/home/a/.pi/agent/sessions/--srv-x--/2026-12-02T08-19-14-108Z_01a235d6.jsonl":  false,
		"/home/a/.omp/agent/sessions/-proj/2026-12-02T08-19-14-108Z_01a235d6/x.jsonl":   false, // artifacts
	} {
		if got := claims(path); got != want {
			t.Errorf("claims(%s) = %v, want %v", path, got, want)
		}
	}
	l := Spec().Layout
	if l.WantDir(2, "2026-12-02T08-19-14-108Z_01a235d6") {
		t.Error("the artifacts directory beside a session file is walked")
	}
}

func TestResumes(t *testing.T) {
	p := NewParser()
	for _, tc := range []struct {
		line string
		want bool
	}{
		{lineUser, true}, {lineExited, false}, {lineExit, false}, {lineRetitle, false}, {lineAborted, false},
	} {
		ev, _ := p.Parse([]byte(tc.line))
		if got := resumes(ev); got != tc.want {
			t.Errorf("%.60s: resumes = %v, want %v", tc.line, got, tc.want)
		}
	}
}

func TestExtensionSource(t *testing.T) {
	src := extension.Source("/opt/it's \"here\"/logwatch")
	if bytes.Contains(src, []byte("__LOGWATCH_")) || !bytes.Contains(src, []byte(`const AGENT = "omp";`)) {
		t.Fatalf("extension:\n%s", src)
	}
	if got, ours := extension.Bin(src); !ours || got != "/opt/it's \"here\"/logwatch" {
		t.Errorf("Bin = %q, %v", got, ours)
	}
	for _, ev := range Spec().Hooks.Events {
		if !bytes.Contains(extensionTemplate, []byte(`"`+ev+`"`)) {
			t.Errorf("the extension never sends %s, which omp's Hooks.Events lists", ev)
		}
	}
	if bytes.Contains(extensionTemplate, []byte("pi extension")) {
		t.Error("omp's extension carries pi's marker: pi's uninstall would take it")
	}
}

// TestCaptures reads the real omp's files (testdata/captures/PROVENANCE.md):
// each line's evidence, written by hand from what each scenario did on
// screen, and the scan path equal to the full parse on every line.
func TestCaptures(t *testing.T) {
	meta := []string{"none title", "none session", "none model_change", "none thinking_level_change"}
	const tool = `tool custom/tool_execution_start bash {"command":"echo TOOL-START; sleep 2; echo TOOL-END"}`
	want := map[string][]string{
		"prompt-1":        append(meta, "turn_start message/user", "activity message/assistant final", "none title_change"),
		"tool-1":          append(meta, "turn_start message/user", "activity message/assistant", tool, "none title_change", "activity message/toolResult", "activity message/assistant final"),
		"approval-1":      append(meta, "turn_start message/user", "activity message/assistant", tool, "none title_change", "activity message/toolResult", "activity message/assistant final"),
		"esc-extension-1": append(meta, "turn_start message/user", "interrupt message/assistant aborted"),
		"esc-log-1":       append(meta, "turn_start message/user", "activity message/assistant final", "turn_start message/user", "none title_change", "interrupt message/assistant aborted"),
		"nohooks-1":       append(meta, "turn_start message/user", "activity message/assistant final", "turn_start message/user", "activity message/assistant final", "none title_change"),
		"quit-1":          append(meta, "turn_start message/user", "activity message/assistant final", "none custom/session_exit"),
		"compact-1":       append(meta, "turn_start message/user", "activity message/assistant final", "turn_start message/user", "activity message/assistant final", "compaction compaction"),
	}
	for name := range want {
		if line := parsertest.CaptureLines(t, name)[0]; len(line)+1 != TitleSlot {
			t.Errorf("%s: line 1 is %d bytes with its newline, want the title slot's %d", name, len(line)+1, TitleSlot)
		}
	}
	parsertest.Captures(t, func() parsers.Parser { return NewParser() }, describe, want)
}

func describe(ev parsers.Evidence) string {
	s := fmt.Sprintf("%s %s", ev.Kind, ev.Type)
	switch {
	case ev.Kind == parsers.KindTool:
		s += " " + ev.Tool + " " + string(ev.ToolInput)
	case ev.Kind == parsers.KindInterrupt:
		s += " " + ev.Interrupt
	case ev.Final:
		s += " final"
	}
	return strings.TrimSpace(s)
}

func FuzzOmpParse(f *testing.F) {
	for _, l := range []string{lineTitle, lineHeader, lineRetitle, lineUser, lineCall, lineStart, lineAborted, lineExited, lineExit} {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		parsertest.Fuzz(t, NewParser(), line, "aborted")
		parsertest.Same(t, func() parsers.Parser { return NewParser() }, "fuzz", [][]byte{line})
	})
}
