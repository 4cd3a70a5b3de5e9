package proctree

import (
	"errors"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// sleeper starts a real process that lives until killed.
func sleeper(t *testing.T) (*exec.Cmd, uint64) {
	t.Helper()
	c := exec.Command("sleep", "30")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	st, err := StartTime(c.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return c, st
}

func TestExits(t *testing.T) {
	got := make(chan Proc, 4)
	x, err := NewExits(func(pid int, start uint64) { got <- Proc{pid, start} })
	if err != nil {
		t.Skipf("no pidfds: %v", err)
	}
	defer x.Close()
	a, aStart := sleeper(t)
	b, bStart := sleeper(t)
	if !x.Watch(a.Process.Pid, aStart) || !x.Watch(b.Process.Pid, bStart) || !x.Watch(a.Process.Pid, aStart) {
		t.Fatal("Watch of a live process failed")
	}
	if x.Watch(a.Process.Pid, aStart+1) {
		t.Error("Watch with another start time (a reused pid) succeeded")
	}
	if x.Len() != 2 {
		t.Errorf("Len = %d, want 2", x.Len())
	}
	x.Forget(b.Process.Pid, bStart)
	// b has exited before a is killed: had its pidfd stayed in the set,
	// its event would come no later than a's.
	b.Process.Kill()
	b.Wait()
	a.Process.Kill() // not reaped: its exit is told all the same
	select {
	case p := <-got:
		if p != (Proc{a.Process.Pid, aStart}) {
			t.Errorf("exit of %+v, want %d", p, a.Process.Pid)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit told")
	}
	if x.Len() != 0 {
		t.Errorf("Len = %d after the exits, want 0", x.Len())
	}
	a.Wait()
	if x.Watch(a.Process.Pid, aStart) {
		t.Error("Watch of a reaped process succeeded")
	}
	// Close returns only once the loop has told all it will tell.
	x.Close()
	select {
	case p := <-got:
		t.Errorf("a forgotten process's exit told: %+v", p)
	default:
	}
	c, cStart := sleeper(t)
	if x.Watch(c.Process.Pid, cStart) {
		t.Error("Watch after Close succeeded")
	}
	x.Close() // twice: no write to a closed wake fd, no hang
}

// TestExitsStaleEvent replays the race: EpollWait returns a's event, then,
// before it is handled, Forget(a) closes a's pidfd and Watch(b) gets the
// same fd number. The stale event must not be told as b's exit.
func TestExitsStaleEvent(t *testing.T) {
	var told []Proc
	x, err := newExits(func(pid int, start uint64) { told = append(told, Proc{pid, start}) })
	if err != nil {
		t.Skipf("no pidfds: %v", err)
	}
	// No loop goroutine: the test is the loop, one step at a time.
	defer func() {
		x.mu.Lock()
		for id := range x.ids {
			x.drop(id)
		}
		x.mu.Unlock()
		unix.Close(x.wake)
		unix.Close(x.ep)
	}()
	a, aStart := sleeper(t)
	b, bStart := sleeper(t)
	if !x.Watch(a.Process.Pid, aStart) {
		t.Fatal("Watch(a) failed")
	}
	aFd := x.ids[x.byID[Proc{a.Process.Pid, aStart}]].fd
	a.Process.Kill()
	a.Wait()
	evs := wait(t, x)
	x.Forget(a.Process.Pid, aStart)
	if !x.Watch(b.Process.Pid, bStart) {
		t.Fatal("Watch(b) failed")
	}
	if bFd := x.ids[x.byID[Proc{b.Process.Pid, bStart}]].fd; bFd != aFd {
		t.Fatalf("b's pidfd is %d, not a's %d: the race is not replayed", bFd, aFd)
	}
	exited, stop := x.handle(evs)
	for _, p := range exited {
		x.notify(p.Pid, p.Start)
	}
	if stop || len(told) != 0 || x.Len() != 1 {
		t.Fatalf("a's stale event: stop %v, told %+v, %d watched; want nothing told, b watched", stop, told, x.Len())
	}
	b.Process.Kill()
	exited, _ = x.handle(wait(t, x))
	if want := (Proc{b.Process.Pid, bStart}); len(exited) != 1 || exited[0] != want {
		t.Errorf("b's exit: told %+v, want %+v", exited, want)
	}
}

// wait is one EpollWait of the loop, bounded so a lost event fails the test.
func wait(t *testing.T, x *Exits) []unix.EpollEvent {
	t.Helper()
	evs := make([]unix.EpollEvent, 32)
	for {
		n, err := unix.EpollWait(x.ep, evs, 10000)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("no epoll event")
		}
		return evs[:n]
	}
}
