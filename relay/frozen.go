package relay

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/session"
)

// Frozen sessions. Most of the sessions a daemon knows sit idle: 10 000
// logs from past weeks, each a finished conversation. An entry, its Session
// and its file's mark cost ~520 bytes on the heap; frozen, the same session
// is one 112-byte frozenRec in a slice sorted by id (no map, no pointers
// but its detail and non-UUID id). A session freezes when nothing refers to
// it but its id: no tab, no registry process, no open window, no pending
// quiet period, no Codex turn waiting for its submit, its bootstrap
// settled; at BootstrapDone (all of them) and at each checkpoint (those
// untouched since the previous one). Anything that looks a session up by
// id thaws it (get) back into exactly the entry it was; what reads every
// session (status, snapshots, the checkpoint, worktree rows) reads frozen
// ones in place (each). Freezing changes nothing a session does or shows:
// the tests run with every freezable session frozen after every step.

// frozenRec is one frozen session: the session, the relay's part of its
// entry, and its log's mark (what store.files held for its path).
type frozenRec struct {
	s     session.Frozen
	since int64  // UnixNano, unless rSinceZero
	end   int64  // the log's Mark.End (rMark)
	line  int32  // Mark.Line
	name  uint32 // rPath: the log's file name, as its agent packs it (parsers.LogName)
	gen   uint16 // Mark.Gen
	dir   uint16 // the log's directory, an intern code
	flags uint16
	wt    uint8 // 1 + the worktree's index in cfg.Worktrees; 0: none
	// namer (rPath) is 1 + the index in parsers.All() of the agent that
	// names the log so: its session's own, or another whose names it has.
	namer uint8
}

// frozenRec.flags bits.
const (
	rPath       uint16 = 1 << iota // the log is Interned(dir)/<its namer's LogName.Unpack(id, name)>
	rMark                          // store.files held the log's mark
	rOffsetEnd                     // folded.offset is end (else 0)
	rSinceUTC                      // since is in UTC (else Local)
	rSinceZero                     // since is the zero time
	rTabless                       // entry.tabless
	rStartQuiet                    // the start-up's quiet period is its own (entry.quiet, store.startQuiet)
	rDead                          // thawed: the id lives in store.sessions now
	// rStore (with rPath): the log is the session database Interned(dir)
	// itself, which every session of its agent shares (parsers.Store): its
	// mark stays in store.files.
	rStore
)

type freezeMode uint8

const (
	freezeAtRest freezeMode = iota // at BootstrapDone, checkpoints, restore
	freezeEager                    // also after every step
	freezeNever
)

// freezeIdle freezes the sessions at rest (store.freezeIdle) that nothing
// refers to but their id.
func (m *machine) freezeIdle(all bool) { m.store.freezeIdle(all, m.pins()) }

// pins are the sessions something refers to by id besides store.sessions:
// they stay thawed.
func (m *machine) pins() map[string]bool {
	p := map[string]bool{}
	for _, id := range m.bind.tabs {
		p[id] = true
	}
	for _, w := range m.windows {
		if w.host == "" {
			p[w.session] = true
		}
	}
	for _, b := range m.bind.recentBinds {
		p[b.session] = true
	}
	for id := range m.reg.idx {
		p[id] = true
	}
	return p
}

// freeze returns e's frozen form, false if e is not at rest.
func (st *store) freeze(e *entry, pinned map[string]bool) (frozenRec, bool) {
	var f frozenRec
	if st.freezing == freezeNever || e.tab != "" || e.booting || e.bootFrom != nil || e.unbound != (unboundTurn{}) || pinned[e.s.ID] {
		return f, false
	}
	switch {
	case e.quiet == nil:
	case e.quiet == st.startQuiet && e.lastLog.IsZero():
		f.flags |= rStartQuiet
	default:
		return f, false // its quiet period is pending
	}
	if e.tabless {
		f.flags |= rTabless
	}
	if e.worktree != "" {
		i := slices.Index(st.worktrees, e.worktree)
		if i < 0 || i >= 1<<8-1 {
			return f, false
		}
		f.wt = uint8(i + 1)
	}
	switch loc := e.since.Location(); {
	case e.since.IsZero() && loc == time.UTC:
		f.flags |= rSinceZero
	case loc != time.UTC && loc != time.Local:
		return f, false
	default:
		if loc == time.UTC {
			f.flags |= rSinceUTC
		}
		f.since = e.since.UnixNano()
		if !time.Unix(0, f.since).Equal(e.since) {
			return f, false // out of UnixNano's range
		}
	}
	if e.path != "" {
		if !f.setPath(e.path, e.s.ID, e.s.Agent) {
			return f, false
		}
		if mk, ok := st.files[e.path]; ok && f.flags&rStore == 0 && !f.setMark(mk) {
			return f, false
		}
	}
	var ok bool
	if f.s, ok = e.s.Freeze(); !ok {
		return f, false
	}
	return f, true
}

// view fills *e (and *s, its session) with what f holds, as thaw would give
// it back; the id and the path only if withPath. Nothing may keep e.
func (st *store) view(f *frozenRec, e *entry, s *session.Session, withPath bool) {
	f.s.View(s, true)
	*e = entry{s: s, tabless: f.flags&rTabless != 0}
	if f.wt != 0 {
		e.worktree = st.worktrees[f.wt-1]
	}
	switch {
	case f.flags&rSinceZero != 0:
	case f.flags&rSinceUTC != 0:
		e.since = time.Unix(0, f.since).UTC()
	default:
		e.since = time.Unix(0, f.since)
	}
	if f.flags&rStartQuiet != 0 && st.startQuiet != nil {
		e.quiet = st.startQuiet
	}
	if withPath {
		e.path = f.path(s.ID)
	}
}

// setPath records path, the log of session id, if an agent names it so
// (parsers.LogName), its own first, and gives id back for the path
// (frozenFile finds it by it).
func (f *frozenRec) setPath(path, id string, agent parsers.Agent) bool {
	slash := strings.LastIndexByte(path, '/')
	if slash <= 0 {
		return false
	}
	if spec := parsers.Lookup(agent); spec != nil && spec.Store != nil && slices.Contains(spec.Store.Files, path[slash+1:]) {
		// Its agent's database, every session's log: the path whole, once
		// for all of them.
		var ok bool
		if f.dir, ok = session.Intern(path); !ok {
			return false
		}
		f.flags |= rPath | rStore
		return true
	}
	all := parsers.All()
	own := slices.IndexFunc(all, func(s *parsers.Spec) bool { return s.Name == agent })
	for k := -1; k < len(all); k++ {
		i := k
		if k < 0 {
			i = own
		} else if k == own {
			continue
		}
		if i < 0 || i >= 1<<8-1 {
			continue
		}
		lay := &all[i].Layout
		if lay.Name == nil || lay.SessionOf == nil {
			continue
		}
		n, ok := lay.Name.Pack(path[slash+1:], id)
		if sid, sub := lay.SessionOf(path); !ok || sid != id || sub {
			continue
		}
		if f.dir, ok = session.Intern(path[:slash]); !ok {
			return false
		}
		f.name, f.namer, f.flags = n, uint8(i+1), f.flags|rPath
		return true
	}
	return false
}

// logName is the LogName of f's namer.
func (f *frozenRec) logName() *parsers.LogName { return parsers.All()[f.namer-1].Layout.Name }

// path is the session's log ("" if none).
func (f *frozenRec) path(id string) string {
	switch {
	case f.flags&rPath == 0:
		return ""
	case f.flags&rStore != 0:
		return session.Interned(f.dir)
	}
	pre, suf := f.logName().Unpack(f.name)
	return session.Interned(f.dir) + "/" + pre + id + suf
}

// isPath reports whether path is f's log, f's id being id.
func (f *frozenRec) isPath(path, id string) bool {
	slash := strings.LastIndexByte(path, '/')
	if f.flags&(rPath|rStore) != rPath || slash <= 0 || session.Interned(f.dir) != path[:slash] {
		return false
	}
	n, ok := f.logName().Pack(path[slash+1:], id)
	return ok && n == f.name
}

// setMark records the log's mark, if it fits.
func (f *frozenRec) setMark(m folded) bool {
	if m.Gen < 0 || m.Gen > 1<<16-1 || m.Line != int(int32(m.Line)) || m.offset != 0 && m.offset != m.End {
		return false
	}
	f.end, f.gen, f.line = m.End, uint16(m.Gen), int32(m.Line)
	f.flags = f.flags&^rOffsetEnd | rMark
	if m.offset != 0 {
		f.flags |= rOffsetEnd
	}
	return true
}

// mark is the log mark f keeps, as store.files held it.
func (f *frozenRec) mark() folded {
	m := folded{Mark: Mark{Gen: int(f.gen), End: f.end, Line: int(f.line)}}
	if f.flags&rOffsetEnd != 0 {
		m.offset = f.end
	}
	return m
}

// refreeze stores into f the view of it that changed; one that no longer
// freezes is thawed with the change.
func (st *store) refreeze(f *frozenRec, v *entry) {
	nf, ok := st.freeze(v, nil) // no mark from st.files: f keeps it
	if ok {
		nf.flags |= f.flags & (rMark | rOffsetEnd)
		nf.end, nf.gen, nf.line = f.end, f.gen, f.line
		*f = nf
		return
	}
	e := st.get(v.s.ID)
	*e.s = *v.s
	e.since, e.tabless = v.since, v.tabless
}

// frozenAt is the index of the live frozen session with id, or -1.
func (st *store) frozenAt(id string) int {
	if len(st.frozen) == 0 || id == "" {
		return -1
	}
	k := session.Key(id)
	i := sort.Search(len(st.frozen), func(i int) bool { return st.frozen[i].s.CompareID(&k) >= 0 })
	if i < len(st.frozen) && st.frozen[i].flags&rDead == 0 && st.frozen[i].s.CompareID(&k) == 0 {
		return i
	}
	return -1
}

// frozenFile is the frozen session whose log is path, or nil: the session
// an agent's layout says path is the log of, if its log is named so.
func (st *store) frozenFile(path string) *frozenRec {
	if len(st.frozen) == 0 {
		return nil
	}
	for _, spec := range parsers.All() {
		if spec.Layout.Name == nil || spec.Layout.SessionOf == nil {
			continue
		}
		id, sub := spec.Layout.SessionOf(path)
		if sub || id == "" {
			continue
		}
		if i := st.frozenAt(id); i >= 0 && st.frozen[i].isPath(path, id) {
			return &st.frozen[i]
		}
	}
	return nil
}
