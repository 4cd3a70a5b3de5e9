package relay

import (
	"context"

	"github.com/logwatch/logwatch/internal/proctree"
)

// ProcFacts answers the questions about processes the relay goroutine asks
// during a step. Live, they are read from /proc and pidfds; a replay answers
// them from the recording (every answer is recorded as a RecProc line), so
// the same inputs take the same steps whatever runs on the replaying machine.
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

// SetProcFacts has the relay ask facts instead of /proc and pidfds. Call
// before Run and Restore.
func (r *Relay) SetProcFacts(f ProcFacts) { r.facts = f }

// alive is proctree.Alive, recorded.
func (r *Relay) alive(pid int, start uint64) bool {
	var ok bool
	if r.facts != nil {
		ok = r.facts.Alive(pid, start)
	} else {
		ok = proctree.Alive(pid, start)
	}
	if r.rec != nil {
		r.record(RecordLine{Kind: RecProc, Op: ProcAlive, Pid: pid, Start: start, OK: ok})
	}
	return ok
}

// descends is proctree.Descends (an unknown answer is no), recorded.
func (r *Relay) descends(pid, ancestor int) bool {
	var ok bool
	if r.facts != nil {
		ok = r.facts.Descends(pid, ancestor)
	} else {
		ok, _ = proctree.Descends(pid, ancestor)
	}
	if r.rec != nil {
		r.record(RecordLine{Kind: RecProc, Op: ProcDescends, Pid: pid, Ancestor: ancestor, OK: ok})
	}
	return ok
}

// watchExit has the process's exit told by a pidfd where the kernel has
// them (Linux 5.3+): no polling, and a kill -9 is seen at once. Elsewhere
// the sweep polls.
func (r *Relay) watchExit(pid int, start uint64) bool {
	ok := r.watchPidfd(pid, start)
	if r.rec != nil {
		r.record(RecordLine{Kind: RecProc, Op: ProcWatch, Pid: pid, Start: start, OK: ok})
	}
	return ok
}

func (r *Relay) watchPidfd(pid int, start uint64) bool {
	if r.facts != nil {
		return r.facts.Watch(pid, start)
	}
	if r.exitsOff {
		return false
	}
	if r.exits == nil {
		x, err := proctree.NewExits(func(pid int, start uint64) {
			r.enqueue(func() { r.regExited(pid, start) })
		})
		if err != nil {
			r.exitsOff = true
			r.log.Info().Err(err).Msg("process exits polled every 2 s")
			return false
		}
		r.exits = x
	}
	return r.exits.Watch(pid, start)
}

// forgetExit stops watching a process's exit.
func (r *Relay) forgetExit(pid int, start uint64) {
	if r.exits != nil {
		r.exits.Forget(pid, start)
	}
}

// ProcessExited tells the relay that a watched process exited, as its pidfd
// does live (a replay feeds the recorded exits).
func (r *Relay) ProcessExited(pid int, start uint64) {
	r.enqueue(func() { r.regExited(pid, start) })
}

// TabProcessStarted is TabProcess with the process's start time read
// already and the checks done (a replay feeds the recorded reports).
func (r *Relay) TabProcessStarted(ctx context.Context, tab string, pid int, start uint64) error {
	var err error
	if e := r.do(ctx, func() { err = r.tabProcessRecorded(tab, pid, start) }); e != nil {
		return e
	}
	return err
}

func (r *Relay) tabProcessRecorded(tab string, pid int, start uint64) error {
	r.record(RecordLine{Kind: RecTabProcess, Tab: tab, Pid: pid, Start: start})
	if err := r.tabProcess(tab, tabProc{Pid: pid, Start: start}); err != nil {
		r.counters.BadRequests++
		return err
	}
	return nil
}
