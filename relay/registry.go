package relay

import (
	"slices"
	"sort"
	"time"

	"github.com/logwatch/logwatch/relay/session"
)

// Claude Code's live session registry (package watcher/registry) as a source. Each
// file names a running process and its session; the relay uses it for
// three things, each a rule in docs/states.md:
//
//   - pid → session (registry.tab_bound): the tab whose process is the
//     registry's pid or its nearest ancestor is bound to the session, so
//     the tab's keys confirm as key+log and its close ends it, without
//     hooks. Two tabs reporting the same process bind nothing.
//   - status, for sessions without hooks (session.Registry): waiting →
//     waiting, busy after that wait → working.
//   - liveness: a process gone without a goodbye (kill -9, a crash) ends the
//     session, process_gone (registry.process_gone); a process gone after
//     removing its file said goodbye, session_end (registry.removed). A
//     removal alone ends nothing while the process runs: a cleanup script,
//     `rm -r` or `mv` of the whole directory removes the files of processes
//     that go on working. Liveness is checked when a file changes, then told
//     by a pidfd where there are pidfds, and by a slow sweep elsewhere: never
//     by fast polling.

// RegistryProcess is one file of the registry, as its reader (package
// watcher/registry, wired in by pipeline/ingest) delivers it.
type RegistryProcess struct {
	Path      string // the file: removals name it
	Pid       int
	SessionID string
	// ProcStart is the process's start time as the agent wrote it (on
	// Linux /proc/<pid>/stat's starttime), 0 if unknown.
	ProcStart       uint64
	StartedAt       int64  // ms since the epoch
	Status          string // busy, idle, waiting
	WaitingFor      string
	StatusUpdatedAt int64
}

// registry is the registry processes the machine follows: by file, and by
// session.
type registry struct {
	procs      map[string]*regProc   // registry file → its process
	idx        map[string][]*regProc // session → its registry processes
	sweepArmed bool                  // a liveness sweep is scheduled
}

// regProc is one registry file as the relay keeps it.
type regProc struct {
	e     RegistryProcess
	start uint64 // identifies the process: a pid with another start time is not it
	gone  bool   // the process was found gone
	told  bool   // its session was ended for it (or had ended already)
	// watched: its exit is told by a pidfd (proctree.Exits), so the sweep
	// leaves it alone.
	watched bool
	// suspect counts sweeps that found the process gone while the tab that
	// runs it directly may still report its close first-hand.
	suspect int
	// grace: its exit was told, and its tab's own close is waited for
	// (regExited); the sweep leaves it alone meanwhile.
	grace bool
	// misses counts sweeps since start-up that found a gone process's
	// session not there (its log not read yet, or never to be: Claude
	// writes this file before its transcript, and a kill -9 leaves it).
	misses int
	tab    string // the tab bound by pid, "" if none
	// removed: the file is gone but the process was running then. Its
	// exit, when it comes, is the goodbye (registry.removed); a file
	// written again at the path takes it back.
	removed   bool
	removedAt time.Time // when the removal was read
	// restored: from the checkpoint, and not read again since; once the
	// registry is listed, a file not there was removed while the daemon
	// was down (RegistryListed).
	restored bool
	// waited is the StatusUpdatedAt of the waiting status already applied:
	// a wait is applied once, never re-asserted over later evidence.
	waited int64
	// hook: the process a hook named (hookproc.go), not a file; tab is
	// then the wrapped tab it runs in, never bound by it.
	hook bool
}

func (m *machine) regEntry(ent RegistryProcess, start uint64) {
	p := m.reg.procs[ent.Path]
	if p == nil {
		p = &regProc{}
		m.reg.procs[ent.Path] = p
	}
	if p.e.Pid != ent.Pid || p.e.SessionID != ent.SessionID || p.removed {
		m.store.changed = true // the checkpoint keeps which process has which session
	}
	prev := p.e
	p.e = ent
	p.removed, p.restored = false, false
	if prev.Pid != ent.Pid || prev.ProcStart != ent.ProcStart {
		if p.watched {
			m.forgetExit(prev.Pid, p.start)
		}
		p.start, p.gone, p.told, p.suspect, p.watched, p.grace, p.misses = start, false, false, 0, false, false, 0
	}
	if prev.SessionID != ent.SessionID {
		m.reg.index(ent.SessionID, p, true)
		if prev.SessionID != "" {
			m.reg.index(prev.SessionID, p, false)
			m.regSessionChanged(prev.SessionID)
		}
		p.tab, p.waited = "", 0
	}
	if ent.Status != session.RegistryWaiting {
		p.waited = 0
	}
	m.hookProcYield(ent.SessionID, ent.Pid, p.start)
	if !m.alive(ent.Pid, p.start) {
		m.regDied(p)
		return
	}
	if !p.watched {
		p.watched = m.watchExit(ent.Pid, p.start)
	}
	if p.tab == "" {
		m.regBind(p)
	}
	if e := m.store.get(ent.SessionID); e != nil && m.reg.of(ent.SessionID) == p {
		m.regStatus(e, p)
	}
	m.armSweep()
}

func (m *machine) regListed() {
	for _, p := range m.reg.sorted() {
		if !p.restored || p.hook {
			continue
		}
		p.restored, p.removed = false, true
		if m.alive(p.e.Pid, p.start) {
			// The file went, the process did not: liveness decides.
			if !p.watched {
				p.watched = m.watchExit(p.e.Pid, p.start)
			}
			continue
		}
		m.regGone(p) // file and process gone: the goodbye we slept through
	}
	m.armSweep()
}

// regSaved is what a checkpoint keeps of the registry processes, by path.
func (m *machine) regSaved() []savedReg {
	out := make([]savedReg, 0, len(m.reg.procs))
	for _, p := range m.reg.sorted() {
		if p.gone {
			continue
		}
		out = append(out, savedReg{Path: p.e.Path, Pid: p.e.Pid, SessionID: p.e.SessionID, ProcStart: p.e.ProcStart,
			Start: p.start, StartedAt: p.e.StartedAt, Tab: p.tab, Removed: p.removed})
	}
	return out
}

// regRestore brings back the registry processes of a checkpoint. The
// registry's listing at start-up reads each file again (RegistryListed
// settles those it does not find), and the sweep checks each process.
func (m *machine) regRestore(saved []savedReg) {
	for _, sr := range saved {
		if sr.Path == "" || sr.Pid <= 0 || sr.SessionID == "" || m.reg.procs[sr.Path] != nil {
			continue
		}
		p := &regProc{e: RegistryProcess{Path: sr.Path, Pid: sr.Pid, SessionID: sr.SessionID, ProcStart: sr.ProcStart,
			StartedAt: sr.StartedAt}, start: sr.Start, tab: sr.Tab, removed: sr.Removed, hook: isHookProc(sr.Path)}
		p.restored = !p.removed && !p.hook
		m.reg.procs[sr.Path] = p
		m.reg.index(sr.SessionID, p, true)
		if !p.restored {
			p.watched = m.watchExit(p.e.Pid, p.start) // no file will be read again for it
		}
	}
	m.armSweep()
}

// regSessionChanged: the same process moved to another conversation (/clear
// without hooks): the old one ended. With hooks, SessionEnd says so.
func (m *machine) regSessionChanged(old string) {
	if m.reg.of(old) != nil {
		return // another process has it
	}
	if e := m.store.get(old); e != nil && !e.s.Hooked() {
		m.regEnd(e, session.ReasonSessionEnd, "registry.session_changed")
	}
}

func (m *machine) regRemoved(path string) {
	p := m.reg.procs[path]
	if p == nil || p.removed {
		return
	}
	if !p.gone && m.alive(p.e.Pid, p.start) {
		// Claude Code removes its file just before it exits, so the exit
		// follows at once (a pidfd or the sweep tells it); a process that
		// runs on was not saying goodbye. Liveness decides.
		p.removed, p.removedAt = true, m.now
		m.store.changed = true
		m.armSweep()
		return
	}
	m.regForget(p)
	m.regFarewell(p)
}

// regBind binds the tab whose process is p's pid or its nearest ancestor.
func (m *machine) regBind(p *regProc) {
	type match struct {
		tab   string
		pid   int
		depth int
	}
	var ms []match
	for tab, tp := range m.bind.tabProcs {
		if m.descends(p.e.Pid, tp.Pid) && m.alive(tp.Pid, tp.Start) {
			ms = append(ms, match{tab: tab, pid: tp.Pid})
		}
	}
	if len(ms) == 0 {
		return
	}
	// The ancestors of one process form a chain: the nearest one descends
	// from all the others.
	for i := range ms {
		for j := range ms {
			if m.descends(ms[i].pid, ms[j].pid) && ms[i].pid != ms[j].pid {
				ms[i].depth++
			}
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].depth > ms[j].depth })
	if len(ms) > 1 && ms[1].pid == ms[0].pid {
		m.log.Debug().Int("pid", p.e.Pid).Str("tab", ms[0].tab).Str("other", ms[1].tab).
			Msg("two tabs report the same process; no tab bound")
		return
	}
	if m.sharedTab(ms[0].tab) {
		m.log.Debug().Int("pid", p.e.Pid).Str("tab", ms[0].tab).
			Msg("the nearest tab's process is an ancestor of another tab's; no tab bound")
		return
	}
	tab, id := ms[0].tab, p.e.SessionID
	if cur := m.bind.tabs[tab]; cur != "" && cur != id {
		if q := m.reg.of(cur); q != nil && !q.gone && q.e.Pid != p.e.Pid {
			if m.descends(p.e.Pid, q.e.Pid) {
				// An agent run inside the tab's agent (as a tool): the tab
				// stays its parent's, as with hooks.
				return
			}
		}
	}
	p.tab = tab
	m.log.Debug().Str("session", id).Str("tab", tab).Int("pid", p.e.Pid).Str("rule", "registry.tab_bound").
		Msg("tab bound by its process")
	if m.bind.setTab(tab, id) {
		m.store.changed = true
	}
	if e := m.store.get(id); e != nil && e.tab != tab {
		e.tab = tab
		m.store.changed = true
	}
}

// regAttach gives a session that just appeared what the registry knows:
// its tab, its process's status.
func (m *machine) regAttach(e *entry) {
	p := m.reg.of(e.s.ID)
	if p == nil {
		return
	}
	if p.tab != "" && e.tab == "" {
		e.tab = p.tab
	}
}

// regStatus applies the registry's status to a session without hooks; the
// caller publishes nothing else for it.
func (m *machine) regStatus(e *entry, p *regProc) {
	if e.s.Hooked() || p.gone || e.booting {
		return
	}
	if p.e.Status == session.RegistryWaiting && p.waited != 0 && p.waited == waitStamp(p.e.StatusUpdatedAt) {
		return
	}
	ch, ok := e.s.Registry(p.e.Status, p.e.WaitingFor)
	if p.e.Status == session.RegistryWaiting && e.s.State == session.Waiting && e.s.Source == session.SourceRegistry {
		p.waited = waitStamp(p.e.StatusUpdatedAt)
	}
	if ok {
		m.moved(e)
		m.publish(e, ch, false)
	}
}

// waitStamp is how regProc.waited records a wait applied: its
// statusUpdatedAt, or -1 for a file without one (0 means none applied).
func waitStamp(updatedAt int64) int64 {
	if updatedAt == 0 {
		return -1
	}
	return updatedAt
}

// regAfterLog applies a wait the registry wrote before the log opened its
// turn, once the log has.
func (m *machine) regAfterLog(e *entry) {
	if len(m.reg.procs) == 0 {
		return // the hot path: no registry
	}
	if p := m.reg.of(e.s.ID); p != nil && p.e.Status == session.RegistryWaiting && p.waited == 0 {
		m.regStatus(e, p)
	}
}

// regTabProcess binds a newly reported tab process to the registry entries
// it runs.
func (m *machine) regTabProcess() {
	for _, p := range m.reg.sorted() {
		if p.tab == "" && !p.gone && !p.hook {
			m.regBind(p)
		}
	}
}

func (rg *registry) sorted() []*regProc {
	out := make([]*regProc, 0, len(rg.procs))
	for _, p := range rg.procs {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].e.Path < out[j].e.Path })
	return out
}

// live reports the session's registry process: its pid (0 if none) and
// whether it still runs.
func (rg *registry) live(id string) (int, bool) {
	if len(rg.procs) == 0 {
		return 0, false
	}
	p := rg.of(id)
	if p == nil {
		return 0, false
	}
	return p.e.Pid, !p.gone
}

// regFor is the registry process of a session: a live one if any (the
// latest started), else the latest gone one; nil if none.
func (rg *registry) of(id string) *regProc {
	var best *regProc
	for _, p := range rg.idx[id] {
		if best == nil || (best.gone && !p.gone) ||
			(best.gone == p.gone && (p.e.StartedAt > best.e.StartedAt || p.e.StartedAt == best.e.StartedAt && p.e.Path > best.e.Path)) {
			best = p
		}
	}
	return best
}

// otherLive reports whether another process than p's (another pid or
// start time) still runs p's session: a file and a hook can name the same
// one, and its exit is told to both.
func (rg *registry) otherLive(p *regProc) bool {
	for _, q := range rg.idx[p.e.SessionID] {
		if !q.gone && (q.e.Pid != p.e.Pid || q.start != p.start) {
			return true
		}
	}
	return false
}

// regIndex adds p to (or removes it from) the session's processes.
func (rg *registry) index(id string, p *regProc, add bool) {
	ps := slices.DeleteFunc(rg.idx[id], func(q *regProc) bool { return q == p })
	if add {
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		delete(rg.idx, id)
		return
	}
	rg.idx[id] = ps
}

// regFiles counts the registry files present: a removed file whose
// process runs on is still followed, but no longer a file.
func (rg *registry) files() int {
	n := 0
	for _, p := range rg.procs {
		if !p.removed && !p.hook {
			n++
		}
	}
	return n
}
