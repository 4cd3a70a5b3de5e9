package relay

import (
	"slices"
	"strconv"
	"strings"
)

// A hooked agent's own process, as its hook client named it
// (parsers.Hooks.Process): followed as a registry process is (registry.go,
// liveness.go), so a session seen only through hooks and its log, its
// agent run in a plain terminal, ends process_gone when the agent is
// killed, and is published with its pid (the tmux follower finds its pane
// through it). Unlike a registry process it binds no tab (a tab bound from
// a hook drops every other conversation's hooks in it), has no file whose
// removal says goodbye, and is dropped once its exit is told.

// hookProcPrefix starts the key of a hook's process among the registry's
// files, which are absolute paths.
const hookProcPrefix = "hook:"

// hookProcKey is the key of a process that ran a session's hooks: one per
// session and process, as a process can run several conversations (/clear,
// a subagent's own session) and a conversation several processes (resumed
// elsewhere while the first still runs).
func hookProcKey(p AgentProcess, session string) string {
	return hookProcPrefix + session + ":" + strconv.Itoa(p.Pid) + ":" + strconv.FormatUint(p.Start, 10)
}

// isHookProc reports whether a registry key is a hook's process.
func isHookProc(path string) bool { return strings.HasPrefix(path, hookProcPrefix) }

// hookProc follows the agent process a hook named for e: followed is
// true when it is newly followed and runs; dead is the newly followed
// process found gone already, for the caller to end once the hook itself
// is folded (regDied).
func (m *machine) hookProc(e *entry, proc AgentProcess, tab string) (followed bool, dead *regProc) {
	if proc.Pid <= 0 || proc.Start == 0 {
		return false, nil
	}
	id := e.s.ID
	key := hookProcKey(proc, id)
	if m.reg.procs[key] != nil {
		return false, nil // the hot path: followed already
	}
	for _, q := range m.reg.idx[id] {
		if !q.hook && !q.gone && q.e.Pid == proc.Pid && q.start == proc.Start {
			return false, nil // its registry file names it, and its removal says goodbye
		}
	}
	// When it was first seen orders it among the session's processes
	// (registry.of): the latest one started is the session's.
	p := &regProc{hook: true, start: proc.Start, e: RegistryProcess{Path: key, Pid: proc.Pid, SessionID: id,
		ProcStart: proc.Start, StartedAt: m.now.UnixMilli()}}
	m.reg.procs[key] = p
	m.reg.index(id, p, true)
	m.store.changed = true
	if !m.alive(proc.Pid, proc.Start) {
		return false, p
	}
	if tp, ok := m.bind.tabProcs[tab]; ok && m.bind.tabs[tab] == id && m.descends(proc.Pid, tp.Pid) {
		// It runs in its wrapped tab, whose close, reported by wrap, says
		// first-hand what its exit does (regDied waits for it). Read now:
		// once it exited, its ancestry is gone.
		p.tab = tab
	}
	p.watched = m.watchExit(proc.Pid, proc.Start)
	m.armSweep()
	return true, nil
}

// hookProcYield drops a hook's account of a process its registry file
// names (the file was read after the hook): the registry says more, as its
// removal is a goodbye.
func (m *machine) hookProcYield(id string, pid int, start uint64) {
	for _, q := range slices.Clone(m.reg.idx[id]) {
		if q.hook && q.e.Pid == pid && q.start == start {
			m.regForget(q)
		}
	}
}

// hookProcTold drops a hook's process once its exit was told: no file keeps
// it, and a process that ran many sessions would otherwise stay, saved in
// every checkpoint.
func (m *machine) hookProcTold(p *regProc) {
	if p.told && !p.grace {
		m.regForget(p)
	}
}
