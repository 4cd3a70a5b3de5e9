package client

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/server"
)

// serve runs a real relay on a real socket until the returned stop is
// called; stop waits for the server to close its connections.
func serve(t *testing.T, socket string, cfg relay.Config) (*relay.Relay, func()) {
	t.Helper()
	ln, err := server.Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := relay.New(cfg, nil, nil, zerolog.Nop())
	go r.Run(ctx)
	done := make(chan struct{})
	go func() { server.New(r, zerolog.Nop()).Serve(ctx, ln); close(done) }()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return r, stop
}

func hook(t *testing.T, r *relay.Relay, event, session string) {
	t.Helper()
	p := fmt.Sprintf(`{"hook_event_name":%q,"session_id":%q,"cwd":"/w"}`, event, session)
	if err := r.Hook(context.Background(), "codex", "", []byte(p)); err != nil {
		t.Fatal(err)
	}
}

// next returns the next update, failing after a generous bound.
func next(t *testing.T, ups <-chan Update) Update {
	t.Helper()
	select {
	case u, ok := <-ups:
		if !ok {
			t.Fatal("stream closed")
		}
		return u
	case <-time.After(20 * time.Second):
		t.Fatal("no update")
	}
	return Update{}
}

func socketPath(t *testing.T) string {
	dir, err := os.MkdirTemp("", "lwf") // short: unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "s.sock")
}

// TestFollowSurvivesRestart: the daemon stops and a new one starts on the
// same socket; Follow says it lost the stream, then resumes with the new
// daemon's snapshot and its changes.
func TestFollowSurvivesRestart(t *testing.T) {
	sock := socketPath(t)
	r, stop := serve(t, sock, relay.Config{})
	hook(t, r, "UserPromptSubmit", "before")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ups, err := Follow(ctx, sock, FollowOptions{MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if u := next(t, ups); u.Kind != UpdateConnected || u.Snapshot != 1 {
		t.Fatalf("first update %+v", u)
	}
	if u := next(t, ups); u.Kind != UpdateEvent || !u.Event.Snapshot || u.Event.Session != "before" {
		t.Fatalf("snapshot %+v", u)
	}
	stop()
	if u := next(t, ups); u.Kind != UpdateLost || u.Err == nil {
		t.Fatalf("after the stop: %+v", u)
	}
	r2, _ := serve(t, sock, relay.Config{})
	hook(t, r2, "UserPromptSubmit", "kept")
	u := next(t, ups)
	if u.Kind != UpdateConnected {
		t.Fatalf("after the restart: %+v", u)
	}
	for i := 0; i < u.Snapshot; i++ {
		if s := next(t, ups); !s.Event.Snapshot || s.Event.Session != "kept" {
			t.Fatalf("fresh snapshot %+v", s)
		}
	}
	hook(t, r2, "Stop", "kept")
	for {
		u := next(t, ups)
		if u.Kind == UpdateEvent && !u.Event.Snapshot && u.Event.Session == "kept" && u.Event.State == "done" {
			break
		}
	}
	cancel()
	for range ups {
	}
}

// TestFollowBurst: a subscriber that falls far behind is not dropped: the
// daemon coalesces what it missed (the latest change per session, marked
// resync), so Follow never loses the stream and in the end knows every
// session.
func TestFollowBurst(t *testing.T) {
	sock := socketPath(t)
	r, _ := serve(t, sock, relay.Config{Backlog: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ups, err := Follow(ctx, sock, FollowOptions{MinBackoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if u := next(t, ups); u.Kind != UpdateConnected || u.Snapshot != 0 {
		t.Fatalf("first update %+v", u)
	}
	// Not reading while the relay publishes far more than the socket
	// buffers and the client's channels hold.
	const n = 5000
	for i := range n {
		hook(t, r, "UserPromptSubmit", fmt.Sprintf("s%04d", i))
	}
	known := map[string]bool{}
	resyncs := 0
	for len(known) < n {
		switch u := next(t, ups); u.Kind {
		case UpdateLost, UpdateConnected:
			t.Fatalf("the stream was lost under a burst: %+v", u)
		case UpdateEvent:
			known[u.Event.Session] = true
			if u.Event.Resync {
				resyncs++
			}
		}
	}
	if resyncs == 0 {
		t.Fatal("no change was marked resync, though the subscriber fell behind")
	}
	cancel()
	for range ups {
	}
}

// TestFollowNoDaemon: the first connection is not retried.
func TestFollowNoDaemon(t *testing.T) {
	if _, err := Follow(context.Background(), socketPath(t), FollowOptions{}); err == nil || !strings.Contains(err.Error(), ErrNoDaemon.Error()) {
		t.Fatalf("err = %v", err)
	}
}
