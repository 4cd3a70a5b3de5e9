// Package memtrim hands the memory a long-running process has freed back to
// the OS once the process goes idle.
//
// The Go runtime keeps freed heap pages resident up to about the heap goal
// (twice the live heap by default) and returns the rest only slowly, and
// it collects garbage only when allocation reaches that goal. The daemon's
// work comes in bursts (start-up reads every log, a checkpoint encodes
// every session, a client asks for the status of 10 000 sessions) and most
// of its life is idle, so without help its anonymous memory stays at the
// size of its last burst, for good, since an idle process allocates
// nothing and so never collects. A Trimmer checks every Every whether the
// heap holds at least MinFree bytes of free pages and garbage while hardly
// anything was allocated since the last check, after a check that saw
// work, and if so collects and returns them (two collections: about 20 ms
// of CPU at 10 000 sessions). Once per idle period: the runtime keeps a few
// pages it does not return, and an idle daemon must not collect every few
// seconds for them. A check reads four runtime metrics: no allocation.
//
// Only anonymous memory is released. The program's own pages are file
// pages, shared with every other logwatch process and reclaimable by the
// kernel at any time: unmapping them lowers the RSS that ps shows and
// frees nothing.
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
	DefaultEvery = 2 * time.Second
	// DefaultMinFree: 1 MiB kept up to 0.9 MB of a status answer's garbage
	// resident for good after OpenCode's 1 000 stored sessions' start-up
	// (measured: the daemon at rest 6.8 MB, 5.9 once released); a release
	// is once per idle period, a few ms.
	DefaultMinFree = 256 << 10
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
	r := Reading{Free: s[0].Value.Uint64(), Allocs: s[3].Value.Uint64()}
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

// Check looks once. After a check that saw work, an idle one releases the
// heap if it holds enough free memory and garbage to be worth it. It
// reports whether it released.
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
	if !t.worked || r.Free+r.Garbage < minFree {
		return false
	}
	release()
	t.worked = false
	// Start the next interval after the release's own work.
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
