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
	claudeLines, piLines := sameContent(b, files, asPi)
	geminiLines, geminiBytes := asGeminiAll(files)
	runSameContent(b, []sameCase{
		{"claude", claudeLines.lines, claudeLines.bytes, func() parsers.Parser { return claude.NewClaude() }},
		{"pi", piLines.lines, piLines.bytes, func() parsers.Parser { return pi.NewParser() }},
		{"gemini", geminiLines, geminiBytes, func() parsers.Parser { return gemini.NewParser() }},
	})
}

// lineSet is lines and their bytes, newlines counted.
type lineSet struct {
	lines [][]byte
	bytes int64
}

func (s *lineSet) add(l []byte) {
	s.lines = append(s.lines, l)
	s.bytes += int64(len(l) + 1)
}

// sameContent is every Claude transcript line of files that as (its n-th
// conversion) rewrites, and the rewrites; fewer than 100 skip the benchmark.
func sameContent(b *testing.B, files []benchFile, as func(line []byte, n int) []byte) (claudes, rewrites lineSet) {
	for _, f := range files {
		for _, l := range f.lines {
			if r := as(l, len(rewrites.lines)); r != nil {
				claudes.add(l)
				rewrites.add(r)
			}
		}
	}
	if len(rewrites.lines) < 100 {
		b.Skipf("only %d convertible lines", len(rewrites.lines))
	}
	return claudes, rewrites
}

// sameCase is one parser over its lines.
type sameCase struct {
	name  string
	lines [][]byte
	bytes int64
	p     func() parsers.Parser
}

// runSameContent runs each case as a sub-benchmark, per byte.
func runSameContent(b *testing.B, cases []sameCase) {
	for _, c := range cases {
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
