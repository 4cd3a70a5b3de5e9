package fakemodel

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// openaiPost sends a Responses request and returns the SSE data objects.
func openaiPost(t *testing.T, url, body string) []map[string]any {
	t.Helper()
	resp, err := http.Post(url+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var evs []map[string]any
	sc := bufio.NewScanner(resp.Body)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(v), &m); err != nil {
				t.Fatalf("data %q: %v", v, err)
			}
			if m["type"] != event {
				t.Fatalf("event %q carries data of type %v", event, m["type"])
			}
			evs = append(evs, m)
		}
	}
	return evs
}

func openaiTypes(evs []map[string]any) string {
	var ts []string
	for _, e := range evs {
		ts = append(ts, e["type"].(string))
	}
	return strings.Join(ts, " ")
}

// openaiHangUp posts body and reads the stream up to the first line that
// contains until, then hangs up.
func openaiHangUp(t *testing.T, ctx context.Context, url, body, until string) {
	t.Helper()
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	req, _ := http.NewRequestWithContext(rctx, "POST", url+"/responses", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			resp.Body.Close()
			t.Fatal(err)
		}
		if strings.Contains(line, until) {
			rcancel() // the client walks away, then its connection closes
			resp.Body.Close()
			return
		}
	}
}

func TestOpenAIServer(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := StartOpenAI(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := `"tools":[{"type":"function","name":"exec_command"}]`
	user := func(text string) string {
		return `{"type":"message","role":"user","content":[{"type":"input_text","text":` + jsonString(text) + `}]}`
	}
	env := user("<environment_context>cwd</environment_context>")

	// A short answer: the whole stream in order, the text in the final item.
	evs := openaiPost(t, s.URL, `{"model":"m",`+tools+`,"input":[`+env+`,`+user("say hello")+`]}`)
	want := "response.created response.output_item.added response.output_text.delta response.output_item.done response.completed"
	if got := openaiTypes(evs); got != want {
		t.Fatalf("stream %q, want %q", got, want)
	}
	item := evs[3]["item"].(map[string]any)
	if text := item["content"].([]any)[0].(map[string]any)["text"]; text != "Hello from the fake model (1)." {
		t.Errorf("answer %q", text)
	}
	if u := evs[4]["response"].(map[string]any)["usage"].(map[string]any); u["total_tokens"] != 120.0 {
		t.Errorf("usage %v", u)
	}

	// A TOOL prompt: one exec_command call asking for escalation.
	evs = openaiPost(t, s.URL, `{"model":"m",`+tools+`,"input":[`+user("run TOOL please")+`]}`)
	item = evs[len(evs)-2]["item"].(map[string]any)
	var args map[string]string
	_ = json.Unmarshal([]byte(item["arguments"].(string)), &args)
	if item["type"] != "function_call" || item["name"] != "exec_command" || args["cmd"] != OpenAIApprovalCommand || args["sandbox_permissions"] != "require_escalated" {
		t.Errorf("tool call %v", item)
	}

	// A HUGE prompt: a sandboxed call (no escalation) and a context nearly full.
	evs = openaiPost(t, s.URL, `{"model":"m",`+tools+`,"input":[`+user("HUGE please")+`]}`)
	item = evs[len(evs)-2]["item"].(map[string]any)
	args = nil
	_ = json.Unmarshal([]byte(item["arguments"].(string)), &args)
	if args["cmd"] != OpenAIHugeCommand || args["sandbox_permissions"] != "" {
		t.Errorf("HUGE call %v", item)
	}
	if u := evs[len(evs)-1]["response"].(map[string]any)["usage"].(map[string]any); u["input_tokens"] != float64(OpenAIContextWindow-1000) {
		t.Errorf("HUGE usage %v", u)
	}

	// The tool's result, the title request and the compaction request.
	openaiPost(t, s.URL, `{"model":"m",`+tools+`,"input":[`+user("run TOOL please")+`,{"type":"function_call","call_id":"call_2"},{"type":"function_call_output","call_id":"call_2","output":"ok"}]}`)
	openaiPost(t, s.URL, `{"model":"m","tools":[],"input":[`+user("Generate a concise, single-line task title")+`]}`)
	openaiPost(t, s.URL, `{"model":"m","tools":[],"input":[`+user("say hello")+`,`+user("You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary")+`]}`)

	// A SLOW answer the client walks away from mid-stream.
	openaiHangUp(t, ctx, s.URL, `{"model":"m",`+tools+`,"input":[`+user("SLOW please")+`]}`, "response.output_text.delta")

	wait, wcancel := context.WithTimeout(ctx, 5*time.Second)
	defer wcancel()
	if _, err := s.WaitRequest(wait, func(r OpenAIRequest) bool { return r.N == 7 && r.Outcome != "" }); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range s.Requests() {
		got = append(got, r.Kind+"/"+r.Outcome)
	}
	wantKinds := "turn/complete turn/complete turn/complete tool_result/complete title/complete compact/complete turn/client_gone"
	if strings.Join(got, " ") != wantKinds {
		t.Errorf("requests %q, want %q", strings.Join(got, " "), wantKinds)
	}

	// Clients that hang up as soon as they have read response.completed,
	// as Codex does: their streams were not cut.
	const early = 20
	for range early {
		openaiHangUp(t, ctx, s.URL, `{"model":"m",`+tools+`,"input":[`+user("say hello")+`]}`, `"type":"response.completed"`)
	}
	for n := 8; n <= 7+early; n++ { // each handler records its own outcome, in any order
		if _, err := s.WaitRequest(wait, func(r OpenAIRequest) bool { return r.N == n && r.Outcome != "" }); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range s.Requests()[7:] {
		if r.Outcome != "complete" {
			t.Errorf("request %d, read to its end: %s, want complete", r.N, r.Outcome)
		}
	}

	// Not the Responses endpoint: refused, and still logged.
	if r, err := http.Get(s.URL + "/models"); err != nil || r.StatusCode != 404 {
		t.Errorf("GET /models: %v %v", r, err)
	}
	s.Close()
	b, err := os.ReadFile(filepath.Join(dir, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if want := 8 + early; len(lines) != want {
		t.Fatalf("request log has %d lines, want %d", len(lines), want)
	}
	var first struct {
		N        int             `json:"n"`
		Kind     string          `json:"kind"`
		LastUser string          `json:"last_user"`
		Body     json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.N != 1 || first.Kind != "turn" || first.LastUser != "say hello" || len(first.Body) == 0 {
		t.Errorf("first logged request %+v (%v)", first, err)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestOpenAIChunks(t *testing.T) {
	for _, c := range []struct {
		text string
		n    int
		want int
	}{{"abc", 0, 1}, {"abc", 5, 1}, {"abcdefgh", 4, 4}, {"abcdefghi", 4, 3}} {
		parts := openaiChunks(c.text, c.n)
		if len(parts) != c.want || strings.Join(parts, "") != c.text {
			t.Errorf("openaiChunks(%q, %d) = %q", c.text, c.n, parts)
		}
	}
}

// TestDefaultChatScript: what pi, omp and OpenCode get from selftest's chat
// fake (Start(APIOpenAIChat)): OpenCode's title request (no tools) a title
// whatever its prompt, a TOOL prompt the bash call, a SLOW one the slow
// stream, the tool's result and a compaction their answers.
func TestDefaultChatScript(t *testing.T) {
	for _, c := range []struct {
		name string
		req  OpenAIRequest
		want OpenAIReply
	}{
		{"opencode title", OpenAIRequest{Kind: OpenAIReqTurn, LastUser: "SLOW stream please"}, OpenAIReply{Text: "Fake title"}},
		{"omp title", OpenAIRequest{Kind: OpenAIReqTitle, LastUser: "run TOOL please"}, OpenAIReply{Text: "Fake title"}},
		{"tool", OpenAIRequest{Kind: OpenAIReqTurn, Tools: 4, LastUser: "run TOOL please"}, OpenAIReply{Exec: OpenAIApprovalCommand}},
		{"tool result", OpenAIRequest{Kind: OpenAIReqToolResult, Tools: 4, LastUser: "run TOOL please"}, OpenAIReply{Text: "The command ran. Done."}},
		{"hello", OpenAIRequest{N: 3, Kind: OpenAIReqTurn, Tools: 4, LastUser: "hello"}, OpenAIReply{Text: "Hello from the fake model (3)."}},
	} {
		if got := DefaultChatScript(c.req); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	slow := DefaultChatScript(OpenAIRequest{Kind: OpenAIReqTurn, Tools: 4, LastUser: "SLOW stream please"})
	if !strings.Contains(slow.Text, OpenAISlowScreen) || slow.Chunks < 2 || slow.Delay == 0 {
		t.Errorf("slow: %+v", slow)
	}
	if c := DefaultChatScript(OpenAIRequest{Kind: OpenAIReqCompact, LastUser: "x"}); c.Text == "" {
		t.Errorf("compaction: %+v", c)
	}
}

// TestStartChat: Start(APIOpenAIChat) serves chat completions with the
// chat script: a TOOL prompt streams a bash call.
func TestStartChat(t *testing.T) {
	s := startChat(t)
	st, b := postChat(t, s.URL, s.ToolPrompt)
	if st != 200 || !strings.Contains(b, `"name":"bash"`) || !strings.Contains(b, jsonString(OpenAIApprovalCommand)[1:len(jsonString(OpenAIApprovalCommand))-1]) ||
		!strings.HasSuffix(b, "data: [DONE]\n\n") {
		t.Errorf("status %d:\n%s", st, b)
	}
}

// startChat starts the chat completions fake for the test.
func startChat(t *testing.T) *Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := Start(ctx, APIOpenAIChat, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// postChat asks the chat completions fake at url for one user prompt: the
// answer's status and body.
func postChat(t *testing.T, url, prompt string) (int, string) {
	t.Helper()
	body := `{"model":"m","tools":[{"type":"function"}],"messages":[{"role":"user","content":` + jsonString(prompt) + `}]}`
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestChatFail: a FAIL1 prompt's first request is answered 500 (a
// provider's failure: the agent retries it), the same prompt's next one
// streams; FAIL without a count fails every time.
func TestChatFail(t *testing.T) {
	s := startChat(t)
	for i, c := range []struct {
		prompt string
		status int
		has    string
	}{
		{"FAIL1 then hello", 500, "fake server error 500"},
		{"FAIL1 then hello", 200, "Hello from the fake model"},
		{"FAIL always", 500, "fake server error 500"},
		{"FAIL always", 500, "fake server error 500"},
	} {
		if st, b := postChat(t, s.URL, c.prompt); st != c.status || !strings.Contains(b, c.has) {
			t.Errorf("%d %q: status %d, want %d with %q:\n%s", i, c.prompt, st, c.status, c.has, b)
		}
	}
	if f := DefaultChatScript(OpenAIRequest{Kind: OpenAIReqTurn, Tools: 4, LastUser: "FAIL2 SLOW", Repeat: 2}); f.Status != 0 || f.Chunks < 2 {
		t.Errorf("FAIL2 SLOW's third try: %+v, want the slow stream", f)
	}
}
