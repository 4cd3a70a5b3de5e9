package relay

import (
	"context"
	"fmt"

	"github.com/logwatch/logwatch/internal/proctree"
)

// tabProc is the process a tab runs (what `logwatch wrap` started, or the
// host app's child): the agent is that process or one of its descendants.
type tabProc struct {
	Pid int `json:"pid"`
	// Start is the process's start time (proctree.StartTime) when it was
	// reported, 0 if it could not be read: a later process with the same
	// pid is not the tab's.
	Start uint64 `json:"start,omitempty"`
}

// TabProcess records that tab runs process pid (`logwatch wrap` reports its
// child when the tab opens; a host app may send its child's pid with a key
// or a tab close). The pid binds the tab to the session of an agent process
// it is or is an ancestor of.
func (r *Relay) TabProcess(ctx context.Context, tab string, pid int) error {
	if pid == 0 {
		r.countBad()
		return fmt.Errorf("%w: a tab process needs a tab and a pid > 0", ErrBadRequest)
	}
	step, err := r.tabProcessStep(tab, pid)
	if err != nil {
		return err
	}
	return r.do(ctx, step)
}

// tabProcessStep checks a reported tab process and returns what records it,
// to run on the relay goroutine: with a key or a close it runs in the same
// hop as the request it came with (wrap sends its pid with every key). pid
// 0 reports nothing.
func (r *Relay) tabProcessStep(tab string, pid int) (func(), error) {
	if pid == 0 {
		return func() {}, nil
	}
	if err := validID("tab", tab); err != nil {
		r.countBad()
		return nil, err
	}
	if tab == "" || pid < 0 {
		r.countBad()
		return nil, fmt.Errorf("%w: a tab process needs a tab and a pid > 0", ErrBadRequest)
	}
	// Read outside the relay goroutine: /proc is a file system.
	start, _ := proctree.StartTime(pid)
	return func() {
		r.record(RecordLine{Kind: RecTabProcess, Tab: tab, Pid: pid})
		r.tabProcess(tab, tabProc{Pid: pid, Start: start})
	}, nil
}

func (r *Relay) tabProcess(tab string, p tabProc) {
	if cur, ok := r.tabProcs[tab]; ok && cur == p {
		return
	}
	// A tab whose process is gone without a close (a wrap killed -9, a
	// daemon down when it closed) would stay forever, saved and scanned by
	// every binding: a new tab's report is when to drop them.
	for t, tp := range r.tabProcs {
		if t != tab && !proctree.Alive(tp.Pid, tp.Start) {
			delete(r.tabProcs, t)
		}
	}
	r.tabProcs[tab] = p
	r.changed = true
	r.regTabProcess()
}

// TabPID returns the process recorded for tab (0 if none).
func (r *Relay) TabPID(ctx context.Context, tab string) (int, error) {
	pid := 0
	err := r.do(ctx, func() { pid = r.tabProcs[tab].Pid })
	return pid, err
}
