package all_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/parsers/copilot"
)

// BenchmarkSameContentCopilot is BenchmarkSameContent for Copilot CLI:
// every real Claude Code transcript line that has a counterpart, as it is
// and rewritten as the events.jsonl line that says the same (a prompt's
// user.message, an answer's assistant.message with its tool requests, a
// tool's tool.execution_complete). Copilot's MB/s within 1.5× of Claude's in
// the same run is the bound.
func BenchmarkSameContentCopilot(b *testing.B) {
	files, _ := benchLoad(b, "claude")
	claudeLines, cpLines := sameContent(b, files, asCopilot)
	runSameContent(b, []sameCase{
		{"claude", claudeLines.lines, claudeLines.bytes, func() parsers.Parser { return claude.NewClaude() }},
		{"copilot", cpLines.lines, cpLines.bytes, func() parsers.Parser { return copilot.NewParser() }},
	})
}

// asCopilot rewrites one Claude transcript line as the Copilot CLI event
// that says the same, or nil for a line Copilot has no counterpart of.
func asCopilot(line []byte, n int) []byte {
	var c struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Message   struct {
			Content json.RawMessage `json:"content"`
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
	var typ string
	var data map[string]any
	switch {
	case c.Type == "user" && blocks == nil:
		typ, data = "user.message", map[string]any{"content": text, "transformedContent": text, "messageId": fmt.Sprintf("m%d", n),
			"delivery": "idle", "interactionId": "i", "turnId": "0"}
	case c.Type == "user" && len(blocks) > 0 && blocks[0]["type"] == "tool_result":
		typ, data = "tool.execution_complete", map[string]any{"toolCallId": blocks[0]["tool_use_id"], "model": "claude",
			"success": true, "result": map[string]any{"content": fmt.Sprint(blocks[0]["content"])}}
	case c.Type == "user":
		return nil
	default:
		var content string
		requests := []any{}
		for _, bl := range blocks {
			switch bl["type"] {
			case "text":
				content += fmt.Sprint(bl["text"])
			case "tool_use":
				requests = append(requests, map[string]any{"toolCallId": bl["id"], "name": bl["name"], "arguments": bl["input"], "type": "function"})
			}
		}
		if content == "" && len(requests) == 0 {
			return nil
		}
		typ, data = "assistant.message", map[string]any{"messageId": fmt.Sprintf("m%d", n), "model": "claude", "content": content,
			"toolRequests": requests, "interactionId": "i", "turnId": "0"}
	}
	out, _ := json.Marshal(map[string]any{"type": typ, "data": data, "id": fmt.Sprintf("%08x", n),
		"timestamp": c.Timestamp, "parentId": fmt.Sprintf("%08x", n-1)})
	return out
}
