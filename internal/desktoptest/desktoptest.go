// Package desktoptest starts, for a test, a real desktop notification
// stack of its own: a private session bus (dbus-daemon), an X server with
// no screen (Xvfb) and a real notification server on both (dunst). A
// monitor connection records every notification call and signal on the
// bus, and dunstctl reads what dunst shows and keeps. Nothing touches the
// machine's own session.
package desktoptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/logwatch/logwatch/internal/testsupport"
)

// dunstrc makes dunst deterministic: every alert shown (no limit, no
// stacking of equal ones), a long history, no idle pause, and the body
// markup desktops commonly read (so escaping is tested).
const dunstrc = `[global]
    markup = full
    notification_limit = 0
    stack_duplicates = false
    history_length = 1000
    idle_threshold = 0
`

// Server is one private notification stack.
type Server struct {
	// Address is the private session bus (DBUS_SESSION_BUS_ADDRESS).
	Address string
	// Display is the Xvfb display dunst draws on.
	Display string

	t       testing.TB
	dir     string
	bus     *exec.Cmd
	dunst   *exec.Cmd
	monitor *dbus.Conn

	mu     sync.Mutex
	events []Event
	notify chan struct{}
}

// Event is one notification message seen on the bus.
type Event struct {
	At     time.Time
	Member string // Notify, CloseNotification, NotificationClosed, ActionInvoked, or Reply
	// Notify's arguments.
	ReplacesID uint32
	Summary    string
	Body       string
	Actions    []string
	Urgency    byte
	Category   string
	Expire     int32
	// ID is the closed or acted-on notification (CloseNotification,
	// NotificationClosed, ActionInvoked), or the id a Notify was given
	// (Reply, matched to its call).
	ID     uint32
	Reason uint32 // NotificationClosed: 1 expired, 2 dismissed, 3 closed by call
}

// Start starts the stack, stopped when the test ends. A missing tool
// skips the test (fails it under CI=true).
func Start(t testing.TB) *Server {
	t.Helper()
	for _, tool := range []string{"dbus-daemon", "Xvfb", "dunst", "dunstctl"} {
		if _, err := exec.LookPath(tool); err != nil {
			testsupport.Missing(t, "%s not installed (apt-get install dbus dbus-x11 dunst xvfb): %v", tool, err)
		}
	}
	dir := t.TempDir()
	s := &Server{t: t, dir: dir, notify: make(chan struct{}, 1)}
	s.Address = "unix:path=" + filepath.Join(dir, "bus")
	s.StartBus()
	s.Display = startXvfb(t)
	s.StartDunst()
	return s
}

// StartBus starts the session bus at s.Address (again, after StopBus,
// with the events seen so far cleared).
func (s *Server) StartBus() {
	t := s.t
	t.Helper()
	s.mu.Lock()
	s.events = nil
	s.mu.Unlock()
	_ = os.Remove(strings.TrimPrefix(s.Address, "unix:path="))
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--address="+s.Address, "--print-address=3")
	cmd.ExtraFiles = []*os.File{w}
	cmd.Env = s.env()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	w.Close()
	line, err := readLine(r, 10*time.Second)
	r.Close()
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	s.bus = cmd
	stop(t, cmd)
	t.Logf("private session bus %s", line)
}

// StopBus stops the session bus (and so cuts every connection to it).
func (s *Server) StopBus() {
	s.t.Helper()
	_ = s.bus.Process.Kill()
	_ = s.bus.Wait()
	if s.dunst != nil {
		_ = s.dunst.Process.Kill()
		_ = s.dunst.Wait()
		s.dunst = nil
	}
	if s.monitor != nil {
		_ = s.monitor.Close()
		s.monitor = nil
	}
}

// StartDunst starts dunst on the bus and waits until it owns the
// notification service, then starts the monitor.
func (s *Server) StartDunst() {
	t := s.t
	t.Helper()
	rc := filepath.Join(s.dir, "dunstrc")
	if err := os.WriteFile(rc, []byte(dunstrc), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("dunst", "-config", rc)
	cmd.Env = s.env()
	logf, err := os.Create(filepath.Join(s.dir, "dunst.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dunst: %v", err)
	}
	s.dunst = cmd
	stop(t, cmd)
	conn, err := dbus.Connect(s.Address)
	if err != nil {
		t.Fatalf("connect to the private bus: %v", err)
	}
	defer conn.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var has bool
		if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.Notifications").Store(&has); err != nil {
			t.Fatal(err)
		}
		if has {
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("dunst did not take org.freedesktop.Notifications within 10 s; its log:\n%s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.startMonitor()
}

func (s *Server) env() []string {
	return append(os.Environ(),
		"DBUS_SESSION_BUS_ADDRESS="+s.Address,
		"DISPLAY="+s.Display,
		"HOME="+s.dir,
		"XDG_CONFIG_HOME="+s.dir,
		"XDG_RUNTIME_DIR="+s.dir,
	)
}

// startMonitor records the notification service's calls, replies and
// signals, as the bus routes them.
func (s *Server) startMonitor() {
	t := s.t
	t.Helper()
	conn, err := dbus.Connect(s.Address)
	if err != nil {
		t.Fatalf("monitor: %v", err)
	}
	rules := []string{
		"type='method_call',interface='org.freedesktop.Notifications'",
		"type='signal',interface='org.freedesktop.Notifications'",
		"type='method_return'",
	}
	if err := conn.BusObject().Call("org.freedesktop.DBus.Monitoring.BecomeMonitor", 0, rules, uint32(0)).Err; err != nil {
		t.Fatalf("monitor: BecomeMonitor: %v", err)
	}
	// Close closes ch, which ends the recording goroutine.
	ch := make(chan *dbus.Message, 4096)
	conn.Eavesdrop(ch)
	s.monitor = conn
	go func() {
		calls := map[string]int{} // sender/serial of a Notify call → its event
		for m := range ch {
			s.record(m, calls)
		}
	}()
}

func (s *Server) record(m *dbus.Message, calls map[string]int) {
	now := time.Now()
	member, _ := m.Headers[dbus.FieldMember].Value().(string)
	sender, _ := m.Headers[dbus.FieldSender].Value().(string)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch m.Type {
	case dbus.TypeMethodCall:
		e := Event{At: now, Member: member}
		switch member {
		case "Notify":
			if len(m.Body) != 8 {
				return
			}
			e.ReplacesID, _ = m.Body[1].(uint32)
			e.Summary, _ = m.Body[3].(string)
			e.Body, _ = m.Body[4].(string)
			e.Actions, _ = m.Body[5].([]string)
			if hints, ok := m.Body[6].(map[string]dbus.Variant); ok {
				e.Urgency, _ = hints["urgency"].Value().(byte)
				e.Category, _ = hints["category"].Value().(string)
			}
			e.Expire, _ = m.Body[7].(int32)
			calls[sender+"/"+strconv.FormatUint(uint64(m.Serial()), 10)] = len(s.events)
		case "CloseNotification":
			if len(m.Body) == 1 {
				e.ID, _ = m.Body[0].(uint32)
			}
		default:
			return
		}
		s.events = append(s.events, e)
	case dbus.TypeMethodReply:
		dest, _ := m.Headers[dbus.FieldDestination].Value().(string)
		serial, _ := m.Headers[dbus.FieldReplySerial].Value().(uint32)
		k := dest + "/" + strconv.FormatUint(uint64(serial), 10)
		i, ok := calls[k]
		if !ok || len(m.Body) != 1 {
			return
		}
		delete(calls, k)
		id, _ := m.Body[0].(uint32)
		s.events[i].ID = id
		s.events = append(s.events, Event{At: now, Member: "Reply", ID: id})
	case dbus.TypeSignal:
		e := Event{At: now, Member: member}
		if len(m.Body) >= 1 {
			e.ID, _ = m.Body[0].(uint32)
		}
		if member == "NotificationClosed" && len(m.Body) == 2 {
			e.Reason, _ = m.Body[1].(uint32)
		}
		s.events = append(s.events, e)
	default:
		return
	}
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Events is what the monitor has seen so far.
func (s *Server) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

// WaitFor waits until the events seen satisfy ok, failing the test after
// timeout, and returns them.
func (s *Server) WaitFor(timeout time.Duration, what string, ok func([]Event) bool) []Event {
	s.t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		ev := s.Events()
		if ok(ev) {
			return ev
		}
		select {
		case <-s.notify:
		case <-deadline.C:
			s.t.Fatalf("after %v, still not %s; the bus saw:\n%s", timeout, what, Format(s.Events()))
		}
	}
}

// Format lists events one a line, for a failure message.
func Format(ev []Event) string {
	var b strings.Builder
	for _, e := range ev {
		switch e.Member {
		case "Notify":
			fmt.Fprintf(&b, "Notify replaces=%d id=%d urgency=%d category=%q expire=%d actions=%q summary=%q body=%q\n",
				e.ReplacesID, e.ID, e.Urgency, e.Category, e.Expire, e.Actions, e.Summary, e.Body)
		case "NotificationClosed":
			fmt.Fprintf(&b, "NotificationClosed id=%d reason=%d\n", e.ID, e.Reason)
		default:
			fmt.Fprintf(&b, "%s id=%d\n", e.Member, e.ID)
		}
	}
	return b.String()
}

// Count is dunstctl count's figure: displayed, history or waiting.
func (s *Server) Count(which string) int {
	s.t.Helper()
	out := s.Dunstctl("count", which)
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		s.t.Fatalf("dunstctl count %s: %q: %v", which, out, err)
	}
	return n
}

// WaitDisplayed waits until dunst shows n notifications (on screen or
// queued for it), failing the test after timeout.
func (s *Server) WaitDisplayed(n int, timeout time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got := s.Count("displayed") + s.Count("waiting")
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("dunst shows %d notifications, want %d; the bus saw:\n%s", got, n, Format(s.Events()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kept is one notification in dunst's history (closed, kept for recall).
type Kept struct {
	ID      int
	Summary string
	Body    string
}

// History is dunst's history, newest first.
func (s *Server) History() []Kept {
	s.t.Helper()
	var h struct {
		Data [][]map[string]struct {
			Data any `json:"data"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(s.Dunstctl("history")), &h); err != nil {
		s.t.Fatalf("dunstctl history: %v", err)
	}
	var out []Kept
	for _, group := range h.Data {
		for _, n := range group {
			id, _ := n["id"].Data.(float64)
			sum, _ := n["summary"].Data.(string)
			body, _ := n["body"].Data.(string)
			out = append(out, Kept{ID: int(id), Summary: sum, Body: body})
		}
	}
	return out
}

// Dunstctl runs dunstctl against this stack's dunst.
func (s *Server) Dunstctl(args ...string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "dunstctl", args...)
	cmd.Env = s.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("dunstctl %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// startXvfb starts an X server on a free display it picks itself.
func startXvfb(t testing.TB) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-nolisten", "tcp", "-screen", "0", "1024x768x24")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start Xvfb: %v", err)
	}
	w.Close()
	line, err := readLine(r, 20*time.Second)
	r.Close()
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("Xvfb printed no display: %v", err)
	}
	stop(t, cmd)
	return ":" + line
}

func stop(t testing.TB, cmd *exec.Cmd) {
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
}

// readLine reads the first line a child prints on a pipe, within timeout.
func readLine(r *os.File, timeout time.Duration) (string, error) {
	_ = r.SetReadDeadline(time.Now().Add(timeout))
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(line), nil
}
