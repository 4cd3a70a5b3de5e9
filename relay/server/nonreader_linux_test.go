package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/client"
)

// seed gives the relay n sessions, each working on a prompt in a tab.
func seed(t *testing.T, r *relay.Relay, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		p := fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"00000000-0000-4000-8000-%012d","cwd":"/home/user/src/project-%04d","prompt":"go"}`, i, i%500)
		must(t, r.Hook(context.Background(), "claude", fmt.Sprintf("tab-%d", i), []byte(p)))
	}
}

// pending is how many bytes the daemon has sent c that c has not read.
func pending(t *testing.T, c net.Conn) int {
	t.Helper()
	raw, err := c.(*net.UnixConn).SyscallConn()
	must(t, err)
	var n int
	var ierr error
	must(t, raw.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.SIOCINQ) }))
	must(t, ierr)
	return n
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestStatusNonReaders (issue 22 item 7): 256 clients fill the request
// budget, each asks for the status of 5 000 sessions (1.3 MB) and never
// reads it. The answers they hold take a bounded budget, not 256 copies
// (in-process heap: +343 MB before), and a hook still gets in and is
// answered while they hold on (it was refused: every connection busy).
func TestStatusNonReaders(t *testing.T) {
	d := startDaemon(t, nil)
	seed(t, d.r, 5000)
	conns := make([]net.Conn, d.srv.MaxConns)
	for i := range conns {
		c, err := net.Dial("unix", d.socket)
		must(t, err)
		defer c.Close()
		// One small exchange first: the connection is served, its
		// request reader allocated, before the heap is read.
		c.SetDeadline(time.Now().Add(30 * time.Second))
		io.WriteString(c, `{"op":"ack"}`+"\n")
		if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.Contains(line, "needs") {
			t.Fatalf("connection %d: %q %v", i, line, err)
		}
		c.SetDeadline(time.Time{})
		conns[i] = c
	}
	before := liveHeap()
	for _, c := range conns {
		io.WriteString(c, `{"op":"status"}`+"\n")
	}
	// Every answer has begun: bytes wait unread on each connection (the
	// answer is larger than what a socket holds, so every writer blocks).
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; i < len(conns); {
		if pending(t, conns[i]) > 0 {
			i++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d status answers begun within 60 s", i, len(conns))
		}
		time.Sleep(5 * time.Millisecond)
	}
	held := int64(liveHeap()) - int64(before)

	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	hc, err := client.Dial(ctx, d.socket)
	must(t, err)
	err = hc.Hook(ctx, "claude", "", []byte(`{"hook_event_name":"UserPromptSubmit","session_id":"probe"}`))
	took := time.Since(start)
	hc.Close()
	k := d.srv.Counters()
	t.Logf("%d non-readers hold answers of %d sessions: heap +%.1f MiB; a hook answered in %v (err %v); %d request connections open, %d evicted; %d answers built for %d requests",
		len(conns), 5000, float64(held)/(1<<20), took.Round(time.Millisecond), err, k.Conns, k.ConnsEvicted, k.StatusBuilt, k.StatusServed)
	if err != nil {
		t.Errorf("hook while the non-readers hold on: %v", err)
	}
	if took > 5*time.Second {
		t.Errorf("hook answered after %v", took)
	}
	// The non-readers still hold their connections (one made room).
	if k.Conns < int64(len(conns))-1 {
		t.Errorf("%d request connections open: the daemon dropped non-readers it had no need to", k.Conns)
	}
	if held > 48<<20 {
		t.Errorf("unread answers hold %.1f MiB of heap (budget 16 MiB)", float64(held)/(1<<20))
	}
}
