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

// geminiPost sends a streamGenerateContent request and returns the SSE
// data objects.
func geminiPost(t *testing.T, url, action, body string) (int, []map[string]any) {
	t.Helper()
	resp, err := http.Post(url+"/v1beta/models/gemini-2.5-flash:"+action+"?alt=sse", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []map[string]any
	if action == "generateContent" {
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err == nil {
			out = append(out, m)
		}
		return resp.StatusCode, out
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(v), &m); err != nil {
				t.Fatalf("data %q: %v", v, err)
			}
			out = append(out, m)
		}
	}
	return resp.StatusCode, out
}

// parts are the text and function call names of a response's parts.
func parts(evs []map[string]any) (text string, calls []string, finish string) {
	for _, e := range evs {
		c := e["candidates"].([]any)[0].(map[string]any)
		if f, ok := c["finishReason"].(string); ok {
			finish = f
		}
		for _, p := range c["content"].(map[string]any)["parts"].([]any) {
			pm := p.(map[string]any)
			if s, ok := pm["text"].(string); ok {
				text += s
			}
			if fc, ok := pm["functionCall"].(map[string]any); ok {
				calls = append(calls, fc["name"].(string)+" "+fc["args"].(map[string]any)["command"].(string))
			}
		}
	}
	return text, calls, finish
}

const geminiContext = `{"role":"user","parts":[{"text":"<session_context>\nThis is the Gemini CLI.</session_context>"}]}`

func TestGeminiScript(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g, err := StartGemini(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	turn := func(user string) string {
		return `{"contents":[` + geminiContext + `,{"role":"user","parts":[{"text":"` + user + `"}]}],"tools":[{"functionDeclarations":[]}]}`
	}
	code, evs := geminiPost(t, g.URL, "streamGenerateContent", turn("hello"))
	if text, calls, finish := parts(evs); code != 200 || !strings.HasPrefix(text, "Hello from the fake model") || calls != nil || finish != "STOP" {
		t.Fatalf("hello: %d %q %v %q", code, text, calls, finish)
	}
	_, evs = geminiPost(t, g.URL, "streamGenerateContent", turn("run TOOL please"))
	if text, calls, finish := parts(evs); text == "" || len(calls) != 1 || calls[0] != "run_shell_command "+GeminiApprovalCommand || finish != "STOP" {
		t.Fatalf("tool: %q %v %q", text, calls, finish)
	}
	result := `{"contents":[` + geminiContext + `,{"role":"user","parts":[{"text":"run TOOL please"}]},{"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":""}}}]}]}`
	if _, evs = geminiPost(t, g.URL, "streamGenerateContent", result); !strings.Contains(func() string { s, _, _ := parts(evs); return s }(), "The command ran") {
		t.Fatalf("tool result: %v", evs)
	}
	code, evs = geminiPost(t, g.URL, "generateContent", `{"contents":[`+geminiContext+`]}`)
	if text, _, finish := parts(evs); code != 200 || text != GeminiSnapshot || finish != "STOP" {
		t.Fatalf("compress: %d %q %q", code, text, finish)
	}
	if code, _ := geminiPost(t, g.URL, "countTokens", `{}`); code != 404 {
		t.Fatalf("countTokens: %d, want 404", code)
	}
	kinds := []string{}
	for _, r := range g.Requests() {
		kinds = append(kinds, r.Kind)
	}
	if strings.Join(kinds, " ") != "turn turn tool_result compact other" {
		t.Errorf("kinds %v", kinds)
	}
	b, err := os.ReadFile(filepath.Join(dir, "requests.jsonl"))
	if err != nil || strings.Count(string(b), "\n") != 5 {
		t.Errorf("request log: %v, %d lines", err, strings.Count(string(b), "\n"))
	}
}

// TestGeminiSlowCut: a SLOW answer streams words that never repeat (the CLI
// halts a repeating answer as a loop) and ends client_gone when the CLI
// hangs up mid-stream, as an Esc does.
func TestGeminiSlowCut(t *testing.T) {
	if strings.Count(geminiSlowText(), GeminiSlowScreen) != 1 {
		t.Fatalf("slow text repeats %q", GeminiSlowScreen)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g, err := StartGemini(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rctx, rcancel := context.WithCancel(ctx)
	body := `{"contents":[{"role":"user","parts":[{"text":"SLOW stream please"}]}]}`
	req, _ := http.NewRequestWithContext(rctx, "POST", g.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	rcancel()
	resp.Body.Close()
	for {
		if r := g.Requests(); len(r) == 1 && r[0].Outcome != "" {
			if r[0].Outcome != "client_gone" {
				t.Fatalf("outcome %q", r[0].Outcome)
			}
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
