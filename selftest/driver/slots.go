package driver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

// EnvSlots, when set to a count, makes every scenario take one of that
// many machine-wide slots first; EnvSlotsDir names where their lock files
// are (default /tmp/logwatch-scenario-slots-<uid>: not $TMPDIR, which a
// test points at a private folder of its own).
const (
	EnvSlots    = "LOGWATCH_SCENARIO_SLOTS"
	EnvSlotsDir = "LOGWATCH_SCENARIO_SLOTS_DIR"
)

// Slots is how many scenarios may run at once on this machine, across
// processes, when EnvSlots asks for slots at all (0: no limit). The
// conformance suite is one test binary per agent and go test runs two at
// once, beside the test of selftest: agents starting together on two cores
// miss the time bounds of their screens and binds. DefaultSlots is twice the
// CPUs.
func Slots() int {
	n, err := strconv.Atoi(os.Getenv(EnvSlots))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// DefaultSlots is what the suite asks for: twice as many as CPUs.
func DefaultSlots() int { return 2 * runtime.NumCPU() }

// HoldSlot takes one of the machine's scenario slots for the rest of t, as
// New does, for a test that drives a real agent without a Scenario (the
// tests of `logwatch try`): out of EnvSlots, else the suite's DefaultSlots,
// so it waits its turn beside the conformance suite's scenarios instead of
// adding an agent to those the slots allow.
func HoldSlot(t TB) {
	t.Helper()
	n := Slots()
	if n == 0 {
		n = DefaultSlots()
	}
	release, err := acquireSlot(t.Context(), n)
	if err != nil {
		t.Fatalf("waiting for a scenario slot: %v", err)
	}
	t.Cleanup(release)
}

// acquireSlot waits for one of the machine's n scenario slots (a lock file
// held with flock, so a process that dies gives its slot back) and returns
// its release; n 0: no limit.
func acquireSlot(ctx context.Context, n int) (release func(), err error) {
	if n == 0 {
		return func() {}, nil
	}
	dir := os.Getenv(EnvSlotsDir)
	if dir == "" {
		dir = filepath.Join("/tmp", fmt.Sprintf("logwatch-scenario-slots-%d", os.Getuid()))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	for {
		for i := 0; i < n; i++ {
			f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(i)+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
			if err != nil {
				return nil, err
			}
			if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
				return func() { f.Close() }, nil // closing the file releases the lock
			}
			f.Close()
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
