package relay

import (
	"github.com/logwatch/logwatch/internal/proctree"
)

// ProcFacts answers the questions about processes the machine asks during
// a step. Live, they are read from /proc and pidfds; a replay answers them
// from the recording (every answer is recorded as a RecProc line), so the
// same inputs take the same steps whatever runs on the replaying machine.
type ProcFacts interface {
	// Alive reports whether pid runs and is the process that started at
	// start (0: any).
	Alive(pid int, start uint64) bool
	// Descends reports whether pid is ancestor or a descendant of it.
	Descends(pid, ancestor int) bool
	// Watch reports whether pid's exit will be told (ProcessExited).
	Watch(pid int, start uint64) bool
}

// Operations of a RecProc line.
const (
	ProcAlive    = "alive"
	ProcDescends = "descends"
	ProcWatch    = "watch"
)

// procs is the seam through which the machine learns about processes: the
// facts, and the end of its interest in a watched exit. The edge's
// edgeProcs is the only implementation that reads /proc or holds pidfds.
type procs interface {
	ProcFacts
	Forget(pid int, start uint64)
}

// edgeProcs answers the machine from /proc and pidfds, or from facts when
// set, and records every answer.
type edgeProcs struct {
	r        *Relay
	facts    ProcFacts       // nil: /proc and pidfds
	exits    *proctree.Exits // tells watched processes' exits, once one is watched
	exitsOff bool            // no pidfds here (or in a test): the sweep polls
}

// SetProcFacts has the relay ask facts instead of /proc and pidfds. Call
// before Run and Restore.
func (r *Relay) SetProcFacts(f ProcFacts) { r.procs.facts = f }

// Alive is proctree.Alive, recorded.
func (p *edgeProcs) Alive(pid int, start uint64) bool {
	var ok bool
	if p.facts != nil {
		ok = p.facts.Alive(pid, start)
	} else {
		ok = proctree.Alive(pid, start)
	}
	if p.r.rec != nil {
		p.r.record(RecordLine{Kind: RecProc, Op: ProcAlive, Pid: pid, Start: start, OK: ok})
	}
	return ok
}

// Descends is proctree.Descends (an unknown answer is no), recorded.
func (p *edgeProcs) Descends(pid, ancestor int) bool {
	var ok bool
	if p.facts != nil {
		ok = p.facts.Descends(pid, ancestor)
	} else {
		ok, _ = proctree.Descends(pid, ancestor)
	}
	if p.r.rec != nil {
		p.r.record(RecordLine{Kind: RecProc, Op: ProcDescends, Pid: pid, Ancestor: ancestor, OK: ok})
	}
	return ok
}

// Watch has the process's exit told by a pidfd where the kernel has them
// (Linux 5.3+): no polling, and a kill -9 is seen at once. Elsewhere the
// sweep polls.
func (p *edgeProcs) Watch(pid int, start uint64) bool {
	ok := p.watch(pid, start)
	if p.r.rec != nil {
		p.r.record(RecordLine{Kind: RecProc, Op: ProcWatch, Pid: pid, Start: start, OK: ok})
	}
	return ok
}

func (p *edgeProcs) watch(pid int, start uint64) bool {
	if p.facts != nil {
		return p.facts.Watch(pid, start)
	}
	if p.exitsOff {
		return false
	}
	if p.exits == nil {
		x, err := proctree.NewExits(p.r.ProcessExited)
		if err != nil {
			p.exitsOff = true
			p.r.log.Info().Err(err).Msg("process exits polled every 2 s")
			return false
		}
		p.exits = x
	}
	return p.exits.Watch(pid, start)
}

// Forget stops watching a process's exit.
func (p *edgeProcs) Forget(pid int, start uint64) {
	if p.exits != nil {
		p.exits.Forget(pid, start)
	}
}

// close releases the pidfds.
func (p *edgeProcs) close() {
	if p.exits != nil {
		p.exits.Close()
	}
}
