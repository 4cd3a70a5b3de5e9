package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logwatch/logwatch/relay/server"
	"github.com/logwatch/logwatch/relay/wire"
)

// attn records what the server tells the notifier.
type attn struct {
	mu  sync.Mutex
	got []string
	ch  chan struct{}
}

func (a *attn) add(s string) {
	a.mu.Lock()
	a.got = append(a.got, s)
	a.mu.Unlock()
	a.ch <- struct{}{}
}
func (a *attn) Focus(c uint64, host, tab string) { a.add(fmt.Sprintf("focus %d %s/%s", c, host, tab)) }
func (a *attn) Cover(c uint64)                   { a.add(fmt.Sprintf("cover %d", c)) }
func (a *attn) Forget(c uint64)                  { a.add(fmt.Sprintf("forget %d", c)) }

func (a *attn) wait(t *testing.T, n int) []string {
	t.Helper()
	for i := 0; i < n; i++ {
		select {
		case <-a.ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("waited for %d calls, got %v", n, a.got)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.got...)
}

// TestFocusAndAlertsReachAttention: a focus holds for its connection and
// is forgotten when it closes; a subscriber with alerts covers while it is
// connected. Neither changes the relay: status stays empty.
func TestFocusAndAlertsReachAttention(t *testing.T) {
	a := &attn{ch: make(chan struct{}, 16)}
	d := startDaemon(t, func(s *server.Server) { s.SetAttention(a) })
	got := raw(t, d.socket, `{"op":"focus","tab":"t1"}`, `{"op":"focus","host":"devbox","tab":"t2"}`)
	for _, l := range got {
		if !strings.Contains(l, `"ok":true`) {
			t.Fatalf("focus answered %s", l)
		}
	}
	calls := a.wait(t, 3)
	if fmt.Sprint(calls) != "[focus 1 /t1 focus 1 devbox/t2 forget 1]" {
		t.Fatalf("calls %v", calls)
	}
	c, err := net.Dial("unix", d.socket)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, `{"op":"subscribe","alerts":true}`+"\n")
	first, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.Contains(first, `"ok":true`) {
		t.Fatalf("subscribe: %q %v", first, err)
	}
	if calls = a.wait(t, 1); calls[3] != "cover 2" {
		t.Fatalf("calls %v", calls)
	}
	c.Close()
	if calls = a.wait(t, 1); calls[4] != "forget 2" {
		t.Fatalf("calls %v", calls)
	}
	// A plain subscriber and a plain request say nothing of attention.
	raw(t, d.socket, `{"op":"status"}`)
	c2, _ := net.Dial("unix", d.socket)
	io.WriteString(c2, `{"op":"subscribe"}`+"\n")
	bufio.NewReader(c2).ReadString('\n')
	c2.Close()
	select {
	case <-a.ch:
		t.Fatalf("unexpected call: %v", a.got)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestFocusWithoutNotifier: with no notifier a focus is still answered.
func TestFocusWithoutNotifier(t *testing.T) {
	d := startDaemon(t, nil)
	if got := raw(t, d.socket, `{"op":"focus","tab":"t1"}`); !strings.Contains(got[0], `"ok":true`) {
		t.Fatalf("focus answered %s", got[0])
	}
}

// TestFocusHeldPastIdle: a connection holding a focus is long-lived, like
// a subscription: a request connection idle as long is closed, and one
// past the request budget evicts that one, while the focus stays held
// (no forget) and its connection keeps answering.
func TestFocusHeldPastIdle(t *testing.T) {
	a := &attn{ch: make(chan struct{}, 16)}
	d := startDaemon(t, func(s *server.Server) {
		s.SetAttention(a)
		s.IdleTimeout = 50 * time.Millisecond
		s.MaxConns = 1
	})
	c, err := net.Dial("unix", d.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rd := bufio.NewReader(c)
	ask := func(req string) string {
		t.Helper()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		return askOn(t, c, rd, req)
	}
	if l := ask(`{"op":"focus","tab":"t1"}`); !strings.Contains(l, `"ok":true`) {
		t.Fatalf("focus answered %s", l)
	}
	a.wait(t, 1)
	// An idle request connection is closed (the idle time has passed)...
	idle, err := net.Dial("unix", d.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	idle.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := idle.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("idle request connection: %v, want closed", err)
	}
	// ...and one past the budget of one is evicted by the next, not the focus.
	for range 2 {
		x, err := net.Dial("unix", d.socket)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
	}
	if l := ask(`{"op":"status"}`); !strings.Contains(l, `"ok":true`) {
		t.Fatalf("the focus's connection answered %s", l)
	}
	a.mu.Lock()
	got := fmt.Sprint(a.got)
	a.mu.Unlock()
	if got != "[focus 1 /t1]" {
		t.Fatalf("calls %v: the focus was dropped", got)
	}
}

// TestStatusCarriesSinkStats: the notifier's totals join every status
// answer as it is built (the relay knows nothing of them); without a
// notifier the list is empty, never null.
func TestStatusCarriesSinkStats(t *testing.T) {
	d := startDaemon(t, nil)
	if got := raw(t, d.socket, `{"op":"status"}`)[0]; !strings.Contains(got, `"notify":[]`) {
		t.Fatalf("no notifier: %s", got)
	}
	var failed atomic.Int64
	at := time.Date(2026, 12, 5, 4, 30, 0, 0, time.UTC)
	d = startDaemon(t, func(s *server.Server) {
		s.SetSinkStats(func() []wire.SinkStats {
			return []wire.SinkStats{{Name: "webhook", Shown: 2, Failed: failed.Load(), LastError: "POST https://ntfy.example: 403 Forbidden", LastErrorAt: &at}}
		})
	})
	for _, n := range []int64{1, 3} {
		failed.Store(n)
		var resp wire.Response
		if err := json.Unmarshal([]byte(raw(t, d.socket, `{"op":"status"}`)[0]), &resp); err != nil || resp.Status == nil {
			t.Fatalf("status: %v %+v", err, resp)
		}
		if got := resp.Status.Notify; len(got) != 1 || got[0].Name != "webhook" || got[0].Shown != 2 || got[0].Failed != n ||
			got[0].LastError != "POST https://ntfy.example: 403 Forbidden" || !got[0].LastErrorAt.Equal(at) {
			t.Fatalf("notify %+v", got)
		}
	}
}

// TestFocusCountedOnce: a connection holding a focus takes one
// subscription slot, also when it then subscribes (before, the slot was
// taken twice and given back once: each such connection lost the budget
// one slot for good), shows in `focused` until it lets go or closes.
func TestFocusCountedOnce(t *testing.T) {
	d := startDaemon(t, func(s *server.Server) {
		s.SetAttention(&attn{ch: make(chan struct{}, 64)})
		s.MaxSubscribers = 2
	})
	counters := func(want string) {
		t.Helper()
		var got string
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) { // a bound on a hang
			c := d.srv.Counters()
			if got = fmt.Sprintf("focused %d", c.Focused); got == want {
				return
			}
		}
		t.Fatalf("%s, want %s", got, want)
	}
	dial := func() (net.Conn, *bufio.Reader) {
		t.Helper()
		c, err := net.Dial("unix", d.socket)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		return c, bufio.NewReader(c)
	}
	for range 4 { // twice the budget: a lost slot would refuse the last
		c, rd := dial()
		if l := askOn(t, c, rd, `{"op":"focus","tab":"t1"}`); !strings.Contains(l, `"ok":true`) {
			t.Fatalf("focus answered %s", l)
		}
		counters("focused 1")
		if l := askOn(t, c, rd, `{"op":"subscribe"}`); strings.Contains(l, "too many") {
			t.Fatalf("subscribe after focus answered %s", l)
		}
		c.Close()
		counters("focused 0")
	}
	c, rd := dial()
	defer c.Close()
	askOn(t, c, rd, `{"op":"focus","tab":"t1"}`)
	counters("focused 1")
	askOn(t, c, rd, `{"op":"focus"}`) // let go
	counters("focused 0")
	// It keeps its slot: one is left.
	x, xrd := dial()
	defer x.Close()
	if l := askOn(t, x, xrd, `{"op":"subscribe"}`); strings.Contains(l, "too many") {
		t.Fatalf("a subscription within the budget answered %s", l)
	}
}

// askOn sends one request line on c and reads its answer line.
func askOn(t *testing.T, c net.Conn, rd *bufio.Reader, req string) string {
	t.Helper()
	if _, err := io.WriteString(c, req+"\n"); err != nil {
		t.Fatal(err)
	}
	l, err := rd.ReadString('\n')
	if err != nil {
		t.Fatalf("%s: %v", req, err)
	}
	return l
}
