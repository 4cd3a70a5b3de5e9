package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// OpenAI is a fake OpenAI Responses API on 127.0.0.1 for Codex: POST
// /v1/responses answered with the SSE stream Codex parses. What it answers
// is scripted by the prompt (see OpenAIScript), so one server serves every
// turn of a scenario; every request is appended to requests.jsonl in the
// scenario folder, with the kind the server took it for.
type OpenAI struct {
	// URL is the base URL for Codex's model_providers base_url (…/v1).
	URL string

	script OpenAIScript
	endpoint[OpenAIRequest]
}

// OpenAIScript decides the reply to one request. Keyword prompts make
// scenarios readable: the prompt says what the model will do.
type OpenAIScript func(OpenAIRequest) OpenAIReply

// OpenAIRequest is one request as the server understood it.
type OpenAIRequest struct {
	N        int       `json:"n"`
	At       time.Time `json:"at"`
	Method   string    `json:"method"`
	Path     string    `json:"path"`
	Kind     string    `json:"kind"` // turn, tool_result, title, compact, other
	LastUser string    `json:"last_user,omitempty"`
	// Repeat counts the earlier requests of the same prompt (a turn's
	// follow-ups after a tool result or a compaction).
	Repeat int             `json:"repeat"`
	Tools  int             `json:"tools"`
	Body   json.RawMessage `json:"body,omitempty"`

	// Ended is when the stream ended and how: complete, or client_gone when
	// Codex closed the connection mid-stream (an interrupt).
	Ended   time.Time `json:"-"`
	Outcome string    `json:"-"`
}

// OpenAIReply is one scripted model response: Text streamed as Chunks
// deltas with Delay between them, or one exec_command function call.
type OpenAIReply struct {
	Text   string
	Chunks int
	Delay  time.Duration
	// Exec, when set, replies with an exec_command call for this command
	// that asks for escalation, so Codex shows its approval prompt, unless
	// Sandboxed: then it runs in the sandbox without asking.
	Exec      string
	Sandboxed bool
	// InputTokens is the usage reported (0: 100). Near the context window
	// it makes Codex compact before its next request.
	InputTokens int
	// Tool names the function a chat completion calls with {"command":
	// Exec} (default "bash", pi's shell tool).
	Tool string
	// Status, when set, answers with this HTTP error status and no stream:
	// a provider's failure (500, 529), which pi and omp retry by
	// themselves.
	Status int
}

// Request kinds.
const (
	OpenAIReqTurn       = "turn"
	OpenAIReqToolResult = "tool_result"
	OpenAIReqTitle      = "title"
	OpenAIReqCompact    = "compact"
	OpenAIReqOther      = "other"
)

// Prompt keywords the default script understands.
const (
	OpenAISlow = "SLOW" // a long answer streamed over OpenAISlowStream
	OpenAITool = "TOOL" // an exec_command needing approval, then a short answer
	// OpenAIHuge: a sandboxed exec_command whose response reports a context
	// nearly full, so Codex compacts inside the turn before sending the
	// result; then a short answer.
	OpenAIHuge = "HUGE"
	// OpenAIFail: "FAIL<n>" (n 1 to 9) answers the prompt's first n
	// requests with HTTP 500, then as the rest of the prompt says (a
	// SLOW one slowly); "FAIL" without a count answers every one so.
	OpenAIFail = "FAIL"
)

// OpenAIFailStatus is the status a FAIL prompt's failed requests get.
const OpenAIFailStatus = http.StatusInternalServerError

// openaiFails reports whether a FAIL prompt's request r fails.
func openaiFails(r OpenAIRequest) bool {
	i := strings.Index(r.LastUser, OpenAIFail)
	if i < 0 || r.Kind != OpenAIReqTurn {
		return false
	}
	rest := r.LastUser[i+len(OpenAIFail):]
	if rest == "" || rest[0] < '1' || rest[0] > '9' {
		return true
	}
	return r.Repeat < int(rest[0]-'0')
}

// OpenAISlowStream is how long a SLOW answer takes to stream: long enough for a
// key to land mid-stream on a loaded machine.
const OpenAISlowStream = 8 * time.Second

// OpenAIHugeCommand is the command a HUGE prompt runs (no approval needed).
const OpenAIHugeCommand = "echo conformance"

// OpenAIContextWindow is the context Codex 0.169 assumes for an unknown
// model (its task_started says model_context_window 258400).
const OpenAIContextWindow = 258400

// OpenAIApprovalCommand is the command a TOOL prompt asks to run.
const OpenAIApprovalCommand = "touch approved.txt"

// DefaultOpenAIScript answers a title request with a title, a compaction
// request with a summary, a tool result with a closing sentence, a SLOW
// prompt slowly, a TOOL prompt with an exec_command call, and anything else
// with one short sentence.
func DefaultOpenAIScript(r OpenAIRequest) OpenAIReply {
	switch {
	case openaiFails(r):
		return OpenAIReply{Status: OpenAIFailStatus}
	case r.Kind == OpenAIReqTitle:
		return OpenAIReply{Text: "Fake title"}
	case r.Kind == OpenAIReqCompact:
		return OpenAIReply{Text: "Summary: the user asked for greetings; nothing else is pending.", Chunks: 4, Delay: 300 * time.Millisecond}
	case r.Kind == OpenAIReqToolResult:
		return OpenAIReply{Text: "The command ran. Done."}
	case strings.Contains(r.LastUser, OpenAIHuge) && r.Repeat == 0:
		return OpenAIReply{Exec: OpenAIHugeCommand, Sandboxed: true, InputTokens: OpenAIContextWindow - 1000}
	case strings.Contains(r.LastUser, OpenAIHuge):
		return OpenAIReply{Text: "The command ran. Done."}
	case strings.Contains(r.LastUser, OpenAISlow):
		words := strings.Repeat("streaming slowly ", 40)
		return OpenAIReply{Text: words, Chunks: 40, Delay: OpenAISlowStream / 40}
	case strings.Contains(r.LastUser, OpenAITool):
		return OpenAIReply{Exec: OpenAIApprovalCommand}
	}
	return OpenAIReply{Text: fmt.Sprintf("Hello from the fake model (%d).", r.N)}
}

// DefaultChatScript is DefaultOpenAIScript for the chat-completions clients
// (pi, omp, OpenCode): a turn's request without tools is OpenCode's title
// request (its small model, asked beside the first prompt), answered with a
// title, so that a SLOW or TOOL prompt's title is not streamed or run. A
// TOOL prompt's call is to the bash tool, which omp (always-ask) and
// OpenCode (bash asks) ask before they run; pi runs it.
func DefaultChatScript(r OpenAIRequest) OpenAIReply {
	if r.Kind == OpenAIReqTurn && r.Tools == 0 {
		return OpenAIReply{Text: "Fake title"}
	}
	return DefaultOpenAIScript(r)
}

// StartOpenAI serves on a free 127.0.0.1 port until ctx ends or Close,
// logging requests into dir/requests.jsonl.
func StartOpenAI(ctx context.Context, dir string, script OpenAIScript) (*OpenAI, error) {
	if script == nil {
		script = DefaultOpenAIScript
	}
	s := &OpenAI{script: script}
	addr, err := s.listen(ctx, dir, "openai", s.serve)
	if err != nil {
		return nil, err
	}
	s.URL = "http://" + addr + "/v1"
	return s, nil
}

func (r OpenAIRequest) withBody(body json.RawMessage) OpenAIRequest {
	r.Body = body
	return r
}

// WaitRequest waits until a request matching ok has arrived and returns it.
func (s *OpenAI) WaitRequest(ctx context.Context, ok func(OpenAIRequest) bool) (OpenAIRequest, error) {
	for {
		for _, r := range s.Requests() {
			if ok(r) {
				return r, nil
			}
		}
		select {
		case <-ctx.Done():
			return OpenAIRequest{}, fmt.Errorf("openai: no such request among %d: %w", len(s.Requests()), ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (s *OpenAI) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	chat := r.URL.Path == "/v1/chat/completions"
	req := openaiClassify(body)
	if chat {
		req = openaiChatClassify(body)
	}
	req.At, req.Method, req.Path = time.Now().UTC(), r.Method, r.URL.Path
	if r.Header.Get("Content-Encoding") != "" {
		req.Kind = OpenAIReqOther
	}
	s.mu.Lock()
	s.n++
	req.N = s.n
	for _, old := range s.reqs {
		if old.LastUser == req.LastUser && (old.Kind == OpenAIReqTurn || old.Kind == OpenAIReqToolResult) {
			req.Repeat++
		}
	}
	s.record(req, body)
	s.mu.Unlock()

	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" && !chat || req.Kind == OpenAIReqOther {
		http.Error(w, `{"error":{"message":"the fake serves only POST /v1/responses and /v1/chat/completions, uncompressed"}}`, http.StatusNotFound)
		return
	}
	var outcome string
	switch rep := s.script(req); {
	case rep.Status != 0:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		fmt.Fprintf(w, `{"error":{"message":"fake server error %d","type":"server_error"}}`, rep.Status)
		outcome = fmt.Sprintf("status_%d", rep.Status)
	case chat:
		outcome = s.streamChat(r.Context(), w, req.N, rep)
	default:
		outcome = s.stream(r.Context(), w, req.N, rep)
	}
	s.mu.Lock()
	for i := range s.reqs {
		if s.reqs[i].N == req.N {
			s.reqs[i].Ended, s.reqs[i].Outcome = time.Now().UTC(), outcome
		}
	}
	s.mu.Unlock()
}

// openaiClassify reads what Codex asked for from the request body.
func openaiClassify(body []byte) OpenAIRequest {
	var in struct {
		Tools []json.RawMessage `json:"tools"`
		Input []struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return OpenAIRequest{Kind: OpenAIReqOther}
	}
	req := OpenAIRequest{Tools: len(in.Tools), Kind: OpenAIReqTurn}
	last := ""
	for _, it := range in.Input {
		if it.Type == "message" && it.Role == "user" {
			if t := openaiInputText(it.Content); !strings.HasPrefix(t, "<") {
				req.LastUser = t
			}
		}
		last = it.Type
	}
	switch {
	case openaiIsCompaction(req.LastUser):
		req.Kind = OpenAIReqCompact
	case len(in.Tools) == 0:
		req.Kind = OpenAIReqTitle
	case last == "function_call_output":
		req.Kind = OpenAIReqToolResult
	}
	return req
}

// openaiIsCompaction tells Codex's compaction request: 0.169's /compact is
// an ordinary POST /v1/responses with no tools whose last user message is
// this prompt (it never calls /responses/compact on a custom provider).
func openaiIsCompaction(user string) bool {
	return strings.Contains(user, "CONTEXT CHECKPOINT COMPACTION")
}

func openaiInputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// stream writes one Responses SSE stream and says how it ended.
func (s *OpenAI) stream(ctx context.Context, w http.ResponseWriter, n int, rep OpenAIReply) string {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	write := func(ev map[string]any) error {
		b, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b); err != nil {
			return err
		}
		if fl != nil {
			fl.Flush()
		}
		return nil
	}
	send := func(ev map[string]any) error {
		if err := write(ev); err != nil {
			return err
		}
		return ctx.Err()
	}
	resp := fmt.Sprintf("resp_%d", n)
	if send(map[string]any{"type": "response.created", "response": map[string]any{"id": resp}}) != nil {
		return "client_gone"
	}
	var item map[string]any
	if rep.Exec != "" {
		call := map[string]any{"cmd": rep.Exec, "sandbox_permissions": "require_escalated", "justification": "the conformance suite needs approval"}
		if rep.Sandboxed {
			call = map[string]any{"cmd": rep.Exec}
		}
		args, _ := json.Marshal(call)
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": fmt.Sprintf("call_%d", n), "name": "exec_command", "arguments": string(args), "status": "completed"}
		if send(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item}) != nil {
			return "client_gone"
		}
	} else {
		id := fmt.Sprintf("msg_%d", n)
		if send(map[string]any{"type": "response.output_item.added", "output_index": 0,
			"item": map[string]any{"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []any{}}}) != nil {
			return "client_gone"
		}
		for _, d := range openaiChunks(rep.Text, rep.Chunks) {
			if rep.Delay > 0 {
				select {
				case <-ctx.Done():
					return "client_gone"
				case <-time.After(rep.Delay):
				}
			}
			if send(map[string]any{"type": "response.output_text.delta", "item_id": id, "output_index": 0, "content_index": 0, "delta": d}) != nil {
				return "client_gone"
			}
		}
		item = map[string]any{"type": "message", "id": id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}}}
	}
	if send(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item}) != nil {
		return "client_gone"
	}
	in := rep.InputTokens
	if in == 0 {
		in = 100
	}
	usage := map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 20, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + 20}
	// Codex closes the connection as soon as it has read response.completed:
	// only a client gone before it is a cut stream.
	if ctx.Err() != nil || write(map[string]any{"type": "response.completed", "response": map[string]any{"id": resp, "usage": usage}}) != nil {
		return "client_gone"
	}
	return "complete"
}

// chunks splits text into n deltas (at least one).
func openaiChunks(text string, n int) []string {
	if n <= 1 || len(text) <= n {
		return []string{text}
	}
	out := make([]string, 0, n)
	size := (len(text) + n - 1) / n
	for len(text) > 0 {
		k := min(size, len(text))
		out = append(out, text[:k])
		text = text[k:]
	}
	return out
}

// openaiChatClassify reads what a chat-completions client (pi, omp) asked
// for: the last user message's text, a tool result when the conversation
// ends on one, a compaction when the system prompt is a summariser's, a
// title when it is omp's title writer's.
func openaiChatClassify(body []byte) OpenAIRequest {
	var in struct {
		Tools    []json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &in); err != nil || len(in.Messages) == 0 {
		return OpenAIRequest{Kind: OpenAIReqOther}
	}
	req := OpenAIRequest{Tools: len(in.Tools), Kind: OpenAIReqTurn}
	for _, m := range in.Messages {
		if m.Role == "user" {
			req.LastUser = openaiInputText(m.Content)
		}
	}
	var sys string
	if r := in.Messages[0].Role; r == "system" || r == "developer" {
		sys = openaiInputText(in.Messages[0].Content)
	}
	switch last := in.Messages[len(in.Messages)-1]; {
	// pi's summariser, and omp's (summarization-system.md).
	case strings.Contains(sys, "context summarization assistant") || strings.Contains(sys, "coding-assistant conversations"):
		req.Kind = OpenAIReqCompact
	case strings.Contains(sys, "word title") && len(in.Tools) == 0: // omp's title-system.md
		req.Kind = OpenAIReqTitle
	case last.Role == "tool":
		req.Kind = OpenAIReqToolResult
	}
	return req
}

// streamChat writes one chat-completions SSE stream (data: chunks, a usage
// chunk, [DONE]) and says how it ended.
func (s *OpenAI) streamChat(ctx context.Context, w http.ResponseWriter, n int, rep OpenAIReply) string {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	id := fmt.Sprintf("chatcmpl-%d", n)
	send := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return err
		}
		if fl != nil {
			fl.Flush()
		}
		return ctx.Err()
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	finish := "stop"
	if rep.Exec != "" {
		tool := rep.Tool
		if tool == "" {
			tool = "bash"
		}
		args, _ := json.Marshal(map[string]any{"command": rep.Exec})
		call := map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": tool, "arguments": string(args)}}
		if send(chunk(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{call}}, nil)) != nil {
			return "client_gone"
		}
		finish = "tool_calls"
	} else {
		if send(chunk(map[string]any{"role": "assistant", "content": ""}, nil)) != nil {
			return "client_gone"
		}
		for _, d := range openaiChunks(rep.Text, rep.Chunks) {
			if rep.Delay > 0 {
				select {
				case <-ctx.Done():
					return "client_gone"
				case <-time.After(rep.Delay):
				}
			}
			if send(chunk(map[string]any{"content": d}, nil)) != nil {
				return "client_gone"
			}
		}
	}
	in := rep.InputTokens
	if in == 0 {
		in = 100
	}
	if send(chunk(map[string]any{}, finish)) != nil ||
		send(map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": "fake-model",
			"choices": []any{}, "usage": map[string]any{"prompt_tokens": in, "completion_tokens": 20, "total_tokens": in + 20}}) != nil {
		return "client_gone"
	}
	if _, err := fmt.Fprint(w, "data: [DONE]\n\n"); err != nil || ctx.Err() != nil {
		return "client_gone"
	}
	if fl != nil {
		fl.Flush()
	}
	return "complete"
}
