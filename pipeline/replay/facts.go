package replay

import (
	"sync"

	"github.com/logwatch/logwatch/relay"
)

// facts answers the relay's questions about processes with the answers the
// recorded relay got (relay.RecProc lines), not this machine's /proc: each
// question gets the recorded answers to the same question in their order,
// then the last one again. A question never recorded is answered no (no
// such process).
type facts struct {
	mu sync.Mutex
	q  map[factKey][]bool
}

type factKey struct {
	op       string
	pid      int
	start    uint64
	ancestor int
}

func newFacts(inputs []Input) *facts {
	f := &facts{q: map[factKey][]bool{}}
	for _, in := range inputs {
		if in.Kind == relay.RecProc {
			k := factKey{in.Op, in.Pid, in.Start, in.Ancestor}
			f.q[k] = append(f.q[k], in.OK)
		}
	}
	return f
}

func (f *facts) answer(k factKey) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.q[k]
	if len(q) == 0 {
		return false
	}
	ok := q[0]
	if len(q) > 1 {
		f.q[k] = q[1:]
	}
	return ok
}

func (f *facts) Alive(pid int, start uint64) bool {
	return f.answer(factKey{op: relay.ProcAlive, pid: pid, start: start})
}

func (f *facts) Descends(pid, ancestor int) bool {
	return f.answer(factKey{op: relay.ProcDescends, pid: pid, ancestor: ancestor})
}

func (f *facts) Watch(pid int, start uint64) bool {
	return f.answer(factKey{op: relay.ProcWatch, pid: pid, start: start})
}
