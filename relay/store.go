package relay

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/logwatch/logwatch/relay/session"
)

// store holds the sessions: the live ones (entries, by id), those at rest
// (frozen records, frozen.go), how far this run folded each log (the marks
// a checkpoint saves), and whether the saved state is behind. Only its
// methods add, thaw, freeze or drop a session; a session is found by id
// through get, which thaws a frozen one.
type store struct {
	worktrees  []string          // cfg.Worktrees: a frozen record names its worktree by index
	sessions   map[string]*entry // the live (thawed) sessions
	frozen     []frozenRec       // sessions at rest, by id (frozen.go)
	frozenDead int               // of them, thawed since the last freezeIdle
	files      map[string]folded // path → how far this run received and folded it (frozen sessions keep their own log's: file, setFile)
	// startQuiet is the quiet period armed at restore for every restored
	// session and at BootstrapDone for those whose history ends on a final
	// message (frozen.go, settle), nil once it ran.
	startQuiet *quietArm
	// freezing is freezeAtRest but in tests, which compare a relay that
	// freezes every session at rest after each step with one that never
	// freezes: freezing must change nothing.
	freezing  freezeMode
	restored  bool // a saved state was restored: Replay lines are in it
	booted    bool // BootstrapDone arrived: history arriving now settles at once
	changed   bool // the saved state changed since the last Save
	stateSize int  // bytes of the last encoded state: the next one's first guess
}

// entry is one session as the relay keeps it.
type entry struct {
	s        *session.Session
	tab      string
	worktree string
	since    time.Time
	path     string    // the session's log file, when known
	bootFrom *bootFrom // the settled session bootstrap history was folded onto
	lastLog  time.Time
	quiet    *quietArm // the pending quiet period, nil if none
	// finalAt is when the history's final message was written (bootstrap,
	// unix ns from its own timestamp; 0: unknown or not final).
	finalAt int64
	// histAt is the last history line's own timestamp (bootstrap, unix ns;
	// 0: none): when a state history changed began, as near as it says.
	histAt int64
	// unbound is a Codex turn start of a tabless session (submitbind.go);
	// tabless: the session was last published with no tab.
	unbound unboundTurn
	tabless bool
	// Beside tabless, so the flags share a word (168 bytes; sessions at
	// rest are not entries but frozen records, frozen.go).
	booting bool // folded bootstrap history not yet settled
	touched bool // looked up since the last freezeIdle (frozen.go)
}

// bootFrom is a known session as it stood when bootstrap history began to
// fold onto it: its change, and what else of it subscribers see that a
// history line can change (tab, pid and since it cannot).
type bootFrom struct {
	ch         session.Change
	title, cwd string
	shown      bool // published: not a phantom
}

// get is the session with id, thawed if it was frozen; nil if none.
func (st *store) get(id string) *entry {
	if e := st.sessions[id]; e != nil {
		e.touched = true
		return e
	}
	i := st.frozenAt(id)
	if i < 0 {
		return nil
	}
	f := &st.frozen[i]
	e := &entry{}
	st.view(f, e, new(session.Session), true)
	e.touched = true
	if f.flags&rMark != 0 {
		st.files[e.path] = f.mark()
	}
	f.flags |= rDead // dropped at the next freezeIdle; its id keeps the order meanwhile
	st.frozenDead++
	st.sessions[e.s.ID] = e
	return e
}

// known reports whether a session with id exists, without thawing it.
func (st *store) known(id string) bool {
	_, ok := st.sessions[id]
	return ok || st.frozenAt(id) >= 0
}

// file is how far this run folded path (st.files, or its frozen session's).
func (st *store) file(path string) (folded, bool) {
	if mk, ok := st.files[path]; ok {
		return mk, true
	}
	if f := st.frozenFile(path); f != nil && f.flags&rMark != 0 {
		return f.mark(), true
	}
	return folded{}, false
}

// setFile records how far this run folded path: a frozen session keeps its
// own log's mark (one it cannot hold thaws it), st.files the others.
func (st *store) setFile(path string, mk folded) {
	if _, ok := st.files[path]; !ok {
		if f := st.frozenFile(path); f != nil {
			if f.setMark(mk) {
				return
			}
			st.get(f.s.ID()) // moves the mark back to st.files
		}
	}
	st.files[path] = mk
}

// freezeIdle freezes the sessions at rest: all of them, or those untouched
// since the last call (the others are marked untouched for the next).
func (st *store) freezeIdle(all bool, pinned map[string]bool) {
	var add []frozenRec
	if all {
		// Nearly every session, at the end of start-up: growing by append
		// left 5 MB of garbage at 10 000 sessions.
		add = make([]frozenRec, 0, len(st.sessions))
	}
	marks := 0
	for id, e := range st.sessions {
		if !all && e.touched {
			e.touched = false
			continue
		}
		f, ok := st.freeze(e, pinned)
		if !ok {
			continue
		}
		add = append(add, f)
		delete(st.sessions, id)
		if f.flags&rMark != 0 {
			delete(st.files, e.path)
			marks++
		}
	}
	if len(add) == 0 && st.frozenDead <= len(st.frozen)/4 {
		return
	}
	slices.SortFunc(add, func(a, b frozenRec) int { return a.s.Compare(&b.s) })
	// Their ids and details were cut from the lines read (session.OwnStrings).
	session.OwnStrings(len(add), func(i int) *session.Frozen { return &add[i].s })
	live := len(st.frozen) - st.frozenDead + len(add)
	var out []frozenRec
	inPlace := len(add) == 0 && live >= cap(st.frozen)/2
	if inPlace {
		out = st.frozen[:0] // dropping the dead only: the write index trails the read index
	} else {
		out = make([]frozenRec, 0, live)
	}
	i := 0
	for k := range st.frozen {
		o := &st.frozen[k]
		if o.flags&rDead != 0 {
			continue
		}
		for i < len(add) && add[i].s.Compare(&o.s) < 0 {
			out = append(out, add[i])
			i++
		}
		out = append(out, *o)
	}
	out = append(out, add[i:]...)
	if inPlace {
		clear(st.frozen[len(out):]) // the strings of the dropped
	}
	st.frozen, st.frozenDead = out, 0
	// Maps do not shrink: rebuild one that lost most of its entries, or it
	// keeps the room of all.
	if len(add) > len(st.sessions) {
		st.sessions = shrunk(st.sessions)
	}
	if marks > len(st.files) {
		st.files = shrunk(st.files)
	}
}

// shrunk is m copied into a map of its size.
func shrunk[V any](m map[string]V) map[string]V {
	c := make(map[string]V, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// frozenCount is how many sessions are frozen.
func (st *store) frozenCount() int { return len(st.frozen) - st.frozenDead }

// sortedLive are the sessions in st.sessions (thawed), by id.
func (st *store) sortedLive() []*entry {
	out := make([]*entry, 0, len(st.sessions))
	for _, e := range st.sessions {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].s.ID < out[j].s.ID })
	return out
}

// each calls fn for every session in id order, frozen ones as a view fn
// must not keep or change, with its path only if withPath.
func (st *store) each(withPath bool, fn func(e *entry)) {
	var v entry
	var vs session.Session
	st.inIDOrder(st.sortedLive(), fn, func(f *frozenRec) {
		st.view(f, &v, &vs, withPath)
		fn(&v)
	})
}

// inIDOrder calls onLive for each of live (thawed sessions, sorted by id)
// and onFrozen for each frozen session still frozen, all in id order.
func (st *store) inIDOrder(live []*entry, onLive func(*entry), onFrozen func(*frozenRec)) {
	i := 0
	for k := range st.frozen {
		f := &st.frozen[k]
		if f.flags&rDead != 0 {
			continue
		}
		for ; i < len(live); i++ {
			if key := session.Key(live[i].s.ID); f.s.CompareID(&key) < 0 {
				break
			}
			onLive(live[i])
		}
		onFrozen(f)
	}
	for ; i < len(live); i++ {
		onLive(live[i])
	}
}

// mark records how far this run has folded l's file, for the checkpoint: a
// new generation starts over, an old line never moves the mark back.
func (st *store) mark(l LogLine) {
	if f, ok := st.file(l.Path); !ok || f.Gen != l.Gen || l.End > f.End {
		f.Mark = Mark{Gen: l.Gen, End: l.End, Line: l.Line}
		st.setFile(l.Path, f)
	}
}

// count is how many sessions there are.
func (st *store) count() int { return len(st.sessions) + st.frozenCount() }

// marks are how far this run folded each log, for a checkpoint.
func (st *store) marks() map[string]Mark {
	marks := make(map[string]Mark, len(st.files)+st.frozenCount())
	for p, f := range st.files {
		marks[p] = f.Mark
	}
	for i := range st.frozen {
		if f := &st.frozen[i]; f.flags&(rDead|rMark) == rMark {
			marks[f.path(f.s.ID())] = f.mark().Mark
		}
	}
	return marks
}

// stateBuf is a buffer for the saved state. It starts at the size of the
// previous state; the first, at what finished sessions take (the doublings
// up to 10 000 of them were 8 MB of garbage).
func (st *store) stateBuf() *bytes.Buffer {
	size := st.stateSize
	if size == 0 {
		size = savedEntrySize * st.count()
	}
	return bytes.NewBuffer(make([]byte, 0, size+size/8))
}

// encodeSessions writes the saved state's sessions, one at a time: at
// 10 000 sessions a []savedEntry of copies was most of the daemon's peak
// heap.
func (st *store) encodeSessions(buf *bytes.Buffer, enc *json.Encoder) error {
	buf.WriteString(`,"sessions":[`)
	i := 0
	var err error
	st.each(true, func(e *entry) {
		if err != nil {
			return
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		i++
		err = enc.Encode(savedEntry{Session: e.s.Save(), Tab: e.tab, Since: e.since, Path: e.path})
	})
	if err != nil {
		return err
	}
	buf.WriteString("]")
	return nil
}

// restore brings back a checkpoint's sessions, each with the start-up's
// quiet period q; into an empty store those at rest go frozen at once.
func (st *store) restore(saved savedSessions, q *quietArm, pinned map[string]bool) {
	add := make([]frozenRec, 0, len(saved))
	var last map[string]int // where each id was saved last, when one was saved twice
	for i := 1; i < len(saved) && last == nil; i++ {
		if saved[i-1].Session.ID >= saved[i].Session.ID {
			last = map[string]int{}
			for i, se := range saved {
				last[se.Session.ID] = i
			}
		}
	}
	fresh := len(st.sessions) == 0 && len(st.frozen) == 0
	for i, se := range saved {
		if se.Session.ID == "" || last != nil && last[se.Session.ID] != i {
			continue
		}
		e := &entry{s: session.Restore(se.Session), tab: se.Tab, since: se.Since, path: se.Path, quiet: q}
		st.locate(e)
		if !fresh {
			st.get(e.s.ID) // a session already there is replaced
		} else if f, ok := st.freeze(e, pinned); ok {
			add = append(add, f)
			continue
		}
		st.sessions[e.s.ID] = e
	}
	if last != nil {
		slices.SortFunc(add, func(a, b frozenRec) int { return a.s.Compare(&b.s) })
	}
	if fresh {
		// Cut from the decoded checkpoint: packed as start-up's are.
		session.OwnStrings(len(add), func(i int) *session.Frozen { return &add[i].s })
		st.frozen = add
	}
	st.restored = true
}

// locate assigns the session to its worktree once its cwd is known.
func (st *store) locate(e *entry) {
	if e.worktree == "" && e.s.Cwd != "" {
		e.worktree = Worktree(st.worktrees, e.s.Cwd)
	}
}

// sortedEntries are all sessions by id, frozen ones as copies (for tests:
// the relay itself reads them in place, each).
func (st *store) sortedEntries() []*entry {
	var out []*entry
	st.each(true, func(e *entry) {
		if st.sessions[e.s.ID] != e {
			s, c := *e.s, *e
			c.s = &s
			e = &c
		}
		out = append(out, e)
	})
	return out
}

// eachRow calls fn (as each does) for the sessions shown to subscribers
// and in status: every one but the phantoms (Session.Phantom).
func (st *store) eachRow(fn func(e *entry)) {
	st.each(false, func(e *entry) {
		if !e.s.Phantom() {
			fn(e)
		}
	})
}

// rowCount is how many sessions eachRow visits.
func (st *store) rowCount() int {
	n := 0
	for _, e := range st.sessions {
		if !e.s.Phantom() {
			n++
		}
	}
	for i := range st.frozen {
		if f := &st.frozen[i]; f.flags&rDead == 0 && !f.s.Phantom() {
			n++
		}
	}
	return n
}

// rowState is the most urgent state of a worktree's sessions.
func (st *store) rowState(wt string) string {
	best := session.State("")
	for _, e := range st.sessions {
		if e.worktree == wt && (best == "" || e.s.State.Urgency() > best.Urgency()) {
			best = e.s.State
		}
	}
	if i := slices.Index(st.worktrees, wt); i >= 0 {
		for k := range st.frozen {
			f := &st.frozen[k]
			if int(f.wt) == i+1 && f.flags&rDead == 0 {
				if st := f.s.State(); best == "" || st.Urgency() > best.Urgency() {
					best = st
				}
			}
		}
	}
	return string(best)
}

func (st *store) worktreeStates() []WorktreeState {
	out := []WorktreeState{}
	for _, wt := range st.worktrees {
		n := 0
		for _, e := range st.sessions {
			if e.worktree == wt && !e.s.Phantom() {
				n++
			}
		}
		code := uint8(slices.Index(st.worktrees, wt) + 1)
		for k := range st.frozen {
			if f := &st.frozen[k]; f.wt == code && f.flags&rDead == 0 && !f.s.Phantom() {
				n++
			}
		}
		out = append(out, WorktreeState{Path: wt, State: st.rowState(wt), Sessions: n})
	}
	return out
}

// Worktree is the longest registered worktree containing cwd, or "".
func Worktree(worktrees []string, cwd string) string {
	best := ""
	cwd = filepath.Clean(cwd)
	for _, wt := range worktrees {
		w := filepath.Clean(wt)
		if (cwd == w || strings.HasPrefix(cwd, w+string(filepath.Separator)) || w == string(filepath.Separator)) && len(w) > len(best) {
			best = w
		}
	}
	return best
}
