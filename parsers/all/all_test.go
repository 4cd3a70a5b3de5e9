package all_test

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/logwatch/logwatch/parsers/all"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/parsers/codex"
	"github.com/logwatch/logwatch/parsers/gemini"
	"github.com/logwatch/logwatch/parsers/parsertest"
	"github.com/valyala/fastjson"
)

func TestToolInput(t *testing.T) {
	ev, _ := codex.NewCodex().Parse([]byte(`{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Update File: a.go\n"}}`))
	if string(ev.ToolInput) != `{"command":"*** Begin Patch\n*** Update File: a.go\n"}` {
		t.Fatalf("custom tool input = %s", ev.ToolInput)
	}
	ev, _ = claude.NewClaude().Parse([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"/w/a.go"}}]}}`))
	if string(ev.ToolInput) != `{"file_path":"/w/a.go"}` {
		t.Fatalf("claude tool input = %s", ev.ToolInput)
	}
}

func TestMalformed(t *testing.T) {
	for _, line := range []string{``, `   `, "\x00\x00\x00", `{"type":"user"`, `[1,2]`, `"str"`, `{"a":1} trailing`, `{"type":"user",}`} {
		for _, p := range []parsers.Parser{claude.NewClaude(), codex.NewCodex()} {
			if _, err := p.Parse([]byte(line)); !errors.Is(err, parsers.ErrMalformed) {
				t.Errorf("%s %q: err = %v, want ErrMalformed", p.Agent(), line, err)
			}
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		line string
		want parsers.Agent
	}{
		{`{"type":"user","message":{"content":"x"}}`, claude.Name},
		{`{"type":"summary","summary":"t","leafUuid":"x"}`, claude.Name},
		{`{"type":"file-history-snapshot","messageId":"m"}`, claude.Name},
		{`{"type":"brand-new-meta","sessionId":"s"}`, claude.Name},
		{`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}`, codex.Name},
		{`{"timestamp":"t","type":"response_item","payload":{"type":"message"}}`, codex.Name},
		{`{"id":"x","timestamp":"t","instructions":"..."}`, codex.Name},
		{`{"record_type":"state"}`, codex.Name},
		{`{"type":"message","role":"user","content":[]}`, codex.Name},
		{`{"hello":"world"}`, parsers.AgentUnknown},
		{`not json`, parsers.AgentUnknown},
		{`{"type":"user","payload":{}}`, claude.Name},
		// Gemini CLI's lines pass Claude Code's broad test: its own goes first.
		{`{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main"}`, gemini.Name},
		{`{"id":"a","timestamp":"t","type":"user","content":[{"text":"hi"}]}`, gemini.Name},
		{`{"$set":{"lastUpdated":"t"}}`, gemini.Name},
		{`{"type":"user","sessionId":"s","uuid":"u","message":{"content":"hi"}}`, claude.Name},
	}
	var d parsers.Detector
	for _, tc := range tests {
		if got := d.Line([]byte(tc.line)); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.line, got, tc.want)
		}
	}
}

// TestRealworldNeverFails parses every real sample line: no line of a real
// agent log is malformed, and the first lines detect the right agent. The
// captured hook payloads (hook-payloads.jsonl) are not a log: no line of
// them may be taken for one.
func TestRealworldNeverFails(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "realworld")
	for _, agent := range []parsers.Agent{claude.Name, codex.Name} {
		files, _ := filepath.Glob(filepath.Join(root, string(agent), "*", "*.jsonl"))
		more, _ := filepath.Glob(filepath.Join(root, string(agent), "*.jsonl"))
		files = append(files, more...)
		if len(files) == 0 {
			testsupport.Missing(t, "no samples under %s", root)
		}
		for _, f := range files {
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(fh)
			sc.Buffer(make([]byte, 1<<20), 64<<20)
			p := parsers.New(agent)
			var d parsers.Detector
			n := 0
			if filepath.Base(f) == "hook-payloads.jsonl" {
				for sc.Scan() {
					if got := d.Line(sc.Bytes()); got != parsers.AgentUnknown {
						t.Errorf("%s: a hook payload detected as %s", f, got)
					}
					n++
				}
				fh.Close()
				if n == 0 {
					t.Errorf("%s: empty", f)
				}
				continue
			}
			for sc.Scan() {
				n++
				if n == 1 {
					if got := d.Line(sc.Bytes()); got != agent && !strings.Contains(f, "subagents") {
						t.Errorf("%s: line 1 detected as %s", f, got)
					}
				}
				if _, err := p.Parse(sc.Bytes()); err != nil {
					t.Errorf("%s:%d: %v", f, n, err)
				}
			}
			fh.Close()
		}
	}
}

// TestScanPathMatchesParse runs both parsers over every real sample and
// held-out case (each through both parsers: a file detected as one agent may
// hold the other's lines) and requires the evidence of the full parse.
func TestScanPathMatchesParse(t *testing.T) {
	var files []string
	for _, root := range []string{"../../../shared/realworld", "../../testdata/verify", "../../testdata/replay"} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
				files = append(files, path)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("no samples")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(raw, []byte("\n"))
		for _, agent := range []parsers.Agent{claude.Name, codex.Name} {
			parsertest.Same(t, parsers.Lookup(agent).NewParser, f, lines)
		}
	}
}

func FuzzScanPathMatchesParse(f *testing.F) {
	f.Add([]byte(`{"timestamp":"t","type":"event_msg","payload":{"type":"context_compacted"}}`),
		[]byte(`{"timestamp":"t","type":"compacted","payload":{"message":""}}`))
	f.Add([]byte(`{"type":"attachment","attachment":{}}`), []byte(`{"type":"user","message":{"content":"x"}}`))
	f.Add([]byte(`{"timestamp":"t","type":"session_meta","payload":{"id":"a"}}`),
		[]byte(`{"timestamp":"u","type":"session_meta","payload":{"id":"b"}}`))
	f.Add([]byte(`{"type":"user","sessionId":"s","isSidechain":false,"message":{"content":[{"type":"tool_result","content":"[Request interrupted by user]"}]},"timestamp":"t"}`),
		[]byte(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]},"isMeta":true}`))
	f.Add([]byte(`{"type":"user","cwd":"/w","message":{"content":"<command-name>/model</command-name>"},"version":"2.1.3"}`),
		[]byte(`{"type":"user","message":{"content":[{"type":"image"},{"type":"text","text":"a\nb"}]}}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		for _, agent := range []parsers.Agent{claude.Name, codex.Name} {
			parsertest.Same(t, parsers.Lookup(agent).NewParser, "fuzz", [][]byte{a, b, a})
		}
	})
}

// FuzzParseHook: any payload decodes or is ErrBadHook, never a panic; a
// decoded event always has a name, and a decoded tool input is an object.
func FuzzParseHook(f *testing.F) {
	for _, s := range []string{
		`{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"hook_event_name":"Stop","session_id":"s","background_tasks":[{"type":"local_agent","status":"running"}]}`,
		`{"hook_event_name":"Notification","session_id":"s","notification_type":"permission_prompt","message":"m"}`,
		`{"hook_event_name":"Interrupt","session_id":"s","turn_id":"u"}`,
		`{"hook_event_name":"StopFailure","error":{"type":"rate_limit"}}`,
		`{"hook_event_name":7}`, `{"tool_input":[1]}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		h, err := parsers.ParseHook(payload)
		if err != nil {
			if !errors.Is(err, parsers.ErrBadHook) {
				t.Fatalf("error %v is not ErrBadHook", err)
			}
			return
		}
		if h.Event == "" {
			t.Fatal("decoded a hook without an event name")
		}
		// Decoding is lenient like the agents' own writers (a raw control
		// character in a string is kept), so the check is that the input
		// reads back as an object, which is how ToolDetail consumes it.
		if len(h.ToolInput) > 0 {
			var p fastjson.Parser
			if v, err := p.ParseBytes(h.ToolInput); err != nil || v.Type() != fastjson.TypeObject {
				t.Fatalf("tool input is not a JSON object: %s", h.ToolInput)
			}
		}
		if h.Background < 0 || (h.Background > 0 && !h.HasBackground) {
			t.Fatalf("background %d without a list", h.Background)
		}
	})
}

func TestParseHook(t *testing.T) {
	h, err := parsers.ParseHook([]byte(`{"hook_event_name":"Stop","session_id":"s","transcript_path":"/h/.codex/sessions/2026/01/01/rollout-x.jsonl",
		"background_tasks":[{"type":"local_bash","status":"running"},{"type":"local_agent","status":"running"},
		{"type":"local_workflow","status":"pending"},{"type":"local_agent","status":"completed"},{"kind":"agent"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !h.HasBackground || h.Background != 3 || h.Agent != codex.Name {
		t.Fatalf("%+v", h)
	}
	h, _ = parsers.ParseHook([]byte(`{"hook_event_name":"Stop","session_id":"s","transcript_path":"/h/.claude/projects/-w/s.jsonl"}`))
	if h.HasBackground || h.Agent != claude.Name {
		t.Fatalf("%+v", h)
	}
	h, _ = parsers.ParseHook([]byte(`{"hook_event_name":"StopFailure","session_id":"s","error":"rate_limit"}`))
	if h.Error != "rate_limit" {
		t.Fatalf("%+v", h)
	}
	// UserPromptSubmit's prompt (Claude Code and Codex send it) is the
	// fallback title: its first line, shortened.
	h, _ = parsers.ParseHook([]byte(`{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"\n  fix the bug\nin relay/"}`))
	if h.Prompt != "fix the bug" {
		t.Fatalf("prompt %q", h.Prompt)
	}
	h, _ = parsers.ParseHook([]byte(`{"hook_event_name":"X","conversationId":"c","tool_input":"not an object","is_interrupt":"yes"}`))
	if h.SessionID != "c" || h.ToolInput != nil || h.IsInterrupt {
		t.Fatalf("lenient fields: %+v", h)
	}
}

// TestKnownGood: every agent names, when asked, the release its pin says
// (the pins are read on first use, not at init).
func TestKnownGood(t *testing.T) {
	for _, s := range parsers.All() {
		if s.KnownGood == nil {
			t.Errorf("%s: no known-good release", s.Name)
		} else if got, want := s.KnownGood(), agents.KnownGood(string(s.Name)); got == "" || got != want {
			t.Errorf("%s: known-good %q, pinned %q", s.Name, got, want)
		}
	}
}
