package proctree

import (
	"os/exec"
	"testing"
	"time"
)

func TestExits(t *testing.T) {
	got := make(chan Proc, 4)
	x, err := NewExits(func(pid int, start uint64) { got <- Proc{pid, start} })
	if err != nil {
		t.Skipf("no pidfds: %v", err)
	}
	defer x.Close()
	start := func() (*exec.Cmd, uint64) {
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
	a, aStart := start()
	b, bStart := start()
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
	b.Process.Kill()
	a.Process.Kill() // not reaped: its exit is told all the same
	select {
	case p := <-got:
		if p != (Proc{a.Process.Pid, aStart}) {
			t.Errorf("exit of %+v, want %d", p, a.Process.Pid)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit told")
	}
	select {
	case p := <-got:
		t.Errorf("a forgotten process's exit told: %+v", p)
	case <-time.After(100 * time.Millisecond):
	}
	if x.Len() != 0 {
		t.Errorf("Len = %d after the exits, want 0", x.Len())
	}
	a.Wait()
	if x.Watch(a.Process.Pid, aStart) {
		t.Error("Watch of a reaped process succeeded")
	}
}
