package all_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/parsers/gemini"
	"github.com/logwatch/logwatch/parsers/pi"
)

// BenchmarkSameContent compares the parsers per byte on the same content:
// every real Claude Code transcript, as it is and rewritten line by line in
// pi's format (a prompt, an answer's text and tool calls, a tool's result,
// each with the same text and inputs; Claude's bookkeeping lines, which pi
// does not write, left out). pi's MB/s within 1.5× of Claude's in the same
// run is issue 25's bound; the captures pi's live scenarios wrote are too
// small (a fake model's answers) to say anything per byte.
func BenchmarkSameContent(b *testing.B) {
	files, _ := benchLoad(b, "claude")
	var claudeLines, piLines [][]byte
	var claudeBytes, piBytes int64
	for _, f := range files {
		for _, l := range f.lines {
			if p := asPi(l, len(piLines)); p != nil {
				claudeLines = append(claudeLines, l)
				claudeBytes += int64(len(l) + 1)
				piLines = append(piLines, p)
				piBytes += int64(len(p) + 1)
			}
		}
	}
	if len(piLines) < 100 {
		b.Skipf("only %d convertible lines", len(piLines))
	}
	geminiLines, geminiBytes := asGeminiAll(files)
	for _, c := range []struct {
		name  string
		lines [][]byte
		bytes int64
		p     func() parsers.Parser
	}{
		{"claude", claudeLines, claudeBytes, func() parsers.Parser { return claude.NewClaude() }},
		{"pi", piLines, piBytes, func() parsers.Parser { return pi.NewParser() }},
		{"gemini", geminiLines, geminiBytes, func() parsers.Parser { return gemini.NewParser() }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(c.bytes)
			b.ReportAllocs()
			p := c.p()
			for b.Loop() {
				for _, l := range c.lines {
					if _, err := p.Parse(l); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(c.lines)), "lines")
		})
	}
}

// asPi rewrites one Claude transcript line as the pi line that says the
// same, or nil for a line pi has no counterpart of.
func asPi(line []byte, n int) []byte {
	var c struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Message   struct {
			Content    json.RawMessage `json:"content"`
			StopReason string          `json:"stop_reason"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &c) != nil || (c.Type != "user" && c.Type != "assistant") {
		return nil
	}
	var text string
	var blocks []map[string]any
	if json.Unmarshal(c.Message.Content, &text) != nil && json.Unmarshal(c.Message.Content, &blocks) != nil {
		return nil
	}
	entry := map[string]any{"type": "message", "id": fmt.Sprintf("%08x", n), "parentId": fmt.Sprintf("%08x", n-1), "timestamp": c.Timestamp}
	var msg map[string]any
	switch {
	case c.Type == "user" && blocks == nil:
		msg = map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}
	case c.Type == "user" && len(blocks) > 0 && blocks[0]["type"] == "tool_result":
		msg = map[string]any{"role": "toolResult", "toolCallId": blocks[0]["tool_use_id"], "toolName": "bash",
			"content": []any{map[string]any{"type": "text", "text": fmt.Sprint(blocks[0]["content"])}}, "isError": false}
	case c.Type == "user":
		msg = map[string]any{"role": "user", "content": blocks}
	default:
		var content []any
		stop := "stop"
		for _, bl := range blocks {
			switch bl["type"] {
			case "text":
				content = append(content, map[string]any{"type": "text", "text": bl["text"]})
			case "thinking":
				content = append(content, map[string]any{"type": "thinking", "thinking": bl["thinking"]})
			case "tool_use":
				content = append(content, map[string]any{"type": "toolCall", "id": bl["id"], "name": bl["name"], "arguments": bl["input"]})
				stop = "toolUse"
			}
		}
		if content == nil {
			return nil
		}
		msg = map[string]any{"role": "assistant", "content": content, "api": "anthropic-messages", "provider": "anthropic",
			"model": "claude", "stopReason": stop, "usage": map[string]any{"input": 1, "output": 1}}
	}
	entry["message"] = msg
	out, _ := json.Marshal(entry)
	return out
}
