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

// Gemini is a fake Gemini API on 127.0.0.1 for Gemini CLI (its
// GOOGLE_GEMINI_BASE_URL): POST /v1beta/models/<m>:streamGenerateContent
// answered with the SSE stream it parses, and :generateContent, which
// /compress sends twice (formats/gemini.md §1.3). What it answers is
// scripted by the prompt (GeminiScript); every request is appended to
// requests.jsonl in the scenario folder with the kind it was taken for.
type Gemini struct {
	URL string // the base URL, without a path

	script GeminiScript
	endpoint[GeminiRequest]
}

// GeminiScript decides the reply to one request.
type GeminiScript func(GeminiRequest) GeminiReply

// GeminiRequest is one request as the server understood it.
type GeminiRequest struct {
	N      int       `json:"n"`
	At     time.Time `json:"at"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	Kind   string    `json:"kind"` // turn, tool_result, compact, other
	// LastUser is the text of the last user content that is not a
	// functionResponse nor Gemini CLI's <session_context>.
	LastUser string          `json:"last_user,omitempty"`
	Tools    int             `json:"tools"`
	Body     json.RawMessage `json:"body,omitempty"`
	// Outcome: complete, or client_gone when the CLI closed the
	// connection mid-stream (an interrupt).
	Outcome string `json:"-"`
}

// GeminiReply is one scripted answer: Text streamed as Chunks parts with
// Delay between them, or, with Shell set, text then a run_shell_command
// call for that command (which the CLI asks approval for).
type GeminiReply struct {
	Text   string
	Chunks int
	Delay  time.Duration
	Shell  string
}

// Prompt keywords the default script understands.
const (
	GeminiSlow = "SLOW" // a long answer streamed over OpenAISlowStream
	GeminiTool = "TOOL" // a shell command needing approval, then a short answer
)

// GeminiApprovalCommand is the command a TOOL prompt asks to run.
const GeminiApprovalCommand = "touch approved.txt"

// GeminiSlowScreen is what a SLOW answer shows once it streams.
const GeminiSlowScreen = "word5 "

// geminiSlowText is the SLOW answer: words that never repeat, since the
// CLI halts an answer that repeats itself as a loop (measured: "streaming
// slowly" forty times was cut as "A potential loop was detected").
func geminiSlowText() string {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "word%d ", i)
	}
	return b.String()
}

// GeminiSnapshot is the summary /compress gets back.
const GeminiSnapshot = "<state_snapshot>\n<overall_goal>greet the user</overall_goal>\n</state_snapshot>"

// DefaultGeminiScript answers a compression request with a state
// snapshot, a tool result with a closing sentence, a SLOW prompt slowly, a
// TOOL prompt with a shell call, and anything else with one sentence.
func DefaultGeminiScript(r GeminiRequest) GeminiReply {
	switch {
	case r.Kind == OpenAIReqCompact:
		return GeminiReply{Text: GeminiSnapshot}
	case r.Kind == OpenAIReqToolResult:
		return GeminiReply{Text: "The command ran. Done."}
	case strings.Contains(r.LastUser, GeminiSlow):
		return GeminiReply{Text: geminiSlowText(), Chunks: 40, Delay: OpenAISlowStream / 40}
	case strings.Contains(r.LastUser, GeminiTool):
		return GeminiReply{Text: "I will run a command.", Shell: GeminiApprovalCommand}
	}
	return GeminiReply{Text: fmt.Sprintf("Hello from the fake model (%d).", r.N)}
}

// StartGemini serves on a free 127.0.0.1 port until ctx ends or Close,
// logging requests into dir/requests.jsonl.
func StartGemini(ctx context.Context, dir string, script GeminiScript) (*Gemini, error) {
	if script == nil {
		script = DefaultGeminiScript
	}
	s := &Gemini{script: script}
	addr, err := s.listen(ctx, dir, "gemini", s.serve)
	if err != nil {
		return nil, err
	}
	s.URL = "http://" + addr
	return s, nil
}

func (r GeminiRequest) withBody(body json.RawMessage) GeminiRequest {
	r.Body = body
	return r
}

func (s *Gemini) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	_, action, _ := strings.Cut(r.URL.Path, ":")
	stream := action == "streamGenerateContent"
	req := geminiClassify(body)
	if !strings.HasPrefix(r.URL.Path, "/v1beta/models/") || r.Method != http.MethodPost ||
		!stream && action != "generateContent" || r.Header.Get("Content-Encoding") != "" {
		req.Kind = OpenAIReqOther
	}
	if !stream && req.Kind != OpenAIReqOther {
		req.Kind = OpenAIReqCompact // only /compress asks without streaming
	}
	req.At, req.Method, req.Path = time.Now().UTC(), r.Method, r.URL.Path
	s.mu.Lock()
	s.n++
	req.N = s.n
	s.record(req, body)
	s.mu.Unlock()
	if req.Kind == OpenAIReqOther {
		http.Error(w, `{"error":{"code":404,"message":"the fake serves only POST /v1beta/models/<m>:streamGenerateContent and :generateContent, uncompressed","status":"NOT_FOUND"}}`, http.StatusNotFound)
		return
	}
	rep := s.script(req)
	outcome := "complete"
	if stream {
		outcome = geminiStream(r.Context(), w, rep)
	} else {
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(geminiResponse(geminiParts(rep.Text, ""), true))
		if _, err := w.Write(b); err != nil {
			outcome = "client_gone"
		}
	}
	s.mu.Lock()
	for i := range s.reqs {
		if s.reqs[i].N == req.N {
			s.reqs[i].Outcome = outcome
		}
	}
	s.mu.Unlock()
}

// geminiClassify reads what the CLI asked for: a turn, or a tool result
// when the last content holds a functionResponse.
func geminiClassify(body []byte) GeminiRequest {
	var in struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text             *string         `json:"text"`
				FunctionResponse json.RawMessage `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &in); err != nil || len(in.Contents) == 0 {
		return GeminiRequest{Kind: OpenAIReqOther}
	}
	req := GeminiRequest{Kind: OpenAIReqTurn, Tools: len(in.Tools)}
	for i, c := range in.Contents {
		if c.Role != "user" {
			continue
		}
		var text strings.Builder
		result := false
		for _, p := range c.Parts {
			switch {
			case p.FunctionResponse != nil:
				result = true
			case p.Text != nil && !strings.HasPrefix(*p.Text, "<session_context>"):
				text.WriteString(*p.Text)
			}
		}
		if text.Len() > 0 {
			req.LastUser = text.String()
		}
		if i == len(in.Contents)-1 && result {
			req.Kind = OpenAIReqToolResult
		}
	}
	return req
}

// geminiParts are the parts of an answer: its text, and a shell call.
func geminiParts(text, shell string) []any {
	var parts []any
	if text != "" {
		parts = append(parts, map[string]any{"text": text})
	}
	if shell != "" {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
			"args": map[string]any{"command": shell, "description": "the conformance suite needs approval"}}})
	}
	return parts
}

// geminiResponse is one GenerateContentResponse; the last one says STOP
// and the usage.
func geminiResponse(parts []any, last bool) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	r := map[string]any{"candidates": []any{cand}, "modelVersion": "gemini-2.5-flash", "responseId": "fake"}
	if last {
		cand["finishReason"] = "STOP"
		r["usageMetadata"] = map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120}
	}
	return r
}

// geminiStream writes one answer as SSE (`data: <json>` and a blank line
// each) and says how it ended.
func geminiStream(ctx context.Context, w http.ResponseWriter, rep GeminiReply) string {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	send := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "data: %s\r\n\r\n", b); err != nil {
			return err
		}
		if fl != nil {
			fl.Flush()
		}
		return ctx.Err()
	}
	chunks := openaiChunks(rep.Text, rep.Chunks)
	for i, d := range chunks {
		if i > 0 && rep.Delay > 0 {
			select {
			case <-ctx.Done():
				return "client_gone"
			case <-time.After(rep.Delay):
			}
		}
		last := i == len(chunks)-1 && rep.Shell == ""
		if send(geminiResponse(geminiParts(d, ""), last)) != nil {
			return "client_gone"
		}
	}
	if rep.Shell != "" && send(geminiResponse(geminiParts("", rep.Shell), true)) != nil {
		return "client_gone"
	}
	return "complete"
}
