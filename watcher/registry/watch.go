// Package registry follows the agents' live session registries (an agent's
// parsers.Registry): one file per running process, naming its session,
// created and rewritten as the session goes and removed when the process
// exits cleanly. It delivers each whole, changed file and each removal;
// what they mean for the session is the relay's to decide.
package registry

import (
	"context"
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/watcher"
)

// Entry is one registry file, as the agent's parsers.Registry reads it.
type Entry = parsers.RegistryEntry

// Root is one registry directory and the agent format of its files.
type Root struct {
	Dir    string
	Format *parsers.Registry
}

// Sink receives what the watcher reads. It is called from the watcher's
// goroutine, one call at a time.
type Sink interface {
	// RegistryEntry delivers a file that was created or rewritten; an
	// unchanged rewrite is not delivered again.
	RegistryEntry(Entry)
	// RegistryRemoved says a file is gone: its process said goodbye.
	RegistryRemoved(path string)
}

// maxFile bounds one registry file (Claude Code 2.1.328 writes about 700
// bytes).
const maxFile = 64 << 10

// Stats are the watcher's running totals.
type Stats struct {
	Entries    atomic.Int64 // files read and live now
	Incomplete atomic.Int64 // reads of a half-written or invalid file (retried on its next event)
	Overflows  atomic.Int64 // event queue overflows (each followed by a rescan)
	Refused    atomic.Int64 // paths refused for not being regular files (a FIFO, a device), once each
}

// Watcher follows registry directories with directory events only: no
// polling. A directory that does not exist yet is waited for through its
// nearest existing ancestor.
type Watcher struct {
	roots   []string
	formats map[string]*parsers.Registry // root → its files' format
	sink    Sink
	log     zerolog.Logger
	Stats   Stats

	fs        *fsnotify.Watcher
	present   map[string]bool   // root → watched and listed
	ancestors map[string]bool   // directories watched only to see a root appear
	last      map[string]uint64 // path → hash of the content last delivered
	refused   map[string]bool   // paths refused (and logged) as not regular, until they change kind or go
	buf       []byte            // the read buffer (one goroutine reads)
	ready     chan struct{}
}

// New returns a watcher of roots.
func New(roots []Root, sink Sink, log zerolog.Logger) *Watcher {
	clean := make([]string, 0, len(roots))
	formats := map[string]*parsers.Registry{}
	for _, r := range roots {
		if abs, err := filepath.Abs(r.Dir); err == nil && r.Format != nil && formats[abs] == nil {
			clean = append(clean, abs)
			formats[abs] = r.Format
		}
	}
	return &Watcher{
		roots: clean, formats: formats, sink: sink, log: log.With().Str("component", "registry").Logger(),
		present: map[string]bool{}, ancestors: map[string]bool{}, last: map[string]uint64{}, refused: map[string]bool{},
		buf:   make([]byte, maxFile+1),
		ready: make(chan struct{}),
	}
}

// Ready is closed once every existing root has been listed.
func (w *Watcher) Ready() <-chan struct{} { return w.ready }

// Run watches until ctx ends.
func (w *Watcher) Run(ctx context.Context) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		close(w.ready)
		return err
	}
	defer fw.Close()
	w.fs = fw
	w.checkRoots()
	close(w.ready)
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			w.event(ev)
		case err, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: list everything again.
				w.Stats.Overflows.Add(1)
				w.log.Warn().Msg("registry events overflowed; rescanning")
				for rt := range w.present {
					w.scan(rt)
				}
				w.checkRoots()
				continue
			}
			w.log.Warn().Err(err).Msg("registry watch error")
		}
	}
}

// checkRoots watches and lists every root that exists and is not watched
// yet, and watches the nearest existing ancestor of the others.
func (w *Watcher) checkRoots() {
	needed := map[string]bool{}
	for _, rt := range w.roots {
		if w.present[rt] {
			continue
		}
		for range 64 { // a root may appear while its ancestor's watch is set up
			fi, err := os.Stat(rt)
			if err == nil && fi.IsDir() {
				if err := w.fs.Add(rt); err != nil {
					w.log.Warn().Err(err).Str("path", rt).Msg("registry directory not watchable")
					break
				}
				w.present[rt] = true
				w.scan(rt)
				break
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				w.log.Warn().Err(err).Str("path", rt).Msg("registry directory unreadable")
				break
			}
			a := watcher.NearestDir(filepath.Dir(rt))
			if a == "" {
				break
			}
			needed[a] = true
			if w.ancestors[a] {
				break
			}
			if err := w.fs.Add(a); err != nil {
				break
			}
			w.ancestors[a] = true
		}
	}
	for a := range w.ancestors {
		if !needed[a] {
			delete(w.ancestors, a)
			if !w.present[a] {
				_ = w.fs.Remove(a)
			}
		}
	}
}

// scan lists a root: every file is read, and a file delivered before that
// is no longer there is removed.
func (w *Watcher) scan(rt string) {
	ents, err := readDir(rt)
	if err != nil {
		w.log.Warn().Err(err).Str("path", rt).Msg("registry directory unreadable")
		return
	}
	seen := map[string]bool{}
	for _, de := range ents {
		p := filepath.Join(rt, de.Name())
		if w.pidOf(p) != 0 && !de.IsDir() { // read refuses (and logs once) what is not a regular file
			seen[p] = true
			w.read(p)
		}
	}
	for p := range w.last {
		if filepath.Dir(p) == rt && !seen[p] {
			w.removed(p)
		}
	}
}

// readDir lists dir, sorted by name, as os.ReadDir does, without blocking
// on a FIFO swapped in for it.
func readDir(dir string) ([]os.DirEntry, error) {
	f, err := safeopen.Dir(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

func (w *Watcher) event(ev fsnotify.Event) {
	p, dir := ev.Name, filepath.Dir(ev.Name)
	if w.present[p] && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) {
		// The root itself went away: its files with it.
		delete(w.present, p)
		for q := range w.last {
			if filepath.Dir(q) == p {
				w.removed(q)
			}
		}
		w.checkRoots()
		return
	}
	if w.ancestors[dir] && ev.Has(fsnotify.Create) {
		w.checkRoots()
	}
	if !w.present[dir] || w.pidOf(p) == 0 {
		return
	}
	switch {
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		// Renamed away or removed; a rename over it arrives as Create.
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			w.removed(p)
			return
		}
		w.read(p)
	case ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write):
		w.read(p)
	}
}

// read delivers p's content if it is whole and changed. A half-written file
// is left for its next event; the entry delivered before stays in force.
func (w *Watcher) read(p string) {
	// Not os.Open: a FIFO named <pid>.json would block this goroutine in
	// open(2) for ever, and with it every later registry file and the
	// daemon's stop.
	f, err := safeopen.Open(p)
	if errors.Is(err, safeopen.ErrNotRegular) {
		if !w.refused[p] {
			w.refused[p] = true
			w.Stats.Refused.Add(1)
			w.log.Warn().Err(err).Str("path", p).Msg("registry file refused")
		}
		return
	}
	delete(w.refused, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			w.removed(p)
			return
		}
		// Unreadable (permissions, say): the entry delivered before stays;
		// the next event tries again.
		w.log.Warn().Err(err).Str("path", p).Msg("registry file unreadable")
		return
	}
	n, _ := readFull(f, w.buf)
	f.Close()
	b := w.buf[:n]
	if n > maxFile {
		w.Stats.Incomplete.Add(1)
		return
	}
	h := fnv.New64a()
	h.Write(b)
	sum := h.Sum64()
	if old, ok := w.last[p]; ok && old == sum {
		return // Claude Code writes each status twice
	}
	e, err := w.formats[filepath.Dir(p)].Parse(p, b)
	if err != nil {
		w.Stats.Incomplete.Add(1)
		if !errors.Is(err, parsers.ErrRegistryIncomplete) {
			w.log.Debug().Err(err).Str("path", p).Msg("registry file not usable")
		}
		return
	}
	if _, ok := w.last[p]; !ok {
		w.Stats.Entries.Add(1)
	}
	w.last[p] = sum
	w.sink.RegistryEntry(e)
}

// pidOf is the pid p's name names in its root's format, 0 for a file that
// is no entry (or outside every root).
func (w *Watcher) pidOf(p string) int {
	if f := w.formats[filepath.Dir(p)]; f != nil {
		return f.PidOf(p)
	}
	return 0
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (w *Watcher) removed(p string) {
	delete(w.refused, p)
	if _, ok := w.last[p]; !ok {
		return
	}
	delete(w.last, p)
	w.Stats.Entries.Add(-1)
	w.sink.RegistryRemoved(p)
}
