package memtrim

import (
	"runtime"
	"testing"
)

func TestCheck(t *testing.T) {
	const mib = 1 << 20
	type step struct {
		r    Reading
		want bool
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"the first check only primes", []step{{Reading{Free: 8 * mib, Allocs: 100}, false}}},
		{"once per idle period", []step{
			{Reading{Free: 8 * mib, Allocs: 100}, false},
			{Reading{Free: 8 * mib, Allocs: 100}, true},
			{Reading{Free: 2 * mib, Allocs: 100}, false}, // what the runtime would not return
			{Reading{Free: 2 * mib, Allocs: 100}, false},
			{Reading{Free: 3 * mib, Allocs: 100 + DefaultQuiet}, false},
			{Reading{Free: 3 * mib, Allocs: 100 + DefaultQuiet}, true},
		}},
		{"idle with free memory releases", []step{
			{Reading{Free: 8 * mib, Allocs: 100}, false},
			{Reading{Free: 8 * mib, Allocs: 100 + DefaultQuiet - 1}, true},
		}},
		{"busy keeps its memory for the next burst", []step{
			{Reading{Free: 8 * mib, Allocs: 100}, false},
			{Reading{Free: 8 * mib, Allocs: 100 + DefaultQuiet}, false},
			{Reading{Free: 8 * mib, Allocs: 100 + DefaultQuiet}, true},
		}},
		{"too little free is not worth a collection", []step{
			{Reading{Free: 0, Allocs: 100}, false},
			{Reading{Free: DefaultMinFree - 1, Allocs: 100}, false},
			{Reading{Free: DefaultMinFree, Allocs: 100}, true},
		}},
		{"garbage no collection freed counts", []step{
			{Reading{Free: 0, Allocs: 100}, false},
			{Reading{Free: DefaultMinFree / 2, Garbage: DefaultMinFree / 2, Allocs: 100}, true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cur Reading
			released := 0
			tr := &Trimmer{Read: func() Reading { return cur }, Release: func() { released++ }}
			for i, s := range tt.steps {
				cur = s.r
				before := released
				if got := tr.Check(); got != s.want || released-before != map[bool]int{true: 1}[s.want] {
					t.Fatalf("step %d (%+v): Check() = %v with %d releases, want %v", i, s.r, got, released-before, s.want)
				}
			}
		})
	}
}

// The interval after a release starts after it: the release's own
// collection is not taken for work, and an idle period releases once.
func TestCheckAfterRelease(t *testing.T) {
	cur := Reading{Free: 8 << 20, Allocs: 1000}
	tr := &Trimmer{Read: func() Reading { return cur }, Release: func() { cur = Reading{Free: 0, Allocs: 1200} }}
	tr.Check()
	if !tr.Check() {
		t.Fatal("idle with 8 MiB free: no release")
	}
	if tr.last != 1200 {
		t.Fatalf("next interval starts at %d, want 1200 (after the release)", tr.last)
	}
	cur.Free = 8 << 20
	if tr.Check() {
		t.Fatal("released twice in one idle period")
	}
}

// sink keeps the garbage from being optimised away.
var sink [][]byte

// Against the real runtime: garbage an idle process never collects (it
// allocates nothing, so no collection comes) is collected and returned.
func TestReleaseGarbageRealRuntime(t *testing.T) {
	runtime.GC()
	tr := &Trimmer{}
	tr.Check()
	for i := 0; i < 16; i++ {
		sink = append(sink, make([]byte, 512<<10))
	}
	sink = nil
	if tr.Check() {
		t.Fatal("released right after 8 MiB of allocation: that is not idle")
	}
	before := Read()
	if before.Garbage < 4<<20 {
		t.Skipf("a collection already ran (%+v): nothing to show", before)
	}
	if !tr.Check() {
		t.Fatalf("idle with %+v: no release", before)
	}
	if after := Read(); after.Garbage > before.Garbage/4 || after.Free > before.Garbage/4 {
		t.Fatalf("after the release %+v, before %+v", after, before)
	}
}

// Against the real runtime: garbage a collection freed stays resident (the
// heap goal covers it) until an idle check hands it back.
func TestReleaseRealRuntime(t *testing.T) {
	tr := &Trimmer{}
	tr.Check()
	for i := 0; i < 64; i++ {
		sink = append(sink, make([]byte, 512<<10))
	}
	sink = nil
	runtime.GC()
	if tr.Check() {
		t.Fatal("released right after 32 MiB of allocation: that is not idle")
	}
	before := Read().Free
	if before < 16<<20 {
		t.Skipf("the runtime already returned the garbage (%d bytes free): nothing to show", before)
	}
	if !tr.Check() {
		t.Fatalf("idle with %d bytes free: no release", before)
	}
	// Not zero: the runtime keeps a few pages per P cached.
	if after := Read().Free; after > before/4 {
		t.Fatalf("%d of %d free bytes still resident after the release", after, before)
	}
}

// An idle check costs no allocation: an idle daemon makes no garbage.
func TestCheckAllocatesNothing(t *testing.T) {
	tr := &Trimmer{Release: func() {}}
	tr.Check()
	if n := testing.AllocsPerRun(100, func() { tr.Check() }); n != 0 {
		t.Fatalf("a check allocates %v times", n)
	}
}
