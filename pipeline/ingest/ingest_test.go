package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/wire"
	"github.com/logwatch/logwatch/watcher"
)

// TestSubscriberDuringStartupConverges (issue 12 item 6): a subscriber that
// connects while the start-up read is still folding history ends up showing
// exactly what status says for every session, with the real watcher, pump
// and relay on real files.
func TestSubscriberDuringStartupConverges(t *testing.T) {
	root := t.TempDir()
	const files = 200
	for i := 0; i < files; i++ {
		id := fmt.Sprintf("s%03d", i)
		var b strings.Builder
		fmt.Fprintf(&b, `{"type":"user","sessionId":"%s","cwd":"/w","version":"2.1.143","message":{"role":"user","content":"go"}}`+"\n", id)
		for j := 0; j < 40; j++ {
			fmt.Fprintf(&b, `{"type":"assistant","sessionId":"%s","message":{"role":"assistant","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"step %d"}}]}}`+"\n", id, j, j)
		}
		if i%2 == 0 { // half end their turn, half are still working
			fmt.Fprintf(&b, `{"type":"system","subtype":"turn_duration","sessionId":"%s","durationMs":100}`+"\n", id)
		}
		dir := filepath.Join(root, "-w")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := watcher.New(watcher.Config{Roots: map[parsers.Agent][]string{claude.Name: {root}}, Buffer: 64}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	r := relay.New(relay.Config{}, relay.SystemClock{}, w, zerolog.Nop())
	go r.Run(ctx)
	sub, err := r.Subscribe(ctx) // before the start-up read begins
	if err != nil {
		t.Fatal(err)
	}
	go w.Run(ctx)
	go Pump(ctx, w, r, Options{})
	<-w.Ready()

	seen := map[string]string{}
	var st wire.Status
	deadline := time.Now().Add(20 * time.Second)
	for {
		// Drain what the subscriber got so far, then compare with status.
		for drained := false; !drained; {
			select {
			case ev := <-sub.C():
				seen[ev.Session] = ev.State + "/" + ev.Reason
			case <-time.After(100 * time.Millisecond):
				drained = true
			}
		}
		st, err = r.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		diff := 0
		for _, s := range st.Sessions {
			if seen[s.Session] != s.State+"/"+s.Reason {
				diff++
			}
		}
		if len(st.Sessions) == files && diff == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, s := range st.Sessions {
				if seen[s.Session] != s.State+"/"+s.Reason {
					t.Errorf("%s: subscriber shows %q, status %s/%s", s.Session, seen[s.Session], s.State, s.Reason)
				}
			}
			t.Fatalf("%d sessions in status, %d differ from the subscriber", len(st.Sessions), diff)
		}
	}
}
