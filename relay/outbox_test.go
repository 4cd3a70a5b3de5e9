package relay

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
)

// TestOutboxBatches: a step that publishes more changes than the outbox
// holds (start-up settling every session's history) hands them over in
// batches, and a subscriber still gets every one, in order; the room kept
// between steps is the outbox's small one.
func TestOutboxBatches(t *testing.T) {
	const n = 3*outboxBatch + 5
	r := New(DefaultConfig(), nil, nil, zerolog.Nop())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	sub, err := r.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := parsers.New(claude)
	for i := range n {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		ev, err := p.Parse([]byte(fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":"/w","version":"2.1.328","timestamp":"2026-12-01T08:00:00.000Z","message":{"role":"user","content":"hi"}}`, id)))
		if err != nil {
			t.Fatal(err)
		}
		r.Log(LogLine{Path: "/logs/" + id + ".jsonl", Session: id, Agent: claude, End: 10, Line: 1, Evidence: ev, Bootstrap: true})
	}
	r.BootstrapDone()
	var kept int
	if err := r.do(ctx, func() {}); err != nil {
		t.Fatal(err)
	}
	if err := r.do(ctx, func() { kept = cap(r.m.out.events) }); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		select {
		case ev := <-sub.C():
			if ev.Seq != uint64(i+1) || !ev.Bootstrap {
				t.Fatalf("change %d: seq %d bootstrap %v, want seq %d, bootstrap", i, ev.Seq, ev.Bootstrap, i+1)
			}
		case <-sub.More():
			t.Fatalf("change %d: coalesced, want every change", i)
		case <-ctx.Done():
			t.Fatalf("change %d never came", i)
		}
	}
	if kept > outboxKeep {
		t.Errorf("the outbox keeps room for %d changes between steps, want at most %d", kept, outboxKeep)
	}
}
