package claude

import (
	"slices"
	"testing"

	"github.com/logwatch/logwatch/parsers/parsertest"
)

// TestTitles reads the titles real transcripts carry: the summary record
// --resume lists, the title Claude Code generates, the one the user set,
// and each real prompt's first line (the fallback).
func TestTitles(t *testing.T) {
	const real = "../../../shared/realworld/claude/"
	for _, tc := range []struct {
		file          string
		title, prompt string // the first of each
	}{
		{"happy/c9de1ad3-3355-4392-b91b-6fcf853be4b0.jsonl", "Project Documentation Planning and Markdown Creation", "write an md doc detailing what this project does and what I…"},
		{"irrlicht/cc-2.1.143-esc-interrupt-while-streaming.jsonl", "Count from 1 to 100 with explanations", "Count slowly from 1 to 100, with a brief one-sentence expla…"},
		{"yepanywhere/native.jsonl", "Yep Anywhere Session", "This is a disposable fixture capture. Work only in this dir…"},
	} {
		titles, prompts := parsertest.Titles(t, NewClaude(), real+tc.file)
		if len(titles) == 0 || titles[0] != tc.title {
			t.Errorf("%s: titles %q, want first %q", tc.file, titles, tc.title)
		}
		if len(prompts) == 0 || prompts[0] != tc.prompt || slices.Contains(prompts, "") {
			t.Errorf("%s: prompts %q, want first %q", tc.file, prompts, tc.prompt)
		}
	}
}

// TestTitleByUser: a custom-title record is the person's (/rename), the
// generated ai-title and the summary are not.
func TestTitleByUser(t *testing.T) {
	p := NewClaude()
	for line, byUser := range map[string]bool{
		`{"type":"custom-title","customTitle":"Yep Anywhere Session","sessionId":"s"}`:             true,
		`{"type":"ai-title","aiTitle":"Acknowledge request confirmation","sessionId":"s"}`:         false,
		`{"type":"summary","summary":"Project Documentation Planning","leafUuid":"6a28c759-06d4"}`: false,
	} {
		ev, err := p.Parse([]byte(line))
		if err != nil || ev.Title == "" || ev.TitleByUser != byUser {
			t.Errorf("%s: title %q by user %v (%v), want by user %v", line, ev.Title, ev.TitleByUser, err, byUser)
		}
	}
}
