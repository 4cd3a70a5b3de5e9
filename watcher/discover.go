package watcher

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/fsnotify/fsnotify"

	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/parsers"
)

// root is one configured log directory.
type root struct {
	path    string
	agent   parsers.Agent
	present bool
}

// wantDir reports whether a directory depth levels below the root is part of
// the agent's layout.
func (rt *root) wantDir(depth int, name string) bool {
	l := rt.layout()
	return l.WantDir != nil && l.WantDir(depth, name)
}

// wantFile reports whether a file depth levels below the root is a log.
func (rt *root) wantFile(depth int, name string) bool {
	l := rt.layout()
	return l.WantFile != nil && l.WantFile(depth, name)
}

func (rt *root) layout() *parsers.Layout {
	if s := parsers.Lookup(rt.agent); s != nil {
		return &s.Layout
	}
	return &parsers.Layout{}
}

// dir is a directory of the layout. Owned by the Run loop, except files
// and dropped, which are guarded by Watcher.mu (as are Watcher.dirs'
// writes: Follow, Poke and Position find a file through its dir).
type dir struct {
	path    string
	root    *root
	depth   int
	watched bool
	// dropped: removed from Watcher.dirs while files were still listed
	// (their readers report them gone); kept in Watcher.dropped until the
	// last is forgotten, and taken back if the directory comes back.
	dropped bool
	// files lists the dir's files sorted by name: the only index of the
	// files found under the roots (a Claude project folder can hold
	// thousands), so that an idle file costs no map entry.
	files []*file
}

// search is where name is, or would be, in d.files.
func (d *dir) search(name string) (int, bool) {
	return slices.BinarySearchFunc(d.files, name, func(f *file, name string) int {
		return strings.Compare(f.base(), name)
	})
}

// find returns d's file named name, or nil.
func (d *dir) find(name string) *file {
	if i, ok := d.search(name); ok {
		return d.files[i]
	}
	return nil
}

// add lists f in d.
func (d *dir) add(f *file) {
	i, _ := d.search(f.base())
	d.files = slices.Insert(d.files, i, f)
}

// remove takes f off d's list.
func (d *dir) remove(f *file) {
	if i, ok := d.search(f.base()); ok && d.files[i] == f {
		d.files = slices.Delete(d.files, i, i+1)
	}
}

type dirEntry = os.DirEntry

func readDirEntries(path string) ([]dirEntry, error) {
	f, err := safeopen.Dir(path) // a FIFO swapped in for the directory must not block the loop
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// guessAgent names the agent for a path outside every root from its shape
// (Layout.Claims); AgentUnknown leaves it to the content.
func guessAgent(path string) parsers.Agent {
	for _, s := range parsers.All() {
		if s.Layout.Claims != nil && s.Layout.Claims(path) {
			return s.Name
		}
	}
	return parsers.AgentUnknown
}

// sessionOf derives the session a log belongs to from its path, as the
// agent's Layout.SessionOf says ("": the log's own lines name it). The id
// is a substring of path, unless the name is not valid UTF-8 (see nameID).
func sessionOf(path string, agent parsers.Agent) (session string, subagent bool) {
	s := parsers.Lookup(agent)
	if s == nil || s.Layout.SessionOf == nil {
		return "", false
	}
	id, sub := s.Layout.SessionOf(path)
	return nameID(id), sub
}

// nameID is the session id a file or directory name gives. A valid UTF-8
// name is the id as it is (it is the agent's own session id, which hooks
// name too). An invalid one would be published with U+FFFD in its place,
// an id no request can name, so its id spells each byte that is not part
// of a valid UTF-8 sequence as %XX (upper-case hex) and each '%' as %25:
// valid UTF-8, deterministic, and different for different invalid names
// (percent-decoding gives the name back). It can equal a valid name
// spelled with those escapes ("a%FF" for "a\xff"), which gives no more
// than a valid name already does: the same stem in another project
// folder is the same id.
func nameID(name string) string {
	if utf8.ValidString(name) {
		return name
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(name)+8)
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, '%', hex[name[i]>>4], hex[name[i]&15])
		case r == '%':
			b = append(b, "%25"...)
		default:
			b = append(b, name[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// warnOnce logs a problem with a path the first time it is seen; clearWarn
// forgets it when the path recovers, so a later failure is logged again.
func (w *Watcher) warnOnce(path, what string, err error, msg string) {
	k := what + "\x00" + path
	if w.warned[k] {
		return
	}
	w.warned[k] = true
	w.stats.unreadable.Add(1)
	w.log.Warn().Err(err).Str("path", path).Msg(msg)
}

func (w *Watcher) clearWarn(path, what string) {
	k := what + "\x00" + path
	if w.warned[k] {
		delete(w.warned, k)
		w.stats.unreadable.Add(-1)
		w.log.Info().Str("path", path).Msg("readable again")
	}
}

// checkRoots sets up every root that is not being watched yet. A missing
// root is waited for by watching its nearest existing ancestor (and by the
// poll tick).
func (w *Watcher) checkRoots() {
	// Ancestor watches no missing root waits on any more are released. The
	// ancestor is the one checkRoot left watched: a nearest directory
	// looked up again here may be a deeper one a `mkdir -p` made meanwhile,
	// not watched yet, and releasing the watch that reports its creation
	// lost the root until the next poll.
	needed := map[string]bool{}
	for _, rt := range w.roots {
		if !rt.present {
			if a := w.checkRoot(rt); a != "" {
				needed[a] = true
			}
		}
	}
	for a := range w.ancestors {
		if !needed[a] {
			delete(w.ancestors, a)
			if w.dirs[a] == nil && !w.extra[a] {
				_ = w.dw.Remove(a)
			}
		}
	}
}

// checkRoot sets rt up if it is there, else watches its nearest existing
// ancestor; it returns the ancestor rt waits on ("" if none).
func (w *Watcher) checkRoot(rt *root) string {
	for {
		fi, err := os.Stat(rt.path)
		if err == nil && fi.IsDir() {
			w.clearWarn(rt.path, "root")
			rt.present = true
			w.addDir(rt.path, rt, 0)
			w.countDirs()
			return ""
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			w.warnOnce(rt.path, "root", err, "log root unreadable; retrying")
			return NearestDir(filepath.Dir(rt.path)) // keep waiting where it was
		}
		if w.dw == nil {
			return ""
		}
		a := NearestDir(filepath.Dir(rt.path))
		if a == "" || w.ancestors[a] {
			return a
		}
		if err := w.dw.Add(a); err != nil {
			return "" // the poll tick looks for it instead
		}
		w.ancestors[a] = true
		// Look again: the root may have appeared before the watch existed.
	}
}

// NearestDir is p, or its nearest ancestor, that exists as a directory (""
// if none): where to wait, with a directory watch, for a root not there yet.
func NearestDir(p string) string {
	for {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return ""
		}
		p = parent
	}
}

// addDir watches a directory, then lists it: a file created between the two
// is found by the listing, one created after by an event.
func (w *Watcher) addDir(path string, rt *root, depth int) {
	if w.dirs[path] != nil {
		return
	}
	w.mu.Lock()
	d := w.dropped[path]
	if d != nil {
		// Back before all its files were forgotten: they are still listed.
		delete(w.dropped, path)
		d.dropped = false
		d.root, d.depth, d.watched = rt, depth, false
	} else {
		d = &dir{path: path, root: rt, depth: depth}
	}
	w.dirs[path] = d
	w.mu.Unlock()
	w.watch(d)
	w.scan(d)
}

func (w *Watcher) watch(d *dir) {
	if w.dw == nil || d.watched {
		return
	}
	err := w.dw.Add(d.path)
	switch {
	case err == nil:
		d.watched = true
		w.clearWarn(d.path, "watch")
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EMFILE):
		if !w.limitLog {
			w.limitLog = true
			w.log.Warn().Err(err).Str("path", d.path).Dur("interval", w.cfg.PollInterval).
				Msg("directory watch limit reached; polling the directories beyond it (raise fs.inotify.max_user_watches)")
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		w.warnOnce(d.path, "watch", err, "cannot watch directory; polling it")
	}
}

// scan lists a directory: new subdirectories are added, new logs are
// tracked, changed ones are kicked, and known files that are gone are kicked
// so their readers drain and report them.
func (w *Watcher) scan(d *dir) {
	entries, err := w.readDir(d.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			w.dropDir(d)
			return
		}
		w.warnOnce(d.path, "read", err, "cannot read directory; its logs are skipped until it can be read")
		return
	}
	w.clearWarn(d.path, "read")
	// In name order, as d.files is kept: a first listing appends.
	slices.SortFunc(entries, func(a, b dirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var seen []string // the listing's logs, sorted
	w.mu.Lock()
	known := len(d.files)
	if known == 0 {
		// A first listing sizes the list to its logs: no slack in each of
		// hundreds of folders.
		n := 0
		for _, e := range entries {
			if e.Type().IsRegular() && d.root.wantFile(d.depth+1, e.Name()) {
				n++
			}
		}
		d.files = slices.Grow(d.files, n)
	}
	w.mu.Unlock()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			w.pathBuf = joinPath(w.pathBuf[:0], d.path, name)
			if w.dirs[string(w.pathBuf)] == nil && d.root.wantDir(d.depth+1, name) {
				w.addDir(filepath.Join(d.path, name), d.root, d.depth+1)
			}
			continue
		}
		if !e.Type().IsRegular() || !d.root.wantFile(d.depth+1, name) {
			continue
		}
		if known > 0 {
			seen = append(seen, name)
		}
		w.saw(d, name)
	}
	if known > 0 {
		w.mu.Lock()
		for _, f := range d.files {
			if _, ok := slices.BinarySearch(seen, f.base()); !ok {
				w.kickLocked(f)
			}
		}
		w.mu.Unlock()
	}
}

// joinPath appends dir, a separator and name to b.
func joinPath(b []byte, dir, name string) []byte {
	b = append(b, dir...)
	b = append(b, filepath.Separator)
	return append(b, name...)
}

// listing is the dir at path dp that lists files: a known one, or one
// dropped while its files are still listed; nil if none. Called with w.mu
// held.
func (w *Watcher) listing(dp string) *dir {
	if d := w.dirs[dp]; d != nil {
		return d
	}
	return w.dropped[dp]
}

// lookup finds the file at path p: through its directory, or among the
// followed files outside the layout. Called with w.mu held.
func (w *Watcher) lookup(p string) *file {
	if d := w.listing(filepath.Dir(p)); d != nil {
		if f := d.find(filepath.Base(p)); f != nil {
			return f
		}
	}
	return w.loose[p]
}

// dirOf returns the dir that lists f, nil for a file outside the layout.
// Called with w.mu held.
func (w *Watcher) dirOf(f *file) *dir {
	if d := w.listing(filepath.Dir(f.path)); d != nil && d.find(f.base()) == f {
		return d
	}
	return nil
}

// eachFile calls fn for every known file. Called with w.mu held.
func (w *Watcher) eachFile(fn func(*file)) {
	for _, m := range [...]map[string]*dir{w.dirs, w.dropped} {
		for _, d := range m {
			for _, f := range d.files {
				fn(f)
			}
		}
	}
	for _, f := range w.loose {
		fn(f)
	}
}

// saw handles a log found in d's listing: track it if new, kick it if it
// changed since it was last read.
func (w *Watcher) saw(d *dir, name string) {
	w.mu.Lock()
	f := d.find(name)
	if f == nil && len(w.loose) > 0 {
		// Followed before its directory was known: list it there now.
		w.pathBuf = joinPath(w.pathBuf[:0], d.path, name)
		if f = w.loose[string(w.pathBuf)]; f != nil {
			delete(w.loose, f.path)
			d.add(f)
		}
	}
	if f == nil {
		p := filepath.Join(d.path, name)
		f = w.newFile(p, d, d.root.agent, !w.starting, w.ckpt[p])
		if w.starting {
			w.bootQueue = append(w.bootQueue, f)
		} else {
			w.kickLocked(f)
		}
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	if w.starting {
		return
	}
	size, ino, err := statPath(filepath.Join(d.path, name))
	if err != nil {
		w.kick(f)
		return
	}
	if pos := f.position(); size != pos.size || ino != pos.ino {
		w.kick(f)
	}
}

// newFile registers the file at p, listed in d (nil: a followed file
// outside the layout). A checkpoint entry is copied, not kept. Called with
// w.mu held.
func (w *Watcher) newFile(p string, d *dir, agent parsers.Agent, booted bool, ck *ckptEntry) *file {
	f := &file{path: p, agent: codeOf(agent), booted: booted, presumed: d != nil, lock: newLock()}
	switch {
	case booted:
		f.pos = filePos{flags: fresh | lineKnown}
	case ck != nil:
		f.pos = ck.pos()
	}
	if g, ok := w.nextGen[p]; ok {
		f.pos.gen = g
		delete(w.nextGen, p)
	}
	if d != nil {
		d.add(f)
	} else {
		w.loose[p] = f
	}
	w.nfiles++
	return f
}

// dropDir forgets a directory that was removed or renamed away, with
// everything below it; its files' readers find them gone.
func (w *Watcher) dropDir(d *dir) {
	prefix := d.path + string(filepath.Separator)
	for p, sub := range w.dirs {
		if p != d.path && !strings.HasPrefix(p, prefix) {
			continue
		}
		w.mu.Lock()
		delete(w.dirs, p)
		if len(sub.files) > 0 {
			sub.dropped = true
			w.dropped[p] = sub
		}
		w.mu.Unlock()
		if sub.watched && w.dw != nil {
			_ = w.dw.Remove(p) // already gone with the directory, or renamed away
		}
		w.mu.Lock()
		for _, f := range sub.files {
			w.kickLocked(f)
		}
		w.mu.Unlock()
		if sub.depth == 0 {
			sub.root.present = false
		}
	}
	w.countDirs()
	w.checkRoots()
}

func (w *Watcher) countDirs() {
	var watched int64
	for _, d := range w.dirs {
		if d.watched {
			watched++
		}
	}
	w.stats.dirs.Store(int64(len(w.dirs)))
	w.stats.watched.Store(watched)
}

// event handles one directory event. It is a hint: the reader re-checks the
// file, and a missed event is made good by the sweep.
func (w *Watcher) event(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod {
		return
	}
	p := ev.Name
	parent := filepath.Dir(p)
	if ev.Has(fsnotify.Create) && w.ancestors[parent] {
		w.checkRoots()
	}
	if d := w.dirs[p]; d != nil {
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			w.dropDir(d)
		}
		return
	}
	w.mu.Lock()
	f := w.lookup(p)
	if f != nil {
		w.kickLocked(f)
	}
	_, wanted := w.wanted[p]
	w.mu.Unlock()
	if f != nil {
		return
	}
	if wanted {
		w.checkWanted()
		return
	}
	pd := w.dirs[parent]
	if pd == nil || !(ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write)) {
		return
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return
	}
	name := filepath.Base(p)
	switch {
	case fi.IsDir():
		if pd.root.wantDir(pd.depth+1, name) {
			w.addDir(p, pd.root, pd.depth+1)
			w.countDirs()
		}
	case fi.Mode().IsRegular() && pd.root.wantFile(pd.depth+1, name):
		w.saw(pd, name)
	}
}

// fullSweepEvery: one reconcile sweep in this many re-lists every watched
// directory and re-stats its files. The others only re-arm failed watches
// and cover unwatched directories: inotify loses events only by overflowing,
// and an overflow triggers a full sweep at once. This keeps 10 000 quiet
// files cheap (one full sweep a minute with the default interval).
const fullSweepEvery = 6

// sweep is the reconcile pass: re-arm failed watches, re-list directories,
// re-stat files.
func (w *Watcher) sweep(full bool) {
	w.sweeps++
	full = full || w.sweeps%fullSweepEvery == 0
	w.checkRoots()
	for _, d := range w.dirList() {
		if w.dirs[d.path] != d {
			continue // dropped meanwhile
		}
		w.watch(d)
		if full || !d.watched {
			w.scan(d)
		}
	}
	w.countDirs()
	w.checkWanted()
}

// poll covers what events cannot: directories without a watch, roots and
// followed files that do not exist yet.
func (w *Watcher) poll() {
	w.mu.Lock()
	wanted := len(w.wanted)
	w.mu.Unlock()
	if wanted == 0 && w.stats.dirs.Load() == w.stats.watched.Load() && w.allRoots() {
		return // nothing events do not cover
	}
	for _, rt := range w.roots {
		if !rt.present {
			w.checkRoots()
			break
		}
	}
	w.checkWanted()
	for _, d := range w.dirList() {
		if !d.watched && w.dirs[d.path] == d {
			w.scan(d)
		}
	}
	w.countDirs()
}

func (w *Watcher) allRoots() bool {
	for _, rt := range w.roots {
		if !rt.present {
			return false
		}
	}
	return true
}

func (w *Watcher) dirList() []*dir {
	l := make([]*dir, 0, len(w.dirs))
	for _, d := range w.dirs {
		l = append(l, d)
	}
	return l
}

// checkWanted looks for files named by Follow that were not found yet.
func (w *Watcher) checkWanted() {
	w.mu.Lock()
	var paths []string
	for p := range w.wanted {
		paths = append(paths, p)
	}
	w.mu.Unlock()
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			// Watch its directory for a quicker find than the poll tick.
			if parent := filepath.Dir(p); w.dw != nil && w.dirs[parent] == nil && !w.extra[parent] {
				if w.dw.Add(parent) == nil {
					w.extra[parent] = true
				}
			}
			continue
		}
		d := w.dirs[filepath.Dir(p)]
		agent := guessAgent(p)
		if d != nil && d.root.wantFile(d.depth+1, filepath.Base(p)) {
			agent = d.root.agent
		} else {
			d = nil
		}
		w.mu.Lock()
		existed := w.wanted[p]
		delete(w.wanted, p)
		f := w.lookup(p)
		if f == nil {
			// A file that existed when it was named has history: bootstrap
			// it. Not in a directory the watcher lists, though: that listing
			// did not have it, so it is new since, and its lines are live as
			// the listing would have read them. (Gemini CLI's new chat file,
			// named by its SessionStart hook 38 ms after it was created,
			// was read as history or live by which of the two came first.)
			f = w.newFile(p, d, agent, !existed || d != nil, nil)
		}
		w.kickLocked(f)
		w.mu.Unlock()
	}
}
