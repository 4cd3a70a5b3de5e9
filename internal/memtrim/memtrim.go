// Package memtrim hands the memory a long-running process has freed back to
// the OS once the process goes idle.
//
// The Go runtime keeps freed heap pages resident up to about the heap goal
// (twice the live heap by default) and returns the rest only slowly. The
// daemon's work comes in bursts (start-up reads every log, a checkpoint
// encodes every session, a long line needs a big buffer) and most of its
// life is idle, so without help it stays at the size of its last burst:
// 2.5–4 MiB more after the same start-up, one run in four. A Trimmer
// checks every Every whether the heap holds at least MinFree free bytes
// while hardly anything was allocated since the last check, after a check
// that saw work, and if so returns them (debug.FreeOSMemory: one
// collection, about 10 ms of CPU at 10 000 sessions). Once per idle
// period: the runtime keeps a few pages it does not return, and an idle
// daemon must not collect every few seconds for them. An idle check reads
// two runtime metrics: no allocation, a few microseconds.
package memtrim

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Defaults for a Trimmer's zero fields.
const (
	DefaultEvery   = 2 * time.Second
	DefaultMinFree = 1 << 20
	// DefaultQuiet: allocating less than this between two checks is idle.
	DefaultQuiet = 256 << 10
)

const (
	freeMetric   = "/memory/classes/heap/free:bytes"
	allocsMetric = "/gc/heap/allocs:bytes"
)

// Reading is what a check looks at.
type Reading struct {
	Free   uint64 // heap bytes free and still resident
	Allocs uint64 // bytes allocated since the process started
}

// Trimmer returns free heap to the OS when the process is idle. The zero
// value uses the defaults and the real runtime.
type Trimmer struct {
	Every   time.Duration
	MinFree uint64
	Quiet   uint64

	// Read and Release are the runtime; tests replace them.
	Read    func() Reading
	Release func()

	last    uint64
	started bool
	worked  bool // work was seen since the last release
}

// Read returns the runtime's current reading.
func Read() Reading {
	s := []metrics.Sample{{Name: freeMetric}, {Name: allocsMetric}}
	metrics.Read(s)
	return Reading{Free: s[0].Value.Uint64(), Allocs: s[1].Value.Uint64()}
}

// Release returns every free page to the OS now (after a collection).
func Release() { debug.FreeOSMemory() }

// Check looks once and releases if the process has been idle since the
// last Check with enough free memory to be worth it. It reports whether it
// released.
func (t *Trimmer) Check() bool {
	read, release := t.Read, t.Release
	if read == nil {
		read = Read
	}
	if release == nil {
		release = Release
	}
	minFree, quiet := t.MinFree, t.Quiet
	if minFree == 0 {
		minFree = DefaultMinFree
	}
	if quiet == 0 {
		quiet = DefaultQuiet
	}
	r := read()
	busy := !t.started || r.Allocs-t.last >= quiet
	t.last, t.started = r.Allocs, true
	if busy {
		t.worked = true
		return false
	}
	if !t.worked || r.Free < minFree {
		return false
	}
	release()
	t.worked = false
	// Start the next interval after the release's own collection.
	t.last = read().Allocs
	return true
}

// Run checks every Every until ctx ends.
func (t *Trimmer) Run(ctx context.Context) {
	every := t.Every
	if every <= 0 {
		every = DefaultEvery
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			t.Check()
		}
	}
}
