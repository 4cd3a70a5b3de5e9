// Package memtrim hands the memory a long-running process has freed back to
// the OS once the process goes idle.
//
// The Go runtime keeps freed heap pages resident up to about the heap goal
// (twice the live heap by default) and returns the rest only slowly, and
// it collects garbage only when allocation reaches that goal. The daemon's
// work comes in bursts (start-up reads every log, a checkpoint encodes
// every session, a client asks for the status of 10 000 sessions) and most
// of its life is idle, so without help it stays at the size of its last
// burst: three `status --all` at 10 000 sessions left it at 36–46 MiB
// where it was 19, for good, since an idle process allocates nothing and
// so never collects. A Trimmer checks every Every whether the
// heap holds at least MinFree bytes of free pages and garbage while hardly
// anything was allocated since the last check, after a check that saw
// work, and if so collects and returns them (two collections: about
// 20 ms of CPU at 10 000 sessions). Once per idle period: the runtime keeps
// a few pages it does not return, and an idle daemon must not collect
// every few seconds for them. A check reads four runtime metrics and
// /proc/self/statm: no allocation, about 10 microseconds. An idle check
// also drops the mappings of the program's pages that work since the last
// drop left resident (DropProgram), whether or not the heap was worth a
// release.
package memtrim

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// Defaults for a Trimmer's zero fields.
const (
	DefaultEvery   = 2 * time.Second
	DefaultMinFree = 1 << 20
	// DefaultMinMapped: file-backed pages mapped since the last drop worth
	// dropping. More than an idle daemon's own periodic work maps back
	// after a drop (1.0-1.2 MiB at 10 000 sessions), so an idle daemon
	// does not drop over and over.
	DefaultMinMapped = 2 << 20
	// DefaultDropGap: checks from one drop to the next at the least. The
	// code a steady trickle of work runs comes straight back after a drop;
	// one drop per 10 s bounds that churn (a drop and the faults after it
	// cost well under a millisecond).
	DefaultDropGap = 5
	// DefaultQuiet: allocating less than this between two checks is idle.
	DefaultQuiet = 256 << 10
)

const (
	freeMetric    = "/memory/classes/heap/free:bytes"
	objectsMetric = "/memory/classes/heap/objects:bytes"
	liveMetric    = "/gc/heap/live:bytes"
	allocsMetric  = "/gc/heap/allocs:bytes"
)

// Reading is what a check looks at.
type Reading struct {
	Free    uint64 // heap bytes free and still resident
	Garbage uint64 // heap bytes in objects beyond what the last collection found live
	Allocs  uint64 // bytes allocated since the process started
	// Mapped: resident bytes of file-backed pages (the program's and its
	// libraries'); 0 where the OS does not tell.
	Mapped uint64
}

// Trimmer returns free heap to the OS when the process is idle. The zero
// value uses the defaults and the real runtime.
type Trimmer struct {
	Every     time.Duration
	MinFree   uint64
	MinMapped uint64
	DropGap   int
	Quiet     uint64

	// Read and Release are the runtime, Drop is DropProgram; tests
	// replace them.
	Read    func() Reading
	Release func()
	Drop    func()

	last    uint64
	started bool
	worked  bool   // work was seen since the last release
	mapped  uint64 // Mapped after the last drop (or at the first check), or less if it shrank since
	checks  int    // checks since the last drop (or the first check)
}

// samples is Read's buffer, guarded by samplesMu: metrics.Read's slice
// escapes, and an idle check must make no garbage.
var (
	samplesMu sync.Mutex
	samples   = []metrics.Sample{{Name: freeMetric}, {Name: objectsMetric}, {Name: liveMetric}, {Name: allocsMetric}}
)

// Read returns the runtime's current reading.
func Read() Reading {
	samplesMu.Lock()
	defer samplesMu.Unlock()
	s := samples
	metrics.Read(s)
	r := Reading{Free: s[0].Value.Uint64(), Allocs: s[3].Value.Uint64(), Mapped: mappedBytes()}
	if objects, live := s[1].Value.Uint64(), s[2].Value.Uint64(); objects > live {
		r.Garbage = objects - live
	}
	return r
}

// Release collects the garbage and returns every free page to the OS now.
// Two collections: what a sync.Pool held survives the first (in the pool's
// victim cache), and the encoder buffers of a 10 000-session status were
// 4 MB of it.
func Release() {
	runtime.GC()
	debug.FreeOSMemory()
}

// DropProgram drops the process's mappings of its program's code and
// read-only data, and returns how many kilobytes of them were resident. A
// burst runs code that idling never runs again (start-up reads the
// configuration, every log and the saved state; a status encodes every
// session), and a mapped page stays resident for the process's life: 11
// of the daemon's 19 MiB at 10 000 sessions were the binary's pages, about
// 3 of them what it runs while idle. What the process runs next faults
// back in as minor faults from the page cache, where the pages stay.
func DropProgram() (uint64, error) { return dropProgram() }

// Check looks once. After a check that saw work, an idle one releases the
// heap if it holds enough free memory and garbage to be worth it. An idle
// check also drops the program's pages if MinMapped more file-backed
// pages are resident than after the last drop, DropGap checks or more
// after it: what the process ran since, however little it allocated
// (streaming a checkpoint of 10 000 sessions maps megabytes of code and
// allocates less than Quiet). The first check's pages count as dropped:
// the daemon drops them itself once booted. It reports whether it
// released.
func (t *Trimmer) Check() bool {
	read, release, drop := t.Read, t.Release, t.Drop
	if read == nil {
		read = Read
	}
	if release == nil {
		release = Release
	}
	if drop == nil {
		drop = func() { DropProgram() }
	}
	minFree, minMapped, gap, quiet := t.MinFree, t.MinMapped, t.DropGap, t.Quiet
	if minFree == 0 {
		minFree = DefaultMinFree
	}
	if minMapped == 0 {
		minMapped = DefaultMinMapped
	}
	if gap == 0 {
		gap = DefaultDropGap
	}
	if quiet == 0 {
		quiet = DefaultQuiet
	}
	r := read()
	busy := !t.started || r.Allocs-t.last >= quiet
	if !t.started {
		t.mapped = r.Mapped
	}
	t.last, t.started = r.Allocs, true
	t.mapped = min(t.mapped, r.Mapped) // the kernel reclaimed some
	t.checks++
	if busy {
		t.worked = true
		return false
	}
	released := t.worked && r.Free+r.Garbage >= minFree
	if released {
		release()
		t.worked = false
	}
	dropped := t.checks >= gap && r.Mapped >= t.mapped+minMapped
	if dropped {
		// After the release: its collection's code goes too.
		drop()
		t.checks = 0
	}
	if released || dropped {
		// Start the next interval after their own work.
		after := read()
		t.last = after.Allocs
		if dropped {
			t.mapped = after.Mapped
		}
	}
	return released
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
