package relay

import (
	"context"
	"fmt"
	"testing"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
)

// BenchmarkRelayLogLine is the relay's cost per live log line: a session
// in the middle of a long turn (tool calls and results, as most lines of a
// transcript are), each line delivered as the watcher does and folded by
// the owner goroutine. allocs/op must not grow: this is the hot path.
func BenchmarkRelayLogLine(b *testing.B) {
	r := New(DefaultConfig(), nil, nil, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	const id = "00000000-0000-4000-8000-000000000001"
	path := fmt.Sprintf("/home/u/.claude/projects/-w-p/%s.jsonl", id)
	p := parsers.New(claude)
	parse := func(l string) parsers.Evidence {
		ev, err := p.Parse([]byte(l))
		if err != nil {
			b.Fatal(err)
		}
		return ev
	}
	prompt := parse(fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":"/w/p","version":"2.1.328","timestamp":"2026-12-01T08:00:00.000Z","message":{"role":"user","content":"hello"}}`, id))
	lines := [2]parsers.Evidence{
		parse(fmt.Sprintf(`{"type":"assistant","sessionId":%q,"cwd":"/w/p","version":"2.1.328","timestamp":"2026-12-01T08:00:01.000Z","message":{"role":"assistant","model":"m","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}`, id)),
		parse(fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":"/w/p","version":"2.1.328","timestamp":"2026-12-01T08:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`, id)),
	}
	r.BootstrapDone()
	<-r.Booted()
	var end int64
	send := func(i int, ev parsers.Evidence) {
		off := end
		end += 200
		r.Log(LogLine{Path: path, Session: id, Agent: claude, Offset: off, End: end, Line: i + 1, Evidence: ev})
	}
	send(0, prompt)
	if _, err := r.Status(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		send(i+1, lines[i%2])
	}
	if _, err := r.Status(ctx); err != nil { // every line folded
		b.Fatal(err)
	}
}
