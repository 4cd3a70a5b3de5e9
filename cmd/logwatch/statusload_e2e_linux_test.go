package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/logwatch/logwatch/relay/client"
)

// seedSessions gives the daemon n sessions, each working on a prompt in a
// tab of its own.
func (e *e2e) seedSessions(n int) {
	e.t.Helper()
	const workers = 8
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			c, err := client.Dial(context.Background(), e.socket)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			for i := w; i < n; i += workers {
				p := fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"00000000-0000-4000-8000-%012d","cwd":"/home/user/src/project-%04d","prompt":"go"}`, i, i%500)
				if err := c.Hook(context.Background(), "claude", fmt.Sprintf("tab-%d", i), []byte(p)); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			e.t.Fatal(err)
		}
	}
}

// TestE2EStatusNonReaders (issue 22 item 7): against the real daemon with
// 5 000 sessions, 256 clients ask for the status and never read it. The
// daemon's anonymous memory stays bounded (594 MiB at its peak before), and
// a hook is answered while they hold on (it was refused, or waited 1.2 s).
func TestE2EStatusNonReaders(t *testing.T) {
	e := startE2E(t, "LOGWATCH_LOG_LEVEL=info")
	e.seedSessions(5000)
	pid := e.daemon.Process.Pid
	idle := procKB(t, pid, "RssAnon")
	conns := make([]net.Conn, 256)
	for i := range conns {
		c, err := net.Dial("unix", e.socket)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, `{"op":"status"}`+"\n")
		conns[i] = c
	}
	// Every answer has begun: bytes wait unread on each connection.
	deadline := time.Now().Add(60 * time.Second)
	for i := 0; i < len(conns); {
		raw, _ := conns[i].(*net.UnixConn).SyscallConn()
		n := 0
		raw.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ) })
		if n > 0 {
			i++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d status answers begun within 60 s", i, len(conns))
		}
		time.Sleep(5 * time.Millisecond)
	}
	held := procKB(t, pid, "RssAnon")

	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, e.socket)
	if err != nil {
		t.Fatal(err)
	}
	err = c.Hook(ctx, "claude", "", []byte(hookJSON("UserPromptSubmit", "probe")))
	took := time.Since(start)
	c.Close()
	peak := procKB(t, pid, "VmHWM")
	t.Logf("256 non-readers of a 5 000-session status: daemon anon RSS %d MiB idle, %d MiB while they hold on (VmHWM %d MiB); a hook answered in %v (err %v)",
		idle>>10, held>>10, peak>>10, took.Round(time.Millisecond), err)
	if err != nil {
		t.Errorf("hook while the non-readers hold on: %v", err)
	}
	if took > 5*time.Second {
		t.Errorf("hook answered after %v", took)
	}
	if held > 100<<10 {
		t.Errorf("anon RSS %d MiB while non-readers hold status answers", held>>10)
	}
}

// TestE2EConcurrentStatus (issue 22 item 7): 300 `logwatch status --all`
// at once (the CLI's own code, in this process) against the real daemon
// with 2 000 sessions all succeed: answers are shared, the CLI's timeout is
// the answer's progress, not a 5 s total, and a status refused for load or
// cut short to make room is asked again.
func TestE2EConcurrentStatus(t *testing.T) {
	e := startE2E(t, "LOGWATCH_LOG_LEVEL=info")
	e.seedSessions(2000)
	const n = 300
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := map[string]int{}
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := &app{stdout: io.Discard, stderr: io.Discard, log: zerolog.Nop()}
			a.cfg.Socket = e.socket
			if err := a.statusRun(&statusOptions{All: true}); err != nil {
				mu.Lock()
				failed[err.Error()]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	st := e.status()
	t.Logf("%d concurrent status --all of 2 000 sessions in %v: %d kinds of failure %v; the daemon built %v answers for %v requests, evicted %v connections, refused %v, %v busy",
		n, time.Since(start).Round(time.Millisecond), len(failed), failed, counter(st, "status_built"), counter(st, "status_served"),
		counter(st, "conns_evicted"), counter(st, "conns_refused"), counter(st, "status_busy"))
	if len(failed) > 0 {
		t.Errorf("failures: %v", failed)
	}
}
