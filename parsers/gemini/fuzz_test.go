package gemini

import (
	"testing"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/parsertest"
)

// FuzzGeminiParse: any line, read fresh and inside a re-appended history,
// never panics, is malformed only when it is not a JSON object, and is an
// interrupt only when it holds the exact marker; the scan path gives the
// whole parse's evidence; whatever came before, a
// $set.messages closes a history, so a prompt after it is a turn again.
func FuzzGeminiParse(f *testing.F) {
	f.Add([]byte(`{"id":"a","type":"info","content":"Request cancelled."}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		parsertest.Fuzz(t, NewParser(), line, cancelled)
		opened := []byte(`{"id":"c","type":"user","content":[{"text":"<session_context>\nx"}]}`)
		newParser := func() parsers.Parser { return NewParser() }
		parsertest.Same(t, newParser, "fuzz", [][]byte{line})
		parsertest.Same(t, newParser, "fuzz in a history", [][]byte{opened, line, []byte(`{"id":"u","type":"user","content":[{"text":"hi"}]}`)})
		p := NewParser()
		if _, err := p.Parse([]byte(`{"id":"c","type":"user","content":[{"text":"<session_context>\nx"}]}`)); err != nil {
			t.Fatal(err)
		}
		parsertest.Fuzz(t, p, line, cancelled)
		if _, err := p.Parse([]byte(`{"$set":{"messages":[]}}`)); err != nil {
			t.Fatal(err)
		}
		if ev, _ := p.Parse([]byte(`{"id":"u","type":"user","content":[{"text":"hello"}]}`)); ev.Kind != parsers.KindTurnStart {
			t.Fatalf("prompt after a closed history: %s", ev.Kind)
		}
	})
}
