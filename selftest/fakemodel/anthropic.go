package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// AnthHugeTokens is the input size a HUGE answer reports.
const AnthHugeTokens = 990_000

// Prompt keywords the fake Messages server reacts to. A scenario types a
// prompt holding one of them; anything else gets the short answer.
const (
	AnthSlow  = "SLOW"  // a long answer streamed slowly, so a key lands mid-stream
	AnthTool  = "TOOL"  // a Bash tool_use, which brings up the permission dialog
	AnthAgent = "AGENT" // an Agent tool_use: a background subagent
	// AnthHuge answers short but reports a context nearly full, so the next
	// prompt starts with an automatic compaction inside its turn.
	AnthHuge = "HUGE"
)

// The canned words of the fake Messages server, so scenarios can wait for
// them on the screen.
const (
	AnthShortAnswer    = "Hello from the fake server."
	AnthToolDone       = "The command ran."
	AnthSubagentPrompt = "SUBTASK count to three slowly"
	AnthSubagentAnswer = "Subagent finished counting."
	AnthAgentDone      = "The subagent reported back."
	AnthSummary        = "<analysis>The user said hello.</analysis>\n<summary>1. Primary Request and Intent: the user said hello and the assistant answered.</summary>"
	AnthTitle          = `{"title": "Conformance session"}`
	AnthToolCommand    = "echo hi > f.txt"
)

// Request kinds, as the server classified them (the request log's "kind").
const (
	AnthReqTitle    = "title"
	AnthReqCompact  = "compact"
	AnthReqSubagent = "subagent"
	AnthReqMain     = "main"
)

// Anthropic is a fake Anthropic Messages API: POST /v1/messages, always
// answered with the SSE stream Claude Code reads. It is scripted by the
// prompt's keyword (AnthSlow, AnthTool, AnthAgent) and recognises the
// compaction summary and title requests from their content. Every request
// is appended to Dir/anthropic-requests.jsonl.
type Anthropic struct {
	URL string // http://127.0.0.1:PORT

	// SlowChunks × SlowDelay is how long the slow answer streams.
	SlowChunks int
	SlowDelay  time.Duration
	// SubagentDelay is how long the subagent's answer takes.
	SubagentDelay time.Duration

	dir  string
	srv  *http.Server
	ln   net.Listener
	mu   sync.Mutex
	log  *os.File
	seq  atomic.Int64
	reqs []AnthropicRequest
}

// AnthropicRequest is one logged request.
type AnthropicRequest struct {
	N    int64           `json:"n"`
	At   time.Time       `json:"at"`
	Path string          `json:"path"`
	Kind string          `json:"kind"`
	Last string          `json:"last"` // the last user text, shortened
	Body json.RawMessage `json:"body,omitempty"`
	// Finished is when the answer's stream ended (zero while it runs, or
	// if the client went away first).
	Finished time.Time `json:"-"`
}

// StartAnthropic starts the server on a free loopback port, logging into dir.
func StartAnthropic(dir string) (*Anthropic, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake anthropic: %w", err)
	}
	f, err := os.Create(filepath.Join(dir, "anthropic-requests.jsonl"))
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("fake anthropic: %w", err)
	}
	a := &Anthropic{URL: "http://" + ln.Addr().String(), SlowChunks: 300, SlowDelay: 100 * time.Millisecond,
		SubagentDelay: 6 * time.Second, dir: dir, ln: ln, log: f}
	a.srv = &http.Server{Handler: a}
	go a.srv.Serve(ln)
	return a, nil
}

// Close stops the server and its streams.
func (a *Anthropic) Close() {
	a.srv.Close()
	a.mu.Lock()
	a.log.Close()
	a.mu.Unlock()
}

// Requests returns the requests so far.
func (a *Anthropic) Requests() []AnthropicRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]AnthropicRequest(nil), a.reqs...)
}

// CountKind returns how many requests of a kind arrived.
func (a *Anthropic) CountKind(kind string) int {
	n := 0
	for _, r := range a.Requests() {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// The parts of a Messages request the script looks at.
type anthRequest struct {
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type anthBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
}

// anthTexts returns the text of a content field (a string or blocks), and
// whether it holds a tool_result.
func anthTexts(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, false
	}
	var bs []anthBlock
	_ = json.Unmarshal(raw, &bs)
	var b strings.Builder
	result := false
	for _, x := range bs {
		switch x.Type {
		case "text":
			b.WriteString(x.Text)
			b.WriteString("\n")
		case "tool_result":
			result = true
		}
	}
	return b.String(), result
}

func anthSystemText(raw json.RawMessage) string {
	t, _ := anthTexts(raw)
	return t
}

// anthClassify says what a request is and what the last user turn holds.
func anthClassify(r *anthRequest) (kind, last string, toolResult bool) {
	sys := anthSystemText(r.System)
	// The last user turn: 2.1.328 puts a role "system" message (the
	// environment) after the first prompt.
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			last, toolResult = anthTexts(r.Messages[i].Content)
			break
		}
	}
	first := ""
	if len(r.Messages) > 0 {
		first, _ = anthTexts(r.Messages[0].Content)
	}
	switch {
	case strings.Contains(last, "summary of the conversation") || strings.Contains(strings.ToLower(last), "create a detailed summary"):
		return AnthReqCompact, last, toolResult
	case len(r.Tools) == 0 && strings.Contains(strings.ToLower(sys), "title"):
		return AnthReqTitle, last, toolResult
	case strings.Contains(first, AnthSubagentPrompt):
		return AnthReqSubagent, last, toolResult
	}
	return AnthReqMain, last, toolResult
}

func (a *Anthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	n := a.seq.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		a.record(AnthropicRequest{N: n, At: time.Now(), Path: r.URL.String(), Kind: "unknown", Body: anthCompactJSON(body)})
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not here"}}`, http.StatusNotFound)
		return
	}
	var req anthRequest
	if err := json.Unmarshal(body, &req); err != nil {
		a.record(AnthropicRequest{N: n, At: time.Now(), Path: r.URL.String(), Kind: "bad"})
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	kind, last, toolResult := anthClassify(&req)
	short := last
	if len(short) > 200 {
		short = short[:200]
	}
	a.record(AnthropicRequest{N: n, At: time.Now(), Path: r.URL.String(), Kind: kind, Last: short, Body: anthCompactJSON(body)})

	s := newAnthSSE(w, n)
	defer func() {
		if s.ok {
			a.finished(n)
		}
	}()
	switch {
	case kind == AnthReqTitle:
		s.text(AnthTitle, 1, 0)
	case kind == AnthReqCompact:
		s.text(AnthSummary, 1, 0)
	case kind == AnthReqSubagent:
		s.text(AnthSubagentAnswer, 10, a.SubagentDelay/10)
	case toolResult && strings.Contains(a.lastPrompt(&req), AnthAgent):
		s.text(AnthAgentDone, 1, 0)
	case toolResult:
		s.text(AnthToolDone, 1, 0)
	case strings.Contains(last, "<task-notification>"):
		s.text(AnthAgentDone, 1, 0)
	case strings.Contains(last, AnthHuge):
		s.inputTokens = AnthHugeTokens
		s.text(AnthShortAnswer, 1, 0)
	case strings.Contains(last, AnthSlow):
		var b strings.Builder
		for i := 0; i < a.SlowChunks; i++ {
			fmt.Fprintf(&b, "word%d ", i)
		}
		s.text(b.String(), a.SlowChunks, a.SlowDelay)
	case strings.Contains(last, AnthTool):
		s.toolUse("Bash", map[string]any{"command": AnthToolCommand, "description": "Write hi to f.txt"})
	case strings.Contains(last, AnthAgent):
		s.toolUse("Agent", map[string]any{"description": "Count slowly", "prompt": AnthSubagentPrompt, "subagent_type": "general-purpose"})
	default:
		s.text(AnthShortAnswer, 1, 0)
	}
}

// lastPrompt is the last user message that is not a tool result.
func (a *Anthropic) lastPrompt(r *anthRequest) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role != "user" {
			continue
		}
		if t, res := anthTexts(r.Messages[i].Content); !res {
			return t
		}
	}
	return ""
}

func (a *Anthropic) record(r AnthropicRequest) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, _ := json.Marshal(r)
	a.log.Write(append(b, '\n'))
	r.Body = nil
	a.reqs = append(a.reqs, r)
}

func (a *Anthropic) finished(n int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := range a.reqs {
		if a.reqs[i].N == n {
			a.reqs[i].Finished = time.Now()
		}
	}
}

// Finished is when the last complete answer to a request of kind ended
// (zero if none did).
func (a *Anthropic) Finished(kind string) time.Time {
	var t time.Time
	for _, r := range a.Requests() {
		if r.Kind == kind && r.Finished.After(t) {
			t = r.Finished
		}
	}
	return t
}

func anthCompactJSON(b []byte) json.RawMessage {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		s, _ := json.Marshal(string(b))
		return s
	}
	return out.Bytes()
}

// anthSSE writes one Messages stream.
type anthSSE struct {
	ok          bool // message_stop was written
	inputTokens int
	w           http.ResponseWriter
	f           http.Flusher
	id          string
}

func newAnthSSE(w http.ResponseWriter, n int64) *anthSSE {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", fmt.Sprintf("req_fake%d", n))
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &anthSSE{w: w, f: f, id: fmt.Sprintf("msg_fake%06d", n)}
}

// event writes one event; false when the client has gone (an interrupt).
func (s *anthSSE) event(typ string, data any) bool {
	b, _ := json.Marshal(data)
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", typ, b); err != nil {
		return false
	}
	if s.f != nil {
		s.f.Flush()
	}
	return true
}

func (s *anthSSE) start() bool {
	return s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": s.id, "type": "message", "role": "assistant", "model": "claude-fake-1", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": max(s.inputTokens, 12), "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
}

func (s *anthSSE) stop(reason string, out int) {
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": reason, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": out}})
	s.ok = s.event("message_stop", map[string]any{"type": "message_stop"})
}

// text streams text in chunks pieces, delay apart.
func (s *anthSSE) text(text string, chunks int, delay time.Duration) {
	if !s.start() {
		return
	}
	s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	for _, part := range anthSplit(text, chunks) {
		if !s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": part}}) {
			return
		}
		if delay > 0 {
			time.Sleep(delay)
		}
	}
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.stop("end_turn", len(text)/4+1)
}

// toolUse streams one tool_use anthBlock, its input as two JSON deltas.
func (s *anthSSE) toolUse(name string, input map[string]any) {
	if !s.start() {
		return
	}
	s.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "tool_use", "id": strings.Replace(s.id, "msg_", "toolu_", 1), "name": name, "input": map[string]any{}}})
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "echo hi > f.txt" as the model would write it
	enc.Encode(input)
	for _, part := range anthSplit(strings.TrimSpace(buf.String()), 2) {
		s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
	}
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	s.stop("tool_use", 20)
}

// anthSplit cuts s into n pieces of about the same length.
func anthSplit(s string, n int) []string {
	if n <= 1 || len(s) < n {
		return []string{s}
	}
	var out []string
	size := len(s) / n
	for i := 0; i < n-1; i++ {
		out = append(out, s[i*size:(i+1)*size])
	}
	return append(out, s[(n-1)*size:])
}
