package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/secret"
	"github.com/logwatch/logwatch/relay/server"
)

// daemon is a real relay serving a real unix socket in a temp dir.
type daemon struct {
	r      *relay.Relay
	srv    *server.Server
	socket string
	cancel context.CancelFunc
	done   chan error
}

// dial connects a client to d, closed when t ends.
func (d *daemon) dial(t *testing.T) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), d.socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func startDaemon(t testing.TB, tune func(*server.Server)) *daemon {
	t.Helper()
	// Unix socket paths are short; t.TempDir() can be too long.
	dir, err := os.MkdirTemp("", "lw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "run", "logwatch.sock")
	ln, err := server.Listen(socket)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := relay.New(relay.Config{}, nil, nil, zerolog.Nop())
	srv := server.New(r, zerolog.Nop())
	if tune != nil {
		tune(srv)
	}
	d := &daemon{r: r, srv: srv, socket: socket, cancel: cancel, done: make(chan error, 1)}
	go r.Run(ctx)
	go func() { d.done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-d.done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop")
		}
	})
	return d
}

// raw sends lines on one connection and returns the response lines.
func raw(t *testing.T, socket string, reqs ...string) []string {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	rd := bufio.NewReader(c)
	var out []string
	for _, r := range reqs {
		if _, err := io.WriteString(c, r+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("after %.60q: %v", r, err)
		}
		out = append(out, strings.TrimSpace(line))
	}
	return out
}

func TestListenPermissions(t *testing.T) {
	d := startDaemon(t, nil)
	st, err := os.Stat(filepath.Dir(d.socket))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v %v", st.Mode().Perm(), err)
	}
	st, err = os.Stat(d.socket)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v %v", st.Mode().Perm(), err)
	}
}

// TestListenOpenDirRefused: a socket directory others can enter is refused,
// not repaired: someone may already have put a socket of their own in it.
func TestListenOpenDirRefused(t *testing.T) {
	dir, _ := os.MkdirTemp("", "lw")
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	_, err := server.Listen(filepath.Join(dir, "s.sock"))
	if !errors.Is(err, secret.ErrNotPrivate) || !strings.Contains(err.Error(), dir+" has mode 0755") {
		t.Fatalf("err = %v", err)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o755 {
		t.Fatalf("dir mode changed to %v", st.Mode().Perm())
	}
}

func TestSecondDaemonRefused(t *testing.T) {
	d := startDaemon(t, nil)
	_, err := server.Listen(d.socket)
	if !errors.Is(err, server.ErrAlreadyRunning) {
		t.Fatalf("err = %v, want ErrAlreadyRunning", err)
	}
	// The first daemon still serves.
	if got := raw(t, d.socket, `{"op":"status"}`); !strings.Contains(got[0], `"ok":true`) {
		t.Fatalf("status after refused second daemon: %s", got[0])
	}
}

func TestStaleSocketReplaced(t *testing.T) {
	dir, _ := os.MkdirTemp("", "lw")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "s.sock")
	// A crashed daemon leaves its socket file behind.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatal("stale socket not left behind")
	}
	ln2, err := server.Listen(path)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	ln2.Close()
}

func TestNotASocketRefused(t *testing.T) {
	dir, _ := os.MkdirTemp("", "lw")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "s.sock")
	os.WriteFile(path, []byte("precious"), 0o600)
	if _, err := server.Listen(path); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "precious" {
		t.Fatal("a regular file was replaced")
	}
}

// TestOtherUIDRefused tests the peer check at its seam: the kernel reports
// the peer's uid; a different uid is answered with an error and nothing it
// sends reaches the relay.
func TestOtherUIDRefused(t *testing.T) {
	d := startDaemon(t, func(s *server.Server) {
		s.PeerUID = func(*net.UnixConn) (int, error) { return s.UID + 1, nil }
	})
	c, err := net.Dial("unix", d.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The refusal comes before anything is read from the peer.
	io.WriteString(c, `{"op":"hook","payload":{"hook_event_name":"UserPromptSubmit","session_id":"s"}}`+"\n")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, _ := bufio.NewReader(c).ReadString('\n')
	if !strings.Contains(line, "permission denied") {
		t.Fatalf("response %q", line)
	}
	st, err := d.r.Status(context.Background())
	if err != nil || len(st.Sessions) != 0 || st.Counters.HooksReceived != 0 {
		t.Fatalf("a refused peer reached the relay: %+v %v", st, err)
	}
}

func TestRealPeerUID(t *testing.T) {
	d := startDaemon(t, nil)
	if got := raw(t, d.socket, `{"op":"status"}`); !strings.Contains(got[0], `"ok":true`) {
		t.Fatalf("own uid refused: %s", got[0])
	}
}

// TestBadRequests: each kind of bad input gets a clear error on the same
// connection, is counted, and the connection keeps working.
func TestBadRequests(t *testing.T) {
	d := startDaemon(t, nil)
	huge := `{"op":"hook","payload":{"x":"` + strings.Repeat("a", relay.MaxRequest) + `"}}`
	tests := []struct{ req, want string }{
		{`not json`, "bad request"},
		{`{"op":"teleport"}`, "unknown op"},
		{`{}`, "missing op"},
		{`{"op":"ack"}`, `ack needs \"session`},
		{`{"op":"ack","session":42}`, "cannot unmarshal"},
		{`{"op":"key","tab":"t","key":"f1"}`, "unknown key"},
		{`{"op":"hook","payload":"string"}`, "JSON object payload"},
		{`{"op":"hook","payload":{"session_id":"s"}}`, "hook_event_name"},
		{`{"op":"hook","agent":"aider","payload":{"hook_event_name":"Stop","session_id":"s"}}`, "unknown agent"},
		{`{"op":"ack","session":"nobody"}`, "unknown session"},
		{`{"op":"status"} {"op":"status"}`, "one JSON object per line"},
		{`{"op":"tab_opened","tab":"t"}`, `tab_opened needs \"pid`},
		{`{"op":"tab_opened","pid":7}`, `tab_opened needs \"tab`},
		{`{"op":"key","tab":"t","key":"esc","pid":-1}`, "pid -1 is not a process id"},
		{`{"op":"tab_closed","tab":"t","pid":"7"}`, "cannot unmarshal"},
		{huge, "longer than"},
	}
	var reqs []string
	for _, tc := range tests {
		reqs = append(reqs, tc.req)
	}
	reqs = append(reqs, `{"op":"status"}`)
	got := raw(t, d.socket, reqs...)
	for i, tc := range tests {
		if !strings.Contains(got[i], tc.want) || strings.Contains(got[i], `"ok":true`) {
			t.Errorf("%.50s: response %s, want error containing %q", tc.req, got[i], tc.want)
		}
	}
	var resp relay.Response
	if err := json.Unmarshal([]byte(got[len(got)-1]), &resp); err != nil || !resp.OK {
		t.Fatalf("connection did not survive bad input: %s", got[len(got)-1])
	}
	if resp.Status.Counters.BadRequests < int64(len(tests)-1) {
		t.Fatalf("bad requests counted %d", resp.Status.Counters.BadRequests)
	}
}

// TestFloodDoesNotBlockOthers: one client hammering bad requests does not
// stop another client from being served, nor touch its sessions.
func TestFloodDoesNotBlockOthers(t *testing.T) {
	d := startDaemon(t, nil)
	ctx := context.Background()
	c := d.dial(t)
	if err := c.Hook(ctx, "claude", "tab", []byte(`{"hook_event_name":"UserPromptSubmit","session_id":"mine"}`)); err != nil {
		t.Fatal(err)
	}
	var flooded atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn, err := net.Dial("unix", d.socket)
		if err != nil {
			return
		}
		defer conn.Close()
		rd := bufio.NewReader(conn)
		for flooded.Load() < 500 {
			io.WriteString(conn, `{"op":"hook","payload":{"hook_event_name":"Stop","session_id":"mine","x":`+"\n")
			if _, err := rd.ReadString('\n'); err != nil {
				return
			}
			flooded.Add(1)
		}
	}()
	// Another client is served throughout, and its session is untouched.
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; i < 50 || flooded.Load() < 500; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("flood made only %d requests", flooded.Load())
		}
		st, err := c.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Sessions) != 1 || st.Sessions[0].State != "working" {
			t.Fatalf("flood touched the session: %+v", st.Sessions)
		}
	}
	<-done
	st, _ := c.Status(ctx)
	if st.Counters.BadRequests < 500 {
		t.Fatalf("flood not counted: %d", st.Counters.BadRequests)
	}
}

func TestSubscribeOverSocket(t *testing.T) {
	d := startDaemon(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, _ := client.Dial(ctx, d.socket)
	must(t, c.Hook(ctx, "codex", "t1", []byte(`{"hook_event_name":"UserPromptSubmit","session_id":"a","cwd":"/w"}`)))
	sub, err := client.Dial(ctx, d.socket)
	if err != nil {
		t.Fatal(err)
	}
	evs, wait, err := sub.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snap := <-evs
	if !snap.Snapshot || snap.Session != "a" || snap.State != "working" || snap.Agent != "codex" || snap.Tab != "t1" {
		t.Fatalf("snapshot %+v", snap)
	}
	must(t, c.Hook(ctx, "codex", "t1", []byte(`{"hook_event_name":"Stop","session_id":"a"}`)))
	ev := <-evs
	if ev.Snapshot || ev.State != "done" || ev.Seq <= snap.Seq || ev.Rule != "hook.stop" || ev.Source != "hook" {
		t.Fatalf("change %+v", ev)
	}
	cancel()
	for range evs {
	}
	if err := wait(); err != nil {
		t.Fatalf("stream end: %v", err)
	}
}

func TestClientNoDaemon(t *testing.T) {
	_, err := client.Dial(context.Background(), filepath.Join(t.TempDir(), "none.sock"))
	if !errors.Is(err, client.ErrNoDaemon) {
		t.Fatalf("err = %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestHooksAdmittedPastTheCap (issue 12 item 10): idle connections filling
// the request budget and subscribers filling theirs never keep a hook out:
// the longest-idle connection makes room, subscriptions have their own
// budget, and status reports the figures.
func TestHooksAdmittedPastTheCap(t *testing.T) {
	d := startDaemon(t, nil)
	ctx := context.Background()
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := 0; i < d.srv.MaxConns; i++ { // connect, never send
		c, err := net.Dial("unix", d.socket)
		must(t, err)
		held = append(held, c)
	}
	subscribe := func() (net.Conn, string) {
		c, err := net.Dial("unix", d.socket)
		must(t, err)
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, `{"op":"subscribe"}`+"\n")
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			t.Fatalf("subscribe: %v", err)
		}
		c.SetDeadline(time.Time{})
		return c, line
	}
	for i := 0; i < d.srv.MaxSubscribers; i++ {
		c, line := subscribe()
		held = append(held, c)
		if !strings.Contains(line, `"ok":true`) {
			t.Fatalf("subscriber %d: %s", i, line)
		}
	}
	c, line := subscribe()
	c.Close()
	if !strings.Contains(line, "too many subscribers") {
		t.Fatalf("subscriber past its budget: %s", line)
	}
	for i := 0; i < 20; i++ {
		c, err := client.Dial(ctx, d.socket)
		must(t, err)
		err = c.Hook(ctx, "claude", "", []byte(`{"hook_event_name":"UserPromptSubmit","session_id":"s`+string(rune('a'+i))+`"}`))
		c.Close()
		if err != nil {
			t.Fatalf("hook %d refused: %v", i, err)
		}
	}
	c2 := d.dial(t)
	st, err := c2.Status(ctx)
	must(t, err)
	k := st.Counters
	t.Logf("counters: conns %d/%d, subscribers %d/%d, evicted %d, refused %d", k.Conns, k.ConnsMax, k.Subscribers, k.SubscribersMax, k.ConnsEvicted, k.ConnsRefused)
	if len(st.Sessions) != 20 || k.ConnsMax != 256 || k.SubscribersMax != 64 || k.Subscribers != 64 ||
		k.Conns > k.ConnsMax || k.ConnsEvicted < 1 || k.ConnsRefused != 1 {
		t.Fatalf("sessions %d, counters %+v", len(st.Sessions), k)
	}
}

// TestSlowSubscriberUnderBurst (issue 12 item 11): a subscriber that reads
// nothing while 5 000 hooks arrive is not disconnected; it gets what was
// queued, then the latest state of every session that changed marked
// resync, and ends up showing exactly what status says.
func TestSlowSubscriberUnderBurst(t *testing.T) {
	d := startDaemon(t, nil)
	ctx := context.Background()
	sc, err := net.Dial("unix", d.socket)
	must(t, err)
	defer sc.Close()
	io.WriteString(sc, `{"op":"subscribe"}`+"\n")
	rd := bufio.NewReaderSize(sc, 1<<16)
	sc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if line, err := rd.ReadString('\n'); err != nil || !strings.Contains(line, `"ok":true`) {
		t.Fatalf("subscribe: %q %v", line, err)
	}

	const sessions, hooks, workers = 50, 5000, 8
	events := []string{"UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop"}
	start := time.Now()
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			c, err := client.Dial(ctx, d.socket)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for i := w; i < hooks; i += workers {
				p := fmt.Sprintf(`{"hook_event_name":%q,"session_id":"s%02d","tool_name":"Bash","tool_input":{"command":"step %d"}}`,
					events[(i/sessions)%len(events)], i%sessions, i)
				if err := c.Hook(ctx, "claude", "", []byte(p)); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		must(t, <-errs)
	}
	burst := time.Since(start)
	c := d.dial(t)
	st, err := c.Status(ctx)
	must(t, err)

	// Now read: never an error line, and the last line of each session
	// matches status.
	last := map[string]string{}
	n, resync := 0, 0
	sc.SetReadDeadline(time.Now().Add(10 * time.Second))
	for len(last) < sessions || !sameAs(last, st) {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d events: %v (last %v)", n, err, last)
		}
		var ev relay.Event
		if strings.Contains(line, `"ok":false`) || json.Unmarshal([]byte(line), &ev) != nil {
			t.Fatalf("subscriber disconnected after %d events: %s", n, line)
		}
		n++
		if ev.Resync {
			resync++
		}
		last[ev.Session] = ev.State + "/" + ev.Detail
	}
	t.Logf("%d hooks in %v; the subscriber read %d events (%d resync) and matches status; resyncs counted %d",
		hooks, burst.Round(time.Millisecond), n, resync, st.Counters.SubscriberResyncs)
	if resync == 0 || st.Counters.SubscriberResyncs == 0 {
		t.Fatal("the subscriber never fell behind: the test provoked nothing")
	}
}

func sameAs(last map[string]string, st relay.Status) bool {
	for _, s := range st.Sessions {
		if last[s.Session] != s.State+"/"+s.Detail {
			return false
		}
	}
	return true
}

// TestTabPidOverSocket: tab_opened, key and tab_closed carry the tab's
// process; the relay keeps it until the tab closes.
func TestTabPidOverSocket(t *testing.T) {
	d := startDaemon(t, nil)
	ctx := context.Background()
	c := d.dial(t)
	pid := func(tab string) int {
		t.Helper()
		p, err := d.r.TabPID(ctx, tab)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	_, a := testsupport.ShellWithChild(t)
	_, b := testsupport.ShellWithChild(t)
	if err := c.TabOpened(ctx, "A", a); err != nil {
		t.Fatal(err)
	}
	if err := c.KeyPid(ctx, "B", b, relay.KeyEsc, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Key(ctx, "C", relay.KeyEsc, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if pid("A") != a || pid("B") != b || pid("C") != 0 {
		t.Errorf("tab pids A=%d B=%d C=%d", pid("A"), pid("B"), pid("C"))
	}
	// A process every tab runs under is refused, with an answer.
	if err := c.TabOpened(ctx, "D", 1); err == nil || !strings.Contains(err.Error(), "ancestor") && !strings.Contains(err.Error(), "not a tab's process") {
		t.Errorf("tab_opened pid 1: %v, want refused", err)
	}
	if err := c.TabOpened(ctx, "D", os.Getppid()); err == nil || !strings.Contains(err.Error(), "ancestor of this daemon") {
		t.Errorf("tab_opened with the daemon's parent: %v, want refused", err)
	}
	if _, err := c.TabClosedPid(ctx, "A", a); err != nil {
		t.Fatal(err)
	}
	if pid("A") != 0 {
		t.Errorf("a closed tab keeps its pid %d", pid("A"))
	}
}
