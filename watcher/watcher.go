// Package watcher finds the agents' log files under the configured roots,
// follows the ones being written and turns every complete line into a
// Record for the relay.
//
// Discovery watches directories, never files, with one fsnotify watcher: a
// directory created later is watched and then scanned at once, because
// `mkdir -p` plus an immediate write yields a single event. Events are only a
// latency optimisation; a periodic reconcile sweep re-lists every directory,
// re-stats every file and re-arms failed watches, so a lost event, a queue
// overflow or an exhausted watch limit costs latency, never data. Directories
// without a watch are polled.
//
// Reading: a file gets a reader goroutine only while it is active (written
// recently, or named by Follow/Poke); the reader closes after IdleTimeout and
// its position is kept. A file's generation is its device and inode plus a
// hash of its first bytes (up to 1 KiB). Before and after every batch of
// lines the reader checks it: a file shorter than the offset, a changed
// signature or a byte before the offset that is not a newline means the file
// was truncated or rewritten in place, and reading restarts at 0 with a new
// parser (a KindReset record). A deleted or replaced file is read to its end
// through the open descriptor first. Only complete lines are delivered; lines
// over MaxLineBytes are skipped without being held whole and counted.
//
// Start-up: a live service must not replay history as if it were happening
// now. Files found at start-up are read from their recent tail
// (BootstrapBytes, starting after the first newline in that window; a Codex
// file's first line, its session_meta, is read too) and those records are
// marked Bootstrap. With a CheckpointFile, a file whose identity matches its
// checkpoint resumes exactly there: lines written while the watcher was down
// are delivered once, marked Bootstrap, and the tail before the checkpoint
// is resent marked Replay so that a fresh relay can rebuild state. Every
// record that is not Replay is delivered exactly once per file generation
// across graceful restarts; after a crash, lines since the last checkpoint
// (CheckpointInterval) are delivered again. With SaveState the checkpoint
// also carries the consumer's state, taken at a barrier in the record
// stream, with the positions the consumer had folded: restoring it and
// skipping Replay records gives the state of a consumer that never stopped.
package watcher

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/watcher/follow"
)

// Watcher discovers and follows agent logs. Use New, then Run once.
type Watcher struct {
	cfg    Config
	log    zerolog.Logger // component=discovery
	rlog   zerolog.Logger // component=reader
	spare  sync.Pool      // *reader: see newReader
	clog   zerolog.Logger // component=checkpoint
	opener follow.Opener

	out   chan Record
	ready chan struct{}
	stop  chan struct{} // closed when Run stops: readers waiting for line memory give up
	req   chan struct{} // Follow/Poke ask the loop to look at wanted paths
	ctx   context.Context
	wg    sync.WaitGroup // reader goroutines
	ran   atomic.Bool

	// Seams for tests.
	newDirWatcher func() (dirWatcher, error)
	readDir       func(string) ([]dirEntry, error)

	// Owned by the Run loop.
	dw        dirWatcher
	roots     []*root
	dirs      map[string]*dir // written under mu: Follow, Poke and Position look up through it
	pathBuf   []byte          // a path built for a lookup
	ancestors map[string]bool // watched parents of missing roots
	extra     map[string]bool // watched directories of followed files outside the roots
	starting  bool            // files found now are bootstrapped
	bootQueue []*file
	ckpt      map[string]*ckptEntry
	state     []byte          // the consumer's state from the checkpoint (SaveState)
	warned    map[string]bool // one warning per path and kind
	polling   bool            // no watches at all
	limitLog  bool            // the watch-limit fallback was logged
	sweeps    int             // reconcile sweeps so far

	// mu guards dirs' writes, dropped, loose, dir.files, file.running,
	// wanted, closing. A file is found through its dir's files (sorted by
	// name), a dropped dir's, or loose: no map holds every file.
	mu      sync.Mutex
	dropped map[string]*dir  // removed dirs whose files are not all forgotten yet
	loose   map[string]*file // followed files outside the layout, by path
	nfiles  int              // files known
	learned map[*file]string // session ids read from a file's content (a name that does not give one)
	// wakes (capacity 1: pending "look at the file") is made by the first
	// kick that needs it, and is never replaced: most files are read once
	// at start-up and then stay idle, and 10 000 idle channels were a tenth
	// of the daemon's heap (a field in each file, 8 bytes more). A
	// long-lived reader starts only once it exists, so its unlocked
	// receive sees it.
	wakes   map[*file]chan struct{}
	wanted  map[string]bool  // named by Follow, not found yet: whether it existed then
	nextGen map[string]int32 // first generation of a path whose file was dropped
	closing bool

	stats struct {
		overflows, oversized, malformed, resets, deleted, delivered atomic.Int64
		unreadable                                                  atomic.Int64
		dirs, watched                                               atomic.Int64
		polling                                                     atomic.Bool
	}
	dirty  atomic.Bool // positions changed since the last checkpoint
	saving sync.Mutex  // one checkpoint write at a time
}

// Option changes how a Watcher is built.
type Option func(*Watcher)

// WithOpener replaces the follower (the seam for comparing followers).
func WithOpener(o follow.Opener) Option { return func(w *Watcher) { w.opener = o } }

// New returns a Watcher for cfg. It touches no file until Run.
func New(cfg Config, log zerolog.Logger, opts ...Option) (*Watcher, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	w := &Watcher{
		cfg:           cfg,
		log:           log.With().Str("component", "discovery").Logger(),
		rlog:          log.With().Str("component", "reader").Logger(),
		clog:          log.With().Str("component", "checkpoint").Logger(),
		out:           make(chan Record, cfg.Buffer),
		stop:          make(chan struct{}),
		ready:         make(chan struct{}),
		req:           make(chan struct{}, 1),
		newDirWatcher: newFsnotify,
		readDir:       readDirEntries,
		dirs:          map[string]*dir{},
		ancestors:     map[string]bool{},
		extra:         map[string]bool{},
		warned:        map[string]bool{},
		dropped:       map[string]*dir{},
		loose:         map[string]*file{},
		learned:       map[*file]string{},
		wakes:         map[*file]chan struct{}{},
		wanted:        map[string]bool{},
		nextGen:       map[string]int32{},
	}
	add := func(paths []string, agent parsers.Agent) error {
		for _, p := range paths {
			abs, err := filepath.Abs(p)
			if err != nil {
				return fmt.Errorf("%w: root %s: %w", ErrConfig, p, err)
			}
			w.roots = append(w.roots, &root{path: abs, agent: agent})
		}
		return nil
	}
	for a := range cfg.Roots {
		if parsers.Lookup(a) == nil {
			return nil, fmt.Errorf("%w: roots for %q, which is no agent", ErrConfig, a)
		}
	}
	for _, s := range parsers.All() { // in registration order: deterministic
		if err := add(cfg.Roots[s.Name], s.Name); err != nil {
			return nil, err
		}
	}
	w.opener = follow.NewReaders(cfg.MaxLineBytes).WithBudget(cfg.LineBudget, w.stop)
	for _, o := range opts {
		o(w)
	}
	return w, nil
}

// Records is the watcher's output. It is closed when Run returns. A reader
// blocks while the channel is full: a slow consumer slows reading down, it
// never loses lines.
func (w *Watcher) Records() <-chan Record { return w.out }

// Ready is closed once every file found at start-up has been bootstrapped
// (its records handed to Records).
func (w *Watcher) Ready() <-chan struct{} { return w.ready }

// ErrRunning is returned by a second call to Run.
var ErrRunning = errors.New("watcher already ran")

// Run discovers and follows files until ctx is done, then writes the
// checkpoint and closes Records. It returns nil on a clean shutdown.
func (w *Watcher) Run(ctx context.Context) error {
	if w.ran.Swap(true) {
		return ErrRunning
	}
	defer close(w.out)
	w.mu.Lock()
	w.ctx = ctx
	w.mu.Unlock()
	if err := w.loadCheckpoint(); errors.Is(err, safeopen.ErrNotRegular) {
		// Every write would be refused too: say so now, not every 5 s.
		close(w.ready)
		return err
	} else if err != nil {
		w.clog.Warn().Err(err).Str("path", w.cfg.CheckpointFile).Msg("checkpoint unreadable; bootstrapping every file from its tail")
	}
	if w.cfg.SaveState {
		// Before any line: the consumer restores, then folds what follows.
		select {
		case w.out <- Record{Kind: KindState, State: w.state}:
		case <-ctx.Done():
		}
		w.state = nil
	}
	dw, err := w.newDirWatcher()
	if err != nil {
		w.polling = true
		w.stats.polling.Store(true)
		w.log.Warn().Err(err).Dur("interval", w.cfg.PollInterval).
			Msg("directory watches unavailable; polling every directory (raise fs.inotify.max_user_instances)")
	} else {
		if w.cfg.MaxWatches > 0 {
			dw = &limitedWatcher{dirWatcher: dw, max: w.cfg.MaxWatches, used: map[string]bool{}}
		}
		w.dw = dw
		defer dw.Close()
	}

	w.starting = true
	w.checkRoots()
	w.starting = false
	w.checkWanted()
	boot := w.bootQueue
	w.bootQueue = nil
	w.ckpt = nil
	go w.bootstrap(boot)

	err = w.loop(ctx)

	w.mu.Lock()
	w.closing = true
	w.mu.Unlock()
	close(w.stop)
	w.wg.Wait()
	if serr := w.checkpointNow(true); serr != nil {
		w.clog.Error().Err(serr).Str("path", w.cfg.CheckpointFile).Msg("checkpoint not written")
		err = errors.Join(err, serr)
	}
	return err
}

// checkpointNow writes the checkpoint once no other write is in flight.
func (w *Watcher) checkpointNow(force bool) error {
	w.saving.Lock()
	defer w.saving.Unlock()
	return w.saveCheckpoint(force)
}

// bootstrap reads the files found at start-up with a few workers, then
// closes Ready.
func (w *Watcher) bootstrap(files []*file) {
	defer close(w.ready)
	next := make(chan *file)
	var wg sync.WaitGroup
	for i := 0; i < w.cfg.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range next {
				if w.claim(f) {
					w.follow(f, true)
				}
			}
		}()
	}
	for _, f := range files {
		select {
		case next <- f:
		case <-w.ctx.Done():
		}
	}
	close(next)
	wg.Wait()
}

// claim marks f as being read by the caller; false if a reader has it.
func (w *Watcher) claim(f *file) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f.running || w.closing || f.gone {
		return false // being read, or dropped since it was queued
	}
	f.running = true
	w.wg.Add(1)
	return true
}

func (w *Watcher) loop(ctx context.Context) error {
	sweep := time.NewTicker(w.cfg.ReconcileInterval)
	defer sweep.Stop()
	poll := time.NewTicker(w.cfg.PollInterval)
	defer poll.Stop()
	save := time.NewTicker(w.cfg.CheckpointInterval)
	defer save.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.dw != nil {
		events, errs = w.dw.Events(), w.dw.Errors()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			w.event(ev)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.stats.overflows.Add(1)
				w.log.Warn().Msg("inotify queue overflowed; rescanning everything")
				w.sweep(true)
				continue
			}
			w.log.Warn().Err(err).Msg("directory watcher error")
		case <-sweep.C:
			w.sweep(false)
		case <-poll.C:
			w.poll()
		case <-w.req:
			w.checkWanted()
		case <-save.C:
			switch {
			case w.cfg.SaveState:
				// The barrier waits on the consumer: never in this loop.
				go func() {
					if !w.saving.TryLock() {
						return // the previous one is still being written
					}
					defer w.saving.Unlock()
					if w.ctx.Err() != nil {
						return // stopping: the final checkpoint is written by Run
					}
					if err := w.saveCheckpoint(false); err != nil {
						w.clog.Warn().Err(err).Str("path", w.cfg.CheckpointFile).Msg("checkpoint not written")
					}
				}()
			case w.dirty.Swap(false):
				if err := w.saveCheckpoint(true); err != nil {
					w.clog.Warn().Err(err).Str("path", w.cfg.CheckpointFile).Msg("checkpoint not written")
				}
			}
		}
	}
}

// Follow makes the watcher follow path now, for example a transcript_path
// named by a hook. The file need not exist yet, nor lie under a root; it is
// picked up as soon as it appears. Its lines are live, read from offset 0,
// unless it existed when named outside the directories the watcher lists:
// then what it held is history, as at start-up.
func (w *Watcher) Follow(path string) {
	path = filepath.Clean(path)
	_, err := os.Stat(path)
	w.mu.Lock()
	f := w.lookup(path)
	if f == nil {
		if _, ok := w.wanted[path]; !ok {
			w.wanted[path] = err == nil
		}
	} else {
		w.kickLocked(f)
	}
	w.mu.Unlock()
	if f == nil {
		select {
		case w.req <- struct{}{}:
		default:
		}
	}
}

// Poke reads path to its end now, without waiting for an event: the
// interrupt confirmation window calls it at a short interval. It returns at
// once; the lines arrive on Records. It reports whether the file is known
// (an unknown path is followed, as by Follow).
func (w *Watcher) Poke(path string) bool {
	path = filepath.Clean(path)
	w.mu.Lock()
	f := w.lookup(path)
	if f != nil {
		w.kickLocked(f)
	}
	w.mu.Unlock()
	if f == nil {
		w.Follow(path)
	}
	return f != nil
}

// Position reports how far path has been delivered: a record counts once
// it has been handed to Records, so Position may trail the newest record on
// the channel by the one being handed over. The interrupt window takes it as
// its baseline and calls Poke to read past it.
func (w *Watcher) Position(path string) (Position, bool) {
	w.mu.Lock()
	f := w.lookup(filepath.Clean(path))
	w.mu.Unlock()
	if f == nil {
		return Position{}, false
	}
	p := f.position()
	line := p.line
	if !p.has(lineKnown) {
		line = 0
	}
	return Position{Gen: int(p.gen), Offset: p.offset, Line: line, Size: p.size}, true
}

// Stats returns the watcher's counters. Directory counts are as of the last
// sweep or event handled.
func (w *Watcher) Stats() Stats {
	w.mu.Lock()
	s := Stats{Files: w.nfiles}
	w.eachFile(func(f *file) {
		if f.running {
			s.Active++
		}
	})
	w.mu.Unlock()
	s.Overflows = w.stats.overflows.Load()
	s.Oversized = w.stats.oversized.Load()
	s.Malformed = w.stats.malformed.Load()
	s.Resets = w.stats.resets.Load()
	s.Deleted = w.stats.deleted.Load()
	s.Delivered = w.stats.delivered.Load()
	s.Unreadable = int(w.stats.unreadable.Load())
	s.Dirs, s.Watched = int(w.stats.dirs.Load()), int(w.stats.watched.Load())
	s.Polled = s.Dirs - s.Watched
	s.Polling = w.stats.polling.Load()
	return s
}

// kick makes f's reader look at the file now, starting one if needed.
func (w *Watcher) kick(f *file) {
	w.mu.Lock()
	w.kickLocked(f)
	w.mu.Unlock()
}

func (w *Watcher) kickLocked(f *file) {
	if f.gone {
		return // dropped; whatever is at the path now has its own file
	}
	wake := w.wakes[f]
	if wake == nil {
		wake = make(chan struct{}, 1)
		w.wakes[f] = wake
	}
	if f.running {
		select {
		case wake <- struct{}{}:
		default: // a wake is pending already; events coalesce
		}
		return
	}
	if w.closing || w.ctx == nil {
		return
	}
	f.running = true
	w.wg.Add(1)
	go w.follow(f, false)
}

// park ends f's reader unless a wake arrived meanwhile.
func (w *Watcher) park(f *file) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.wakes[f]) > 0 && !w.closing {
		return false
	}
	f.running = false
	return true
}

// forget drops a deleted file unless it was recreated or kicked meanwhile.
func (w *Watcher) forget(f *file) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.wakes[f]) > 0 && !w.closing {
		return false
	}
	if !f.gone {
		f.gone = true
		w.nfiles--
		// Generations keep counting at this path.
		w.nextGen[f.path] = f.position().gen
		delete(w.learned, f)
		delete(w.wakes, f)
		switch d := w.dirOf(f); {
		case d != nil:
			d.remove(f)
			if d.dropped && len(d.files) == 0 {
				delete(w.dropped, d.path)
			}
		case w.loose[f.path] == f:
			delete(w.loose, f.path)
		}
	}
	f.running = false
	return true
}
