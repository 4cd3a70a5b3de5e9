package tmux

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

func TestEntered(t *testing.T) {
	for _, c := range []struct {
		prev, cur, want []string
	}{
		{nil, nil, nil},
		{nil, []string{"%1"}, []string{"%1"}},                                // a client attached
		{[]string{"%1"}, []string{"%1"}, nil},                                // a wake that changed nothing
		{[]string{"%1"}, []string{"%2"}, []string{"%2"}},                     // a switch
		{[]string{"%1", "%2"}, []string{"%2"}, nil},                          // a client left, or moved to a pane another shows
		{[]string{"%1"}, []string{"%1", "%3"}, []string{"%3"}},               // a second client elsewhere
		{[]string{"%10", "%2"}, []string{"%1", "%10", "%2"}, []string{"%1"}}, // ids sort as strings
		{[]string{"%1"}, nil, nil},                                           // detached
	} {
		if got := Entered(c.prev, c.cur); !slices.Equal(got, c.want) {
			t.Errorf("Entered(%v, %v) = %v, want %v", c.prev, c.cur, got, c.want)
		}
	}
}

func TestFinishedIn(t *testing.T) {
	sessions := []wire.Event{
		ev("done1", "done", "tmux-9-%1", 1),
		ev("work", "working", "tmux-9-%1", 1), // a live agent keeps its state
		ev("wait", "waiting", "tmux-9-%1", 1),
		ev("ready", "ready", "tmux-9-%1", 1), // already acknowledged
		ev("done2", "done", "tmux-9-%2", 1),  // a pane not entered
		ev("other", "done", "tmux-8-%1", 1),  // another server's pane
		{Session: "far", Host: "box", State: "done", Tab: "tmux-9-%1"},
		{Session: "proc", State: "done", Tab: "wrap-1", Pid: 300, Live: true},
	}
	pane := ServerPane(9, []PaneInfo{{ID: "%1", Pid: 300}}, func(int) (int, error) { return 0, fmt.Errorf("none") })
	var got []string
	for _, e := range FinishedIn(sessions, pane, []string{"%1", "%5"}) {
		got = append(got, e.Host+":"+e.Session)
	}
	if want := []string{":done1", ":proc", "box:far"}; !slices.Equal(got, want) {
		t.Fatalf("finished in %%1: %v, want %v", got, want)
	}
	if got := FinishedIn(sessions, pane, nil); len(got) != 0 {
		t.Fatalf("no pane entered: %v", got)
	}
}

func TestReadShown(t *testing.T) {
	for _, c := range []struct {
		out       string
		focusFlag bool
		want      []string
		complete  bool
	}{
		{".\n", true, nil, true}, // no client attached
		{"%3 attached,focused,UTF-8\n%1 attached,focused\n%3 attached,focused,UTF-8\n.\n", true, []string{"%1", "%3"}, true},
		// A terminal out of focus (focus-events on) shows nothing...
		{"%3 attached,UTF-8\n%1 attached,focused,control-mode\n.\n", true, []string{"%1"}, true},
		// ...when tmux has the flag at all (3.3 and later).
		{"%3 attached,UTF-8\n.\n", false, []string{"%3"}, true},
		{"%3 attached,focused\n", true, nil, false}, // ended before the mark: its error says why
		{"", true, nil, false},
		{"garbage\n%2 focused\r\n.\n", true, []string{"%2"}, true},
		{"%2 unfocused\n.\n", true, nil, true},
	} {
		got, complete := readShown(strings.NewReader(c.out), c.focusFlag)
		if complete != c.complete || !slices.Equal(got, c.want) {
			t.Errorf("readShown(%q, %v) = %v %v, want %v %v", c.out, c.focusFlag, got, complete, c.want, c.complete)
		}
	}
}

func TestKnowsFocus(t *testing.T) {
	for v, want := range map[string]bool{"tmux 3.3a\n": true, "tmux 3.2a": false, "tmux 3.10": true, "tmux next-3.6": true,
		"tmux 4.0": true, "tmux 3.1c": false, "tmux 2.9": false, "tmux master": false, "": false} {
		if got := KnowsFocus(v); got != want {
			t.Errorf("KnowsFocus(%q) = %v", v, got)
		}
	}
}

func FuzzReadShown(f *testing.F) {
	f.Fuzz(func(t *testing.T, out string, focusFlag bool) {
		panes, complete := readShown(strings.NewReader(out), focusFlag)
		if !complete && panes != nil {
			t.Fatalf("incomplete list kept %v", panes)
		}
		if !slices.IsSorted(panes) || len(slices.Compact(slices.Clone(panes))) != len(panes) {
			t.Fatalf("not sorted and unique: %v", panes)
		}
		for _, p := range panes {
			if !strings.HasPrefix(p, "%") || strings.Contains(p, " ") {
				t.Fatalf("pane %q", p)
			}
		}
	})
}

// TestWatchShown: a real tmux server without clients shows no pane, and
// each signal of FocusChannel is one more list; two signals sent at once
// (tmux 3.3a forgets an even number sent while nobody waits) leave the
// watcher waiting still, and the server's end ends the watch.
func TestWatchShown(t *testing.T) {
	s, _ := realTmux(t)
	ctx, cancel := context.WithCancel(context.Background())
	lists := make(chan []string, 16)
	done := make(chan error, 1)
	go func() { done <- s.WatchShown(ctx, func(p []string) { lists <- p }) }()
	next := func(what string) []string {
		t.Helper()
		select {
		case p := <-lists:
			return p
		case <-time.After(30 * time.Second): // a bound on a hang, not a timing
			t.Fatalf("%s: no list", what)
		}
		return nil
	}
	if p := next("at start"); len(p) != 0 {
		t.Fatalf("a server without clients shows %v", p)
	}
	for i := range 3 {
		if err := s.SignalFocus(ctx); err != nil {
			t.Fatal(err)
		}
		next(fmt.Sprintf("signal %d", i))
	}
	// Two signals at once: the first wakes the watcher, the second finds
	// it gone or back; either way a list follows, and the watcher waits
	// again (a third signal is still heard).
	if _, err := s.Run(ctx, []string{"wait-for", "-S", FocusChannel}, []string{"wait-for", "-S", FocusChannel}); err != nil {
		t.Fatal(err)
	}
	next("two signals")
	drain := func() {
		for {
			select {
			case <-lists:
			case <-time.After(200 * time.Millisecond):
				return
			}
		}
	}
	drain()
	s.SignalFocus(ctx)
	next("after two")
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watch ended by its context: %v", err)
	}
	// The server gone, the watch says so.
	go func() { done <- s.WatchShown(context.Background(), func([]string) {}) }()
	s.Run(context.Background(), []string{"kill-server"})
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), ErrNoServer.Error()) {
			t.Fatalf("watch of a gone server: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("watch outlived its server")
	}
}

// focusSocket is the daemon's end of the focus exchange and nothing more:
// each line read is answered ok, and each focus ("focus TAB") and the
// close of a connection that held one ("close TAB") reported; a remote's
// tab is "HOST/TAB".
func focusSocket(t testing.TB) (string, <-chan string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "lwfocus")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	said := make(chan string, 1024)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				held := ""
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					var req wire.Request
					if json.Unmarshal(sc.Bytes(), &req) == nil && req.Op == wire.OpFocus {
						held = strings.TrimPrefix(req.Host+"/"+req.Tab, "/")
						said <- "focus " + held
					}
					fmt.Fprintln(c, `{"ok":true,"protocol":1}`)
				}
				if held != "" {
					said <- "close " + held
				}
			}()
		}
	}()
	return sock, said
}

// TestFollowerFocus: with a client attached, the follower holds the focus
// of the pane it shows on a connection of its own; a switch focuses the new
// pane, then closes the old one's, and a remote session bound to the
// pane shown has its own (keyed by its host); the daemon link lost and
// back, the focus is sent again. The pane shown at the start is not taken as come to (its
// done session stays unacknowledged); coming to a pane acknowledges its
// done session, not its working one.
func TestFollowerFocus(t *testing.T) {
	s, pid := realTmux(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := s.Run(ctx, []string{"set-hook", "-g", "after-select-window[73]", "wait-for -S " + FocusChannel}); err != nil {
		t.Fatal(err)
	}
	sock, said := focusSocket(t)
	attachControl(t, s)
	t0, t1 := ServerTab(pid, "%0"), ServerTab(pid, "%1")
	ups := make(chan client.Update, 16)
	ups <- client.Update{Kind: client.UpdateConnected, Snapshot: 4}
	for _, e := range []wire.Event{
		{Snapshot: true, Session: "seen", State: "done", Tab: t0},
		{Snapshot: true, Session: "fin", State: "done", Tab: t1},
		{Snapshot: true, Session: "busy", State: "working", Tab: t1},
		{Snapshot: true, Session: "far", Host: "box", State: "working", Tab: t1},
	} {
		ups <- client.Update{Kind: client.UpdateEvent, Event: e}
	}
	flushed := make(chan struct{}, 16)
	acked := make(chan string, 16)
	f := &Follower{Server: s, ServerPid: pid, Log: zerolog.Nop(), Flushed: func() { flushed <- struct{}{} },
		Dial: func(ctx context.Context) (*client.Client, error) { return client.Dial(ctx, sock) },
		Ack:  func(_ context.Context, ev wire.Event) error { acked <- ev.Session; return nil }}
	go f.Run(ctx, ups)
	next := func(want ...string) {
		t.Helper()
		var got []string
		for len(got) < len(want) {
			select {
			case l := <-said:
				got = append(got, l)
			case <-time.After(30 * time.Second): // a bound on a hang, not a timing
				t.Fatalf("said %q, want %q", got, want)
			}
		}
		slices.Sort(got)
		if w := slices.Sorted(slices.Values(want)); !slices.Equal(got, w) {
			t.Fatalf("said %q, want %q", got, w)
		}
	}
	<-flushed // the snapshot is on the board
	next("focus " + t0)
	if _, err := s.Run(ctx, []string{"select-window", "-t", "%1"}); err != nil {
		t.Fatal(err)
	}
	next("focus "+t1, "focus box/"+t1, "close "+t0)
	select {
	case id := <-acked:
		if id != "fin" {
			t.Fatalf("acknowledged %s, want fin", id)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("fin never acknowledged")
	}
	ups <- client.Update{Kind: client.UpdateLost}
	ups <- client.Update{Kind: client.UpdateConnected, Snapshot: 0}
	next("close "+t1, "close box/"+t1, "focus "+t1) // far is no longer in the snapshot
	// A remote session coming to the pane shown has its focus.
	ups <- client.Update{Kind: client.UpdateEvent, Event: wire.Event{Since: time.Now(), Session: "far2", Host: "box", State: "waiting", Tab: t1}}
	next("focus box/" + t1)
	select {
	case id := <-acked:
		t.Fatalf("acknowledged %s too", id)
	default:
	}
}

// BenchmarkSwitchToFocus: a pane switch in a real tmux server (the
// installed hook signalling FocusChannel) → the follower's focus on the
// new pane's tab reaching the daemon's socket (a hook, a wake, one tmux
// list, a dial and a focus). Reports p50 and p99.
func BenchmarkSwitchToFocus(b *testing.B) {
	s, pid := realTmux(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := s.Run(ctx, []string{"set-hook", "-g", "after-select-window[73]", "wait-for -S " + FocusChannel}); err != nil {
		b.Fatal(err)
	}
	sock, said := focusSocket(b)
	wait := func(tab string) {
		for got := range said {
			if got == "focus "+tab {
				return
			}
		}
	}
	windows := []string{"%0", "%1"}
	// Focus needs a client showing a pane: a control-mode client is one.
	attachControl(b, s)
	f := &Follower{Server: s, ServerPid: pid, Log: zerolog.Nop(),
		Dial: func(ctx context.Context) (*client.Client, error) { return client.Dial(ctx, sock) }}
	go f.Run(ctx, make(chan client.Update))
	wait(ServerTab(pid, "%0"))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		p := windows[(i+1)%2]
		start := time.Now()
		if _, err := s.Run(ctx, []string{"select-window", "-t", p}); err != nil {
			b.Fatal(err)
		}
		wait(ServerTab(pid, p))
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// attachControl attaches a control-mode client to s (a client that shows
// its session's pane, as a terminal's would) until the test ends.
func attachControl(t testing.TB, s Server) {
	t.Helper()
	cmd := s.command(context.Background(), []string{"-C", "attach"})
	// -C goes before the command: command() puts -S first, then these.
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	for range 1000 {
		if o, _ := s.Run(context.Background(), []string{"list-clients", "-F", "#{pane_id}"}); strings.TrimSpace(string(o)) != "" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("control client never attached")
}
