// Package storefeed follows the agents that keep their sessions in a
// database (parsers.Store) instead of log files, and turns every change row
// into a watcher.Record line, as the watcher does for a log's lines: the
// relay cannot tell the two apart.
//
// It is woken by file events on the databases' directories, never by a
// timer (an idle agent costs nothing); only a database that answered busy
// is tried again after a pause, until it answers, and one a file event
// woke is read again a few times shortly after (a commit can become
// readable after the writes that announced it). At start-up each
// database gives its sessions' present state as Bootstrap rows (history,
// never published as live changes) and is followed from there.
package storefeed

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/lines"
	"github.com/logwatch/logwatch/watcher"
)

// Config says which databases to follow.
type Config struct {
	// Roots are, per agent with a Store, the directories its databases
	// are in. Agents without a Store are ignored.
	Roots map[parsers.Agent][]string
	// Since is how far back a session's last change may be for its state
	// to be read at start-up; default 7 days.
	Since time.Duration
	// SessionRows bounds the rows read at start-up per session: its
	// current turn's first and its SessionRows newest (its present state);
	// default 16. Every session is read, one at a time, so start-up's
	// memory does not grow with the sessions stored, and its time only by
	// their count.
	SessionRows int
	// MaxLineBytes: longer rows are skipped and counted (KindOversized);
	// default 32 MiB, as the watcher's.
	MaxLineBytes int
	// Buffer is the capacity of Records; default 64 (the relay takes them
	// as fast as they are read; each slot is 416 bytes the start-up read
	// touches for good). A full channel blocks the feed (back-pressure), it
	// never drops.
	Buffer int
	// ReadBytes is the lines one read holds of its own, as a log reader's
	// base buffer; default 1 MiB, a full batch of ordinary rows (a few KiB
	// each). A row past it is read alone, its bytes taken from LineBudget.
	ReadBytes int64
	// LineBudget is the memory the log readers share for long lines
	// (watcher.Config.LineBudget): a row read past ReadBytes takes its
	// line's bytes from it, and gives them back once it is parsed. nil: a
	// budget of twice MaxLineBytes.
	LineBudget *lines.Budget
	// Raw keeps each row's line on its record (Record.Raw), for the relay's
	// recorder; without it a line is dropped once parsed.
	Raw bool
}

const (
	defaultSince = 7 * 24 * time.Hour
	// defaultSessionRows: a turn's newest rows say where it is. Over 1 000
	// stored sessions (40 rows a turn) all are known 0.35-0.5 s after an
	// empty root's start-up, less than one cap of 20 000 rows in all took,
	// which knew 460 of them (2 cores, bench/daemon.sh).
	defaultSessionRows = 16
	defaultMaxLine     = 32 << 20
	defaultBuffer      = 64
	// batch is how many rows one read asks for.
	batch            = 512
	defaultReadBytes = 1 << 20
	// A busy database is asked again after retryMin, doubling to retryMax.
	retryMin = 100 * time.Millisecond
	retryMax = 5 * time.Second
	// A damaged one (not a database, corrupt) is asked again after
	// damagedMin, doubling to damagedMax, and on its every file event: it
	// is read as soon as it is replaced or repaired, without asking a file
	// that will not mend every few seconds for ever.
	damagedMin = 5 * time.Second
	damagedMax = 10 * time.Minute
	// A commit's file writes come before the commit can be read: SQLite's
	// WAL publishes its frames by updating the index in -shm, a shared
	// memory map, which no file event reports. A read woken by the writes
	// can come first, and no later event would say so (measured: 1 commit
	// in 40 with the real driver, BenchmarkFeedLatency; under load a commit
	// came 2-14 ms after its last write, 1 in 20). So a database a file
	// event woke is looked at again: when its Version tells a commit
	// without a query, every recheckStep for fastChecks looks (a commit is
	// read within recheckStep of becoming visible; a look is two system
	// calls), then twice as long each time up to recheckMax; without
	// Version, read again recheckMin later, then twice as long up to
	// recheckMax (a commit late by d is read by 2d). None while the agent
	// is idle.
	recheckStep = time.Millisecond
	fastChecks  = 16
	recheckMin  = 2 * time.Millisecond
	recheckMax  = 128 * time.Millisecond
)

// Feed follows the databases. Use New, then Run once.
type Feed struct {
	cfg   Config
	log   zerolog.Logger // component=storefeed
	out   chan watcher.Record
	ready chan struct{}
	dbs   []*db
	stats struct {
		rows, malformed, oversized, errors atomic.Int64
		open, reads                        atomic.Int64
	}
	now func() time.Time
}

// db is one database the feed follows; owned by Run.
type db struct {
	agent   parsers.Agent
	store   *parsers.Store
	path    string
	parser  parsers.Parser
	conn    parsers.StoreDB
	cursor  int64
	started bool          // its present state was read (or it did not exist at start)
	seen    bool          // a database was there in this run: one there later replaced it
	retry   time.Duration // the pause before the next try while busy; 0: not busy
	recheck time.Duration // the pause before its next read again after a wake; 0: none due
	checkAt time.Time     // when that read is due
	checks  int           // looks since the wake
	// ver is the database's Version when it was last read to its end
	// (verOK: it has one): a wake that finds it unchanged reads nothing.
	ver    uint64
	verOK  bool
	failed string // the last error logged, not repeated
}

// Stats are counters for status output.
type Stats struct {
	Databases, Open            int
	Rows, Malformed, Oversized int64
	Errors                     int64
	// Reads are the queries for changes made (a wake whose Version did not
	// change makes none).
	Reads int64
}

// New returns a Feed for the store agents among cfg.Roots.
func New(cfg Config, log zerolog.Logger) *Feed {
	if cfg.Since == 0 {
		cfg.Since = defaultSince
	}
	if cfg.SessionRows == 0 {
		cfg.SessionRows = defaultSessionRows
	}
	if cfg.MaxLineBytes == 0 {
		cfg.MaxLineBytes = defaultMaxLine
	}
	if cfg.Buffer == 0 {
		cfg.Buffer = defaultBuffer
	}
	if cfg.ReadBytes == 0 {
		cfg.ReadBytes = defaultReadBytes
	}
	if cfg.LineBudget == nil {
		cfg.LineBudget = lines.NewBudget(2 * int64(cfg.MaxLineBytes))
	}
	f := &Feed{cfg: cfg, log: log.With().Str("component", "storefeed").Logger(),
		out: make(chan watcher.Record, cfg.Buffer), ready: make(chan struct{}), now: time.Now}
	for _, s := range parsers.All() {
		if s.Store == nil {
			continue
		}
		for _, root := range cfg.Roots[s.Name] {
			for _, name := range s.Store.Files {
				f.dbs = append(f.dbs, &db{agent: s.Name, store: s.Store, path: filepath.Join(root, name), parser: s.NewParser()})
			}
		}
	}
	return f
}

// Empty reports whether there is no database to follow.
func (f *Feed) Empty() bool { return len(f.dbs) == 0 }

// Records are the rows as lines; closed when Run returns.
func (f *Feed) Records() <-chan watcher.Record { return f.out }

// Ready is closed once every database's present state was sent.
func (f *Feed) Ready() <-chan struct{} { return f.ready }

// Stats returns the counters; safe from any goroutine.
func (f *Feed) Stats() Stats {
	return Stats{Databases: len(f.dbs), Open: int(f.stats.open.Load()), Rows: f.stats.rows.Load(),
		Malformed: f.stats.malformed.Load(), Oversized: f.stats.oversized.Load(), Errors: f.stats.errors.Load(),
		Reads: f.stats.reads.Load()}
}

// Run follows the databases until ctx ends.
func (f *Feed) Run(ctx context.Context) error {
	defer close(f.out)
	defer func() {
		for _, d := range f.dbs {
			f.close(d)
		}
	}()
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer fw.Close()
	watched := map[string]bool{}
	// watch watches each database's directory, or while it is missing its
	// nearest ancestor that exists (whose events then say when to look
	// again).
	watch := func() {
		for _, d := range f.dbs {
			for dir := filepath.Dir(d.path); ; dir = filepath.Dir(dir) {
				if watched[dir] {
					break
				}
				if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
					if fw.Add(dir) == nil {
						watched[dir] = true
					}
					break
				}
				if dir == filepath.Dir(dir) {
					break
				}
			}
		}
	}
	watch()
	for _, d := range f.dbs {
		if _, err := os.Lstat(d.path); errors.Is(err, os.ErrNotExist) {
			d.started = true // created later: every row of it is new
			continue
		}
		d.seen = true
		if !f.read(ctx, d, true) {
			return nil
		}
	}
	close(f.ready)
	var retry *time.Timer
	var retryC <-chan time.Time
	arm := func() {
		var next time.Duration
		for _, d := range f.dbs {
			if d.retry > 0 && (next == 0 || d.retry < next) {
				next = d.retry
			}
		}
		if next == 0 || retryC != nil {
			return
		}
		retry = time.NewTimer(next)
		retryC = retry.C
	}
	arm()
	check := time.NewTimer(time.Hour)
	check.Stop()
	defer check.Stop()
	// armCheck sets check to the earliest read again that is due.
	armCheck := func() {
		var next time.Time
		for _, d := range f.dbs {
			if d.recheck > 0 && (next.IsZero() || d.checkAt.Before(next)) {
				next = d.checkAt
			}
		}
		if next.IsZero() {
			check.Stop()
			return
		}
		check.Reset(time.Until(next))
	}
	for {
		select {
		case <-ctx.Done():
			if retry != nil {
				retry.Stop()
			}
			return nil
		case <-check.C:
			now := time.Now()
			for _, d := range f.dbs {
				if d.recheck == 0 || now.Before(d.checkAt) {
					continue
				}
				next := d.recheck
				if d.checks++; !d.verOK || d.checks >= fastChecks {
					next *= 2
				}
				// The last look reads whatever the version says: one
				// query per burst bounds what a header that failed to
				// tell could hold back.
				read := f.wake
				if next > recheckMax {
					next, read = 0, func(ctx context.Context, d *db) bool { return f.read(ctx, d, false) }
				}
				if !read(ctx, d) {
					return nil
				}
				d.recheck, d.checkAt = next, now.Add(next)
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			// An overflow lost events: read every database.
			f.log.Warn().Err(err).Msg("file events lost; reading every database")
			for _, d := range f.dbs {
				if !f.read(ctx, d, false) {
					return nil
				}
			}
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			if ev.Op&fsnotify.Create != 0 {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
					watch() // a directory on the way to a database appeared
				}
			}
			if ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename|fsnotify.Remove) == 0 {
				continue
			}
			for _, d := range f.dbs {
				if filepath.Dir(d.path) != filepath.Dir(ev.Name) || !d.store.Wakes(d.path, filepath.Base(ev.Name)) {
					continue
				}
				if ev.Name == d.path && ev.Op&(fsnotify.Create|fsnotify.Rename|fsnotify.Remove) != 0 {
					// Created, replaced or gone: the next one is read anew.
					// One that replaces a database seen in this run (moved
					// or copied over it) holds history: it is read as at
					// start-up, its sessions' present state, never as live
					// turns. The first one created where there was none
					// (the agent's first run) is all new.
					f.close(d)
					d.started, d.cursor = !d.seen, 0
					if ev.Op&fsnotify.Create == 0 {
						continue
					}
				}
				if !f.wake(ctx, d) {
					return nil
				}
				d.recheck, d.checks = recheckMin, 0
				if d.verOK {
					d.recheck = recheckStep
				}
				d.checkAt = time.Now().Add(d.recheck)
			}
		case <-retryC:
			retryC = nil
			for _, d := range f.dbs {
				if d.retry > 0 && !f.read(ctx, d, false) {
					return nil
				}
			}
		}
		arm()
		armCheck()
	}
}

// wake reads d after a file event or at a look again, unless its Version
// says nothing was committed since its last read. False when ctx ended.
func (f *Feed) wake(ctx context.Context, d *db) bool {
	if d.conn != nil && d.started && d.verOK {
		if v, ok := d.conn.Version(); ok && v == d.ver {
			return true
		}
	}
	return f.read(ctx, d, false)
}

// read opens d if needed and sends its rows past the cursor (at start-up:
// its present state). It is false when ctx ended.
func (f *Feed) read(ctx context.Context, d *db, startup bool) bool {
	if d.conn == nil {
		conn, err := d.store.Open(d.path)
		if err != nil {
			f.fail(d, err)
			return true
		}
		d.conn, d.seen = conn, true
		f.stats.open.Add(1)
	}
	if !d.started {
		// Each session's rows go out as they are read. A read that fails
		// part-way is read again whole: a session given twice folds the
		// same rows onto the state they made (its parser knows the turn
		// started), the same state.
		cursor, err := d.conn.Current(f.now().Add(-f.cfg.Since), f.cfg.SessionRows, func(rows []parsers.StoreRow) error {
			if !f.send(ctx, d, rows, true, !startup) {
				return ctx.Err()
			}
			return nil
		})
		switch {
		case ctx.Err() != nil:
			return false
		case err != nil:
			f.fail(d, err)
			return true
		}
		d.started, d.cursor = true, cursor
	}
	if startup {
		d.retry, d.failed = 0, ""
		return true
	}
	// The version before the read: a commit after it changes it.
	d.verOK = false
	ver, verOK := d.conn.Version()
	room, held := f.cfg.ReadBytes, int64(0)
	defer func() { f.cfg.LineBudget.Release(held) }()
	for {
		f.stats.reads.Add(1)
		rows, err := d.conn.Changes(d.cursor, batch, room)
		if err != nil {
			f.fail(d, err)
			return true
		}
		n := len(rows)
		var unread *parsers.StoreRow
		if n > 0 && rows[n-1].Line == nil {
			unread, rows = &rows[n-1], rows[:n-1]
		}
		if len(rows) > 0 {
			if !f.send(ctx, d, rows, false, false) {
				return false
			}
			d.cursor = rows[len(rows)-1].Cursor
		}
		// The lines are parsed (and dropped, without Raw): their room is
		// free again.
		clear(rows)
		f.cfg.LineBudget.Release(held)
		room, held = f.cfg.ReadBytes, 0
		if unread != nil {
			switch {
			case unread.Size > int64(f.cfg.MaxLineBytes) || !f.cfg.LineBudget.Reserve(unread.Size, ctx.Done()) && ctx.Err() == nil:
				// Longer than a line may be, or than the whole budget:
				// skipped without being read, as a log reader skips it.
				if !f.send(ctx, d, []parsers.StoreRow{*unread}, false, false) {
					return false
				}
				d.cursor = unread.Cursor
			case ctx.Err() != nil:
				return false
			default:
				room, held = max(unread.Size, f.cfg.ReadBytes), unread.Size
			}
			continue
		}
		if n < batch {
			d.retry, d.failed = 0, ""
			d.ver, d.verOK = ver, verOK
			return true
		}
	}
}

// send turns rows into records. together: the rows are one session's
// present state read after start-up (a replaced database, a reset feed):
// each but the last says more follows, so the relay settles the session
// once, not at every row.
func (f *Feed) send(ctx context.Context, d *db, rows []parsers.StoreRow, bootstrap, together bool) bool {
	for i, r := range rows {
		rec := watcher.Record{Kind: watcher.KindLine, Path: d.path, Agent: d.agent, Session: r.Session,
			Subagent: r.Parent != "", Offset: r.Cursor - 1, End: r.Cursor, Bootstrap: bootstrap, BootMore: together && i < len(rows)-1}
		if r.Line == nil || len(r.Line) > f.cfg.MaxLineBytes {
			f.stats.oversized.Add(1)
			rec.Kind, rec.Count = watcher.KindOversized, 1
		} else {
			ev, err := d.parser.Parse(r.Line)
			rec.Evidence, rec.Malformed = ev, err != nil
			if f.cfg.Raw {
				rec.Raw = r.Line
			}
			if err != nil {
				f.stats.malformed.Add(1)
			}
		}
		f.stats.rows.Add(1)
		select {
		case f.out <- rec:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// fail notes an error: busy is tried again soon; anything else waits for
// the database's next change, logged once until it reads again.
func (f *Feed) fail(d *db, err error) {
	f.stats.errors.Add(1)
	switch {
	case errors.Is(err, parsers.ErrStoreBusy):
		d.retry = min(max(2*d.retry, retryMin), retryMax)
	case errors.Is(err, parsers.ErrStoreDamaged):
		d.retry = min(max(2*d.retry, damagedMin), damagedMax)
		f.close(d) // a file moved over it is opened anew
		if msg := err.Error(); msg != d.failed {
			d.failed = msg
			f.log.Error().Err(err).Str("agent", string(d.agent)).Str("path", d.path).
				Str("fix", "the file is not a database or is corrupt: quit the agent, move the file aside (the agent starts a new one) or restore it from a backup").
				Msg("session database damaged")
		}
		return
	case errors.Is(err, parsers.ErrStoreReset):
		// Its present state again, at once: nothing changed it yet.
		d.started, d.retry = false, retryMin
	default:
		d.retry = 0
		f.close(d) // a schema it does not know may be migrated next
	}
	if msg := err.Error(); msg != d.failed {
		d.failed = msg
		f.log.Warn().Err(err).Str("agent", string(d.agent)).Str("path", d.path).Msg("session database not read")
	}
}

func (f *Feed) close(d *db) {
	d.verOK = false
	if d.conn != nil {
		d.conn.Close()
		d.conn = nil
		f.stats.open.Add(-1)
	}
}

// Split divides the agents' roots into those of log files, for the
// watcher, and those of session databases, for a Feed.
func Split(roots map[parsers.Agent][]string) (logs, stores map[parsers.Agent][]string) {
	logs, stores = map[parsers.Agent][]string{}, map[parsers.Agent][]string{}
	for a, r := range roots {
		if s := parsers.Lookup(a); s != nil && s.Store != nil {
			stores[a] = r
		} else {
			logs[a] = r
		}
	}
	return logs, stores
}
