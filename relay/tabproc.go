package relay

import (
	"fmt"
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
				delete(m.bind.fresh, t)
			}
		}
		m.bind.tabPruneAt = max(2*len(m.bind.tabProcs), 16)
		if len(m.bind.tabProcs) >= maxTabProcs {
			return fmt.Errorf("%w: %d tabs with a running process already; close tabs (tab_closed) first", ErrBadRequest, len(m.bind.tabProcs))
		}
	}
	m.bind.tabProcs[tab] = p
	if _, bound := m.bind.tabs[tab]; !bound {
		m.bind.fresh[tab] = 0 // a new process: its first Enter may be its first prompt
	}
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
