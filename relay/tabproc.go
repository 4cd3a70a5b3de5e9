package relay

import (
	"context"
	"fmt"
	"os"

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

// maxTabProcs bounds the tab processes recorded: every binding walks them,
// each a read of /proc, and a checkpoint saves them. A host app has tens of
// tabs; past this, reports are refused until tabs close or their processes
// die.
const maxTabProcs = 1024

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
	if e := r.do(ctx, func() { err = step() }); e != nil {
		return e
	}
	return err
}

// tabProcessStep checks a reported tab process and returns what records it,
// to run on the relay goroutine: with a key or a close it runs in the same
// hop as the request it came with (wrap sends its pid with every key). pid
// 0 reports nothing.
func (r *Relay) tabProcessStep(tab string, pid int) (func() error, error) {
	if pid == 0 {
		return func() error { return nil }, nil
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
	if pid == 1 || pid == os.Getpid() {
		r.countBad()
		return nil, fmt.Errorf("%w: pid %d is not a tab's process (it runs every process, or is this daemon)", ErrBadRequest, pid)
	}
	if up, _ := proctree.Descends(os.Getpid(), pid); up {
		// init, systemd --user, the host app or a shell that started this
		// daemon: an ancestor of everything would capture every agent.
		r.countBad()
		return nil, fmt.Errorf("%w: pid %d is an ancestor of this daemon, so of every process, not one tab's: report the process started for the tab", ErrBadRequest, pid)
	}
	start, _ := proctree.StartTime(pid)
	return func() error { return r.tabProcessRecorded(tab, pid, start) }, nil
}

func (m *machine) tabProcess(tab string, p tabProc) error {
	if cur, ok := m.bind.tabProcs[tab]; ok && cur == p {
		return nil
	}
	if _, ok := m.bind.tabProcs[tab]; !ok && len(m.bind.tabProcs) >= m.bind.tabPruneAt {
		// A tab whose process is gone without a close (a wrap killed -9, a
		// daemon down when it closed) would stay forever, saved and walked
		// by every binding. Dropped when the table has doubled since the
		// last look: each report costs O(1) reads of /proc, amortised.
		for t, tp := range m.bind.tabProcs {
			if !m.alive(tp.Pid, tp.Start) {
				delete(m.bind.tabProcs, t)
			}
		}
		m.bind.tabPruneAt = max(2*len(m.bind.tabProcs), 16)
		if len(m.bind.tabProcs) >= maxTabProcs {
			return fmt.Errorf("%w: %d tabs with a running process already; close tabs (tab_closed) first", ErrBadRequest, len(m.bind.tabProcs))
		}
	}
	m.bind.tabProcs[tab] = p
	m.store.changed = true
	m.regTabProcess()
	return nil
}

// sharedTab reports whether tab's process is an ancestor of another tab's:
// a process every tab runs under (a host app reporting its own pid) is no
// one tab's, and binds nothing by ancestry.
func (m *machine) sharedTab(tab string) bool {
	pid := m.bind.tabProcs[tab].Pid
	for t, tp := range m.bind.tabProcs {
		if t == tab || tp.Pid == pid {
			continue
		}
		if m.descends(tp.Pid, pid) && m.alive(tp.Pid, tp.Start) {
			return true
		}
	}
	return false
}

// TabPID returns the process recorded for tab (0 if none).
func (r *Relay) TabPID(ctx context.Context, tab string) (int, error) {
	pid := 0
	err := r.do(ctx, func() { pid = r.m.bind.tabProcs[tab].Pid })
	return pid, err
}
