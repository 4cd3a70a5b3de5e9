package driver

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestSlots: no more than Slots scenarios hold a slot at once, a waiter
// gets the slot a release gives back, and a waiter gives up with its
// context.
func TestSlots(t *testing.T) {
	t.Setenv(EnvSlots, "2")
	t.Setenv(EnvSlotsDir, t.TempDir())
	ctx := context.Background()
	r1, err := acquireSlot(ctx, Slots())
	if err != nil {
		t.Fatal(err)
	}
	r2, err := acquireSlot(ctx, Slots())
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := acquireSlot(short, Slots()); err == nil {
		t.Fatal("a third slot of two")
	}
	got := make(chan error, 1)
	go func() {
		r, err := acquireSlot(ctx, Slots())
		if err == nil {
			r()
		}
		got <- err
	}()
	r1()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the released slot was not taken")
	}
	r2()
}

// TestSlotsAcrossProcesses: a slot another process holds is not taken, and
// is free again once that process is gone.
func TestSlotsAcrossProcesses(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1)")
	}
	t.Setenv(EnvSlots, "1")
	dir := t.TempDir()
	t.Setenv(EnvSlotsDir, dir)
	r, err := acquireSlot(context.Background(), Slots()) // creates the lock file
	if err != nil {
		t.Fatal(err)
	}
	r()
	lock := dir + "/0.lock"
	holder := exec.Command("flock", "-o", lock, "sleep", "30") // -o: the lock dies with flock, not its child
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := acquireSlot(short, Slots()); err == nil {
		t.Fatal("took the slot another process holds")
	}
	holder.Process.Kill()
	holder.Wait()
	r, err = acquireSlot(context.Background(), Slots())
	if err != nil {
		t.Fatal(err)
	}
	r()
}

// TestNoSlotsUnlessAsked: without EnvSlots a scenario takes no slot and
// makes no lock file (selftest run by a user leaves nothing behind).
func TestNoSlotsUnlessAsked(t *testing.T) {
	t.Setenv(EnvSlots, "")
	dir := t.TempDir()
	t.Setenv(EnvSlotsDir, dir)
	r, err := acquireSlot(context.Background(), Slots())
	if err != nil {
		t.Fatal(err)
	}
	r()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("made %v", ents)
	}
}
