package fakemodel

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sseEvent is one event of a Messages stream.
type sseEvent struct {
	Type string
	Data map[string]any
}

func postMessages(t *testing.T, ctx context.Context, url, body string) (*http.Response, []sseEvent) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/messages?beta=true", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var evs []sseEvent
	sc := bufio.NewScanner(resp.Body)
	var typ string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			if d["type"] != typ {
				t.Fatalf("event %s carries type %v", typ, d["type"])
			}
			evs = append(evs, sseEvent{typ, d})
		}
	}
	return resp, evs
}

// streamText joins the text deltas and the tool input deltas.
func streamText(evs []sseEvent) (text, toolName, toolInput, stop string) {
	for _, e := range evs {
		switch e.Type {
		case "content_block_start":
			if cb, _ := e.Data["content_block"].(map[string]any); cb["type"] == "tool_use" {
				toolName, _ = cb["name"].(string)
			}
		case "content_block_delta":
			d, _ := e.Data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				text += d["text"].(string)
			case "input_json_delta":
				toolInput += d["partial_json"].(string)
			}
		case "message_delta":
			d, _ := e.Data["delta"].(map[string]any)
			stop, _ = d["stop_reason"].(string)
		}
	}
	return
}

func TestAnthropicScript(t *testing.T) {
	dir := t.TempDir()
	a, err := StartAnthropic(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.SlowChunks, a.SlowDelay, a.SubagentDelay = 5, time.Millisecond, 10*time.Millisecond
	user := func(text string) string {
		b, _ := json.Marshal(text)
		return `{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":` + string(b) + `}]}`
	}
	env := `{"role":"system","content":[{"type":"text","text":"# Environment"}]}`
	tools := `"tools":[{"name":"Bash"},{"name":"Agent"}]`
	cases := []struct {
		name, body, kind, text, tool, inputHas, stop string
	}{
		{"short", `{"system":"You are Claude Code",` + tools + `,"messages":[` + user("hello plain") + `,` + env + `]}`,
			AnthReqMain, AnthShortAnswer, "", "", "end_turn"},
		{"slow", `{` + tools + `,"messages":[` + user("SLOW please") + `]}`,
			AnthReqMain, "word0 word1 word2 word3 word4 ", "", "", "end_turn"},
		{"bash", `{` + tools + `,"messages":[` + user("TOOL please run it") + `,` + env + `]}`,
			AnthReqMain, "", "Bash", AnthToolCommand, "tool_use"},
		{"bash result", `{` + tools + `,"messages":[` + user("TOOL please run it") + `,{"role":"assistant","content":[{"type":"tool_use"}]},{"role":"user","content":[{"type":"tool_result","content":"ok"}]}]}`,
			AnthReqMain, AnthToolDone, "", "", "end_turn"},
		{"agent", `{` + tools + `,"messages":[` + user("AGENT please delegate") + `]}`,
			AnthReqMain, "", "Agent", AnthSubagentPrompt, "tool_use"},
		{"subagent", `{"tools":[{"name":"Bash"}],"messages":[` + user(AnthSubagentPrompt) + `]}`,
			AnthReqSubagent, AnthSubagentAnswer, "", "", "end_turn"},
		{"agent result", `{` + tools + `,"messages":[` + user("AGENT please delegate") + `,{"role":"assistant","content":[{"type":"tool_use"}]},{"role":"user","content":[{"type":"tool_result","content":"started"}]}]}`,
			AnthReqMain, AnthAgentDone, "", "", "end_turn"},
		{"compact", `{` + tools + `,"messages":[` + user("hello") + `,` + user("CRITICAL: Respond with TEXT ONLY.\n\nYour task is to create a detailed summary of the conversation so far") + `]}`,
			AnthReqCompact, AnthSummary, "", "", "end_turn"},
		{"title", `{"system":[{"type":"text","text":"You are naming a coding session. Return JSON with a single \"title\" field."}],"tools":[],"messages":[` + user("<session>\nhello\n</session>") + `]}`,
			AnthReqTitle, AnthTitle, "", "", "end_turn"},
		{"huge", `{` + tools + `,"messages":[` + user("HUGE context please") + `]}`,
			AnthReqMain, AnthShortAnswer, "", "", "end_turn"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, evs := postMessages(t, context.Background(), a.URL, c.body)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			var types []string
			for _, e := range evs {
				if len(types) == 0 || types[len(types)-1] != e.Type {
					types = append(types, e.Type)
				}
			}
			if got := strings.Join(types, " "); got != "message_start content_block_start content_block_delta content_block_stop message_delta message_stop" {
				t.Errorf("event sequence %q", got)
			}
			text, tool, input, stop := streamText(evs)
			if (c.text != "" && !strings.HasPrefix(text, c.text)) || tool != c.tool || !strings.Contains(input, c.inputHas) || stop != c.stop {
				t.Errorf("text %.60q tool %q input %q stop %q", text, tool, input, stop)
			}
			if input != "" && !json.Valid([]byte(input)) {
				t.Errorf("tool input %q is not JSON", input)
			}
			rs := a.Requests()
			if last := rs[len(rs)-1]; last.Kind != c.kind || last.Finished.IsZero() {
				t.Errorf("logged as %q (finished %v), want %q", last.Kind, last.Finished, c.kind)
			}
			if c.name == "huge" {
				u := evs[0].Data["message"].(map[string]any)["usage"].(map[string]any)
				if u["input_tokens"].(float64) != AnthHugeTokens {
					t.Errorf("usage %v", u)
				}
			}
		})
	}

	// A client that goes away mid-stream (an interrupt): not finished.
	a.SlowChunks, a.SlowDelay = 1000, 5*time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.URL+"/v1/messages", strings.NewReader(`{"messages":[`+user("SLOW")+`]}`))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		bufio.NewReader(resp.Body).ReadString('\n')
		<-ctx.Done()
		resp.Body.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		rs := a.Requests()
		if len(rs) == len(cases)+1 && rs[len(rs)-1].Finished.IsZero() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the interrupted stream: %+v", rs[len(rs)-1])
		}
		time.Sleep(10 * time.Millisecond)
	}

	// Anything but POST /v1/messages is a 404, and logged.
	resp, err := http.Get(a.URL + "/api/hello")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /api/hello: %d", resp.StatusCode)
	}
	a.Close()
	b, err := os.ReadFile(filepath.Join(dir, "anthropic-requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != len(cases)+2 {
		t.Fatalf("%d logged requests, want %d", len(lines), len(cases)+2)
	}
	var last AnthropicRequest
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Kind != "unknown" || last.Path != "/api/hello" {
		t.Errorf("last logged request %+v (%v)", last, err)
	}
}
