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

// EnvSlots overrides how many scenarios may run at once on this machine.
const EnvSlots = "LOGWATCH_SCENARIO_SLOTS"

// Slots is how many scenarios may run at once on this machine, across
// processes: the conformance suite is one test binary per agent and go test
// runs two at once, beside selftest's own test. Agents starting together
// on two cores miss the time bounds of their screens and binds, so the
// machine's scenarios share twice as many slots as it has CPUs.
func Slots() int {
	if n, err := strconv.Atoi(os.Getenv(EnvSlots)); err == nil && n > 0 {
		return n
	}
	return 2 * runtime.NumCPU()
}

// acquireSlot waits for one of the machine's scenario slots (a lock file
// held with flock, so a process that dies gives its slot back) and returns
// its release.
func acquireSlot(ctx context.Context) (release func(), err error) {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("logwatch-scenario-slots-%d", os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	n := Slots()
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
