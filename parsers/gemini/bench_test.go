package gemini

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"

	"github.com/logwatch/logwatch/parsers"
)

// editLog is a chat file of n edits in the shapes Gemini CLI writes them
// (testdata/captures): turns with a tool upserted by id, a rejected tool
// with its re-appended history and $set.messages, cancels, /compress.
func editLog(n int) [][]byte {
	lines := [][]byte{
		[]byte(`{"sessionId":"7389ec91-4f54-47e3-a648-bbe004ca0b62","projectHash":"2dae","startTime":"2026-12-05T01:05:47.061Z","lastUpdated":"2026-12-05T01:05:47.061Z","kind":"main"}`),
		[]byte(`{"$set":{"messages":[{"id":"d0","timestamp":"2026-12-05T01:05:47.061Z","type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI.</session_context>"}]}],"lastUpdated":"2026-12-05T01:05:47.061Z"}}`),
	}
	upd := []byte(`{"$set":{"lastUpdated":"2026-12-05T01:05:53.709Z"}}`)
	for i := 0; len(lines) < n; i++ {
		ts := fmt.Sprintf("2026-12-05T01:%02d:%02d.000Z", i/60%60, i%60)
		id := func(k int) string { return fmt.Sprintf("%08x-%d", i, k) }
		call := fmt.Sprintf(`"toolCalls":[{"id":"run_shell_command_%d","name":"run_shell_command","args":{"command":"touch f%d","description":"d"},"status":"success","timestamp":%q}]`, i, i, ts)
		lines = append(lines,
			[]byte(fmt.Sprintf(`{"id":%q,"timestamp":%q,"type":"user","content":[{"text":"please TOOL %d"}]}`, id(0), ts, i)), upd,
			[]byte(fmt.Sprintf(`{"id":%q,"timestamp":%q,"type":"gemini","content":"I will run a command.","thoughts":[],"tokens":{"input":100,"output":20,"cached":0,"thoughts":0,"tool":0,"total":120},"model":"gemini-2.5-flash"}`, id(1), ts)), upd,
			[]byte(fmt.Sprintf(`{"id":%q,"timestamp":%q,"type":"gemini","content":"I will run a command.","thoughts":[],"tokens":{"input":100,"output":20,"cached":0,"thoughts":0,"tool":0,"total":120},"model":"gemini-2.5-flash",%s}`, id(1), ts, call)),
			[]byte(fmt.Sprintf(`{"id":%q,"timestamp":%q,"type":"user","content":[{"functionResponse":{"id":"run_shell_command_%d","name":"run_shell_command","response":{"output":"Output: (empty)"}}}]}`, id(2), ts, i)), upd,
			[]byte(fmt.Sprintf(`{"id":%q,"timestamp":%q,"type":"gemini","content":"The command ran. Done.","thoughts":[],"tokens":null,"model":"gemini-2.5-flash"}`, id(3), ts)), upd)
		if i%4 == 3 {
			// A cancel: the marker, the history re-appended, its $set.
			lines = append(lines,
				[]byte(fmt.Sprintf(`{"id":%q,"timestamp":%q,"type":"info","content":"Request cancelled."}`, id(4), ts)), upd,
				[]byte(fmt.Sprintf(`{"id":%q,"timestamp":%q,"type":"user","content":[{"text":"<session_context>\nThis is the Gemini CLI.</session_context>"}]}`, id(5), ts)), upd,
				[]byte(fmt.Sprintf(`{"id":%q,"timestamp":%q,"type":"user","content":[{"text":"please TOOL %d"}]}`, id(6), ts, i)), upd,
				[]byte(fmt.Sprintf(`{"$set":{"messages":[{"id":%q,"type":"user","content":[{"text":"<session_context>"}]},{"id":%q,"type":"user","content":[{"text":"please TOOL %d"}]}]}}`, id(5), id(6), i)))
		}
	}
	return lines[:n]
}

// BenchmarkFold folds a session of 10 000 edits. The parser keeps what the
// state needs of the document in state-B bytes, whatever the number of
// edits (its replay flag and the session id: no message is kept by id).
func BenchmarkFold(b *testing.B) {
	lines := editLog(10000)
	var size int64
	for _, l := range lines {
		size += int64(len(l)) + 1
	}
	b.SetBytes(size)
	b.ReportAllocs()
	p := NewParser()
	for b.Loop() {
		p.Reset()
		for _, l := range lines {
			if _, err := p.Parse(l); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(unsafe.Sizeof(*p))+float64(len(p.id.Get(nil))), "state-B")
	b.ReportMetric(float64(len(lines)), "edits")
}

// TestFoldBounded: folding ten times the edits allocates no more per edit
// (nothing is kept per message id), and every edit is read as news once.
func TestFoldBounded(t *testing.T) {
	perEdit := func(n int) float64 {
		lines := editLog(n)
		p := NewParser()
		return testing.AllocsPerRun(3, func() {
			p.Reset()
			for _, l := range lines {
				if _, err := p.Parse(l); err != nil {
					t.Fatal(err)
				}
			}
		}) / float64(n)
	}
	small, big := perEdit(1000), perEdit(10000)
	if big > small*1.1+0.01 {
		t.Errorf("allocations per edit grow with the log: %.3f at 1 000 edits, %.3f at 10 000", small, big)
	}
	turns, prompts := 0, 0
	p := NewParser()
	for _, l := range editLog(10000) {
		ev, _ := p.Parse(l)
		if ev.Kind == parsers.KindTurnStart {
			turns++
		}
		if bytes.Contains(l, []byte(`-0","timestamp"`)) { // the prompts typed (id 0 of each turn)
			prompts++
		}
	}
	if turns != prompts {
		t.Errorf("%d turn starts for %d prompts in 10 000 edits", turns, prompts)
	}
}
