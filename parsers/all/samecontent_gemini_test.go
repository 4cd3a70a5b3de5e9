package all_test

import (
	"encoding/json"
	"fmt"
)

// asGeminiAll rewrites every line asPi rewrites (the same Claude lines)
// as the Gemini CLI record that says the same, for BenchmarkSameContent.
func asGeminiAll(files []benchFile) (lines [][]byte, size int64) {
	n := 0
	for _, f := range files {
		for _, l := range f.lines {
			if asPi(l, n) == nil {
				continue
			}
			if g := asGemini(l, n); g != nil {
				lines = append(lines, g)
				size += int64(len(g) + 1)
			}
			n++
		}
	}
	return lines, size
}

// asGemini rewrites one Claude transcript line as Gemini CLI 0.61.0 writes
// the same message (formats/gemini.md §2.2): a prompt's text as a parts
// array, a tool's result as a functionResponse part, an answer as its text
// with its tool calls done (the upsert that holds toolCalls).
func asGemini(line []byte, n int) []byte {
	var c struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Message   struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &c) != nil {
		return nil
	}
	var text string
	var blocks []map[string]any
	if json.Unmarshal(c.Message.Content, &text) != nil && json.Unmarshal(c.Message.Content, &blocks) != nil {
		return nil
	}
	rec := map[string]any{"id": fmt.Sprintf("%08x-0000-4000-8000-000000000000", n), "timestamp": c.Timestamp}
	switch {
	case c.Type == "user" && blocks == nil:
		rec["type"], rec["content"] = "user", []any{map[string]any{"text": text}}
	case c.Type == "user" && len(blocks) > 0 && blocks[0]["type"] == "tool_result":
		rec["type"] = "user"
		rec["content"] = []any{map[string]any{"functionResponse": map[string]any{"id": blocks[0]["tool_use_id"], "name": "run_shell_command",
			"response": map[string]any{"output": fmt.Sprint(blocks[0]["content"])}}}}
	case c.Type == "user":
		rec["type"], rec["content"] = "user", blocks
	default:
		var answer string
		var thoughts, calls []any
		for _, bl := range blocks {
			switch bl["type"] {
			case "text":
				answer += fmt.Sprint(bl["text"])
			case "thinking":
				thoughts = append(thoughts, map[string]any{"subject": "", "description": bl["thinking"]})
			case "tool_use":
				calls = append(calls, map[string]any{"id": bl["id"], "name": bl["name"], "args": bl["input"], "status": "success",
					"timestamp": c.Timestamp, "displayName": "Shell", "renderOutputAsMarkdown": false})
			}
		}
		rec["type"], rec["content"], rec["thoughts"], rec["model"] = "gemini", answer, thoughts, "gemini-2.5-flash"
		rec["tokens"] = map[string]any{"input": 1, "output": 1, "cached": 0, "thoughts": 0, "tool": 0, "total": 2}
		if calls != nil {
			rec["toolCalls"] = calls
		}
	}
	out, _ := json.Marshal(rec)
	return out
}
