package tmux

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/statusview"
	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

// realTmux starts a private tmux server with two windows (panes %0 and
// %1) and returns it and its pid.
func realTmux(t testing.TB) (Server, int) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		testsupport.Missing(t, "tmux not installed")
	}
	dir, err := os.MkdirTemp("", "lwtmux") // short: socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	s := Server{Socket: filepath.Join(dir, "s")}
	ctx := context.Background()
	if _, err := s.Run(ctx, []string{"-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "80", "-y", "20", "sleep 100000"},
		[]string{"new-window", "-d", "sleep 100000"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Run(context.Background(), []string{"kill-server"})
		os.RemoveAll(dir)
	})
	out, err := s.Run(ctx, []string{"display-message", "-p", "#{pid}"})
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return s, pid
}

func show(t testing.TB, s Server, args ...string) string {
	t.Helper()
	out, err := s.Run(context.Background(), append([]string{"show-options", "-v"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(string(out), "\n")
}

func windowOfPane(t testing.TB, s Server, pane string) string {
	out, err := s.Run(context.Background(), []string{"display-message", "-p", "-t", pane, "#{window_id}"})
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestFollowerBurst: a burst already queued is one batch (one pane
// listing, one tmux invocation setting the options), and the options are
// the burst's last word; nothing left to change, nothing runs.
func TestFollowerBurst(t *testing.T) {
	s, pid := realTmux(t)
	ups := make(chan client.Update, 256)
	ups <- client.Update{Kind: client.UpdateConnected, Snapshot: 1}
	ups <- client.Update{Kind: client.UpdateEvent, Event: wire.Event{Snapshot: true, Since: time.Now(), Session: "old", State: "ready", Tab: "wrap-x"}}
	states := []string{"working", "waiting", "working", "done"}
	for i := range 100 {
		ups <- client.Update{Kind: client.UpdateEvent, Event: wire.Event{Since: time.Now(), Session: "s1", State: states[i%4], Tab: fmt.Sprintf("tmux-%d-%%1", pid)}}
	}
	ups <- client.Update{Kind: client.UpdateEvent, Event: wire.Event{Since: time.Now(), Session: "s2", State: "waiting", Tab: fmt.Sprintf("tmux-%d-%%0", pid)}}
	// The follower waits after each batch until the test has queued the
	// next one, so a batch is what the test queued, whatever the scheduler.
	flushed, proceed := make(chan struct{}), make(chan struct{})
	f := &Follower{Server: s, ServerPid: pid, Log: zerolog.Nop(), Flushed: func() { flushed <- struct{}{}; <-proceed }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- f.Run(ctx, ups) }()
	waitFlush := func(what string) {
		t.Helper()
		select {
		case <-flushed:
		case <-time.After(30 * time.Second): // a bound on a hang, not a timing
			t.Fatalf("%s: tmux never set", what)
		}
	}
	waitFlush("the burst")
	if n := f.Calls(); n != 2 {
		t.Fatalf("a burst of 102 updates took %d tmux calls, want 2", n)
	}
	if d := show(t, s, "-w", "-t", windowOfPane(t, s, "%1"), DotOption); d != Dot("done") {
		t.Fatalf("window of %%1: dot %q, want done's", d)
	}
	if d := show(t, s, "-w", "-t", windowOfPane(t, s, "%0"), DotOption); d != Dot("waiting") {
		t.Fatalf("window of %%0: dot %q, want waiting's", d)
	}
	if sum := show(t, s, "-g", SummaryOption); !strings.Contains(sum, "1 waiting") || !strings.Contains(sum, "1 done") || strings.Contains(sum, "ready") {
		t.Fatalf("summary %q", sum)
	}
	// A change that changes nothing tmux shows runs nothing.
	ups <- client.Update{Kind: client.UpdateEvent, Event: wire.Event{Since: time.Now(), Session: "old", State: "ready", Tab: "wrap-y"}}
	// The session ending takes its window's dot away.
	ups <- client.Update{Kind: client.UpdateEvent, Event: wire.Event{Since: time.Now(), Session: "s2", State: "ended", Tab: fmt.Sprintf("tmux-%d-%%0", pid)}}
	proceed <- struct{}{}
	waitFlush("the end")
	if n := f.Calls(); n != 4 {
		t.Fatalf("%d tmux calls after the second batch, want 4", n)
	}
	if out, _ := s.Run(context.Background(), []string{"show-options", "-w", "-t", windowOfPane(t, s, "%0")}); strings.Contains(string(out), DotOption) {
		t.Fatalf("ended session's window keeps a dot: %s", out)
	}
	// The daemon lost: no dots, no summary (they could no longer change).
	ups <- client.Update{Kind: client.UpdateLost, Err: fmt.Errorf("gone")}
	proceed <- struct{}{}
	waitFlush("the daemon lost")
	if sum := show(t, s, "-g", SummaryOption); sum != "" {
		t.Fatalf("summary with no daemon %q", sum)
	}
	cancel()
	proceed <- struct{}{}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The server gone, the follower says so.
	ups2 := make(chan client.Update, 1)
	ups2 <- client.Update{Kind: client.UpdateEvent, Event: wire.Event{Since: time.Now(), Session: "s3", State: "waiting", Tab: fmt.Sprintf("tmux-%d-%%1", pid)}}
	close(ups2)
	s.Run(context.Background(), []string{"kill-server"})
	for _, err := s.Run(context.Background(), []string{"list-sessions"}); err == nil; _, err = s.Run(context.Background(), []string{"list-sessions"}) {
		time.Sleep(10 * time.Millisecond) // kill-server answers before the server has gone
	}
	f2 := &Follower{Server: s, ServerPid: pid, Log: zerolog.Nop()}
	if err := f2.Run(context.Background(), ups2); err == nil || !strings.Contains(err.Error(), ErrNoServer.Error()) {
		t.Fatalf("follower of a gone server: %v", err)
	}
}

// TestFollowerProcessPane: a local session without a pane tab whose agent
// process runs in a pane (Claude Code's registry names it) gets that
// pane's window dot; a remote session's pid names nothing here.
func TestFollowerProcessPane(t *testing.T) {
	s, pid := realTmux(t)
	out, err := s.Run(context.Background(), []string{"display-message", "-p", "-t", "%1", "#{pane_pid}"})
	if err != nil {
		t.Fatal(err)
	}
	agent, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	ups := make(chan client.Update, 4)
	ups <- client.Update{Kind: client.UpdateEvent, Event: wire.Event{Since: time.Now(), Session: "local", State: "done", Tab: "wrap-1", Pid: agent, Live: true}}
	ups <- client.Update{Kind: client.UpdateEvent, Event: wire.Event{Since: time.Now(), Session: "far", Host: "box", State: "waiting", Pid: agent, Live: true}}
	flushed := make(chan struct{}, 4)
	f := &Follower{Server: s, ServerPid: pid, Log: zerolog.Nop(), Flushed: func() { flushed <- struct{}{} }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Run(ctx, ups)
	select {
	case <-flushed:
	case <-time.After(30 * time.Second): // a bound on a hang, not a timing
		t.Fatal("tmux never set")
	}
	if d := show(t, s, "-w", "-t", windowOfPane(t, s, "%1"), DotOption); d != Dot("done") {
		t.Fatalf("the agent's pane's window: dot %q, want done's", d)
	}
}

// BenchmarkChangeToOption: one state change reaching the follower → its
// window's dot set in a real tmux server (the follower's part of the
// path: a pane listing and one tmux invocation). Reports p50 and p99.
func BenchmarkChangeToOption(b *testing.B) {
	s, pid := realTmux(b)
	ups := make(chan client.Update, 1)
	flushed := make(chan struct{}, 1)
	f := &Follower{Server: s, ServerPid: pid, Log: zerolog.Nop(), Flushed: func() { flushed <- struct{}{} }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Run(ctx, ups)
	states := []string{"working", "waiting", "done", "ready"}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		ups <- client.Update{Kind: client.UpdateEvent, Event: wire.Event{Since: time.Now(), Session: "s1", State: states[i%4], Tab: fmt.Sprintf("tmux-%d-%%1", pid)}}
		<-flushed
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// TestFollowerRecount: a session leaving status's default view (its
// process gone, ten minutes without a change) leaves the summary when it
// does, with no event to say so.
func TestFollowerRecount(t *testing.T) {
	s, pid := realTmux(t)
	ups := make(chan client.Update, 2)
	since := time.Now().Add(-statusview.RecentChange + time.Second)
	ups <- client.Update{Kind: client.UpdateEvent, Event: wire.Event{Since: since, Session: "s", State: "done", Pid: 7, Tab: fmt.Sprintf("tmux-%d-%%1", pid)}}
	flushed := make(chan struct{}, 4)
	f := &Follower{Server: s, ServerPid: pid, Log: zerolog.Nop(), Flushed: func() { flushed <- struct{}{} }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Run(ctx, ups)
	for _, want := range []string{"1 done", ""} {
		select {
		case <-flushed:
		case <-time.After(30 * time.Second): // a bound on a hang, not a timing
			t.Fatalf("summary never set to %q", want)
		}
		if sum := show(t, s, "-g", SummaryOption); !strings.Contains(sum, want) || want == "" && sum != "" {
			t.Fatalf("summary %q, want %q", sum, want)
		}
	}
}
