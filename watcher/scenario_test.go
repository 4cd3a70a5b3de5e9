package watcher

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/parsers/codex"
	"github.com/logwatch/logwatch/pipeline/verify"

	"github.com/logwatch/logwatch/internal/testsupport"
)

const sessA = "11111111-2222-3333-4444-555555555555"

func count(recs []Record, k Kind, path string) int {
	n := 0
	for _, r := range recs {
		if r.Kind == k && r.Path == path {
			n++
		}
	}
	return n
}

func hasIDs(path string, ids ...string) func([]Record) bool {
	return func(recs []Record) bool { return slices.Equal(lineIDs(recs, path), ids) }
}

// syncBuffer collects log output from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLayout: discovery finds transcripts, subagent files (tagged with the
// parent session) and Codex rollouts, ignores other files, and picks up a
// directory created later together with a file written into it at once.
func TestLayout(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	claudeDir := filepath.Join(dir, "claude")
	codexDir := filepath.Join(dir, "codex")
	main := filepath.Join(claudeDir, "proj", sessA+".jsonl")
	sub := filepath.Join(claudeDir, "proj", sessA, "subagents", "agent-a1.jsonl")
	rollout := filepath.Join(codexDir, "2026", "05", "01", "rollout-2026-05-01T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl")
	ignored := []string{
		filepath.Join(claudeDir, "proj", "notes.txt"),
		filepath.Join(claudeDir, "top.jsonl"),
		filepath.Join(claudeDir, "proj", sessA, "tool-results", "x.jsonl"),
		filepath.Join(codexDir, "2026", "05", "01", "other.jsonl"),
	}
	for _, p := range append([]string{main, sub, rollout}, ignored...) {
		mkdir(t, filepath.Dir(p))
		appendFile(t, p, claudeLine("x", 0))
	}
	r := start(t, cfg, testLogger(t))
	r.ready()
	// Created after start: a new project and a new date folder, each with
	// a file written immediately (mkdir -p plus write: one event).
	later := filepath.Join(claudeDir, "new", "deep", "subagents", "agent-b.jsonl")
	mkdir(t, filepath.Dir(later))
	appendFile(t, later, claudeLine("later", 0))
	tomorrow := filepath.Join(codexDir, "2026", "05", "02", "rollout-2026-05-02T00-00-00-0199aaaa-bbbb-7ccc-8ddd-ffffffffffff.jsonl")
	mkdir(t, filepath.Dir(tomorrow))
	appendFile(t, tomorrow, claudeLine("tomorrow", 0))
	recs := r.waitFor("all files", func(recs []Record) bool {
		return len(lineIDs(recs, later)) == 1 && len(lineIDs(recs, tomorrow)) == 1
	})
	want := map[string]struct {
		session  string
		agent    parsers.Agent
		subagent bool
		boot     bool
	}{
		main:     {sessA, claude.Name, false, true},
		sub:      {sessA, claude.Name, true, true},
		rollout:  {"0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", codex.Name, false, true},
		later:    {"deep", claude.Name, true, false},
		tomorrow: {"0199aaaa-bbbb-7ccc-8ddd-ffffffffffff", codex.Name, false, false},
	}
	seen := map[string]bool{}
	for _, rec := range recs {
		w, ok := want[rec.Path]
		if !ok {
			t.Fatalf("unexpected file %s", rec.Path)
		}
		seen[rec.Path] = true
		if rec.Session != w.session || rec.Agent != w.agent || rec.Subagent != w.subagent || rec.Bootstrap != w.boot {
			t.Errorf("%s: got session %q agent %s subagent %v bootstrap %v", rec.Path, rec.Session, rec.Agent, rec.Subagent, rec.Bootstrap)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("saw %d files, want %d", len(seen), len(want))
	}
}

// TestMissingRoot: a root that does not exist yet is waited for.
func TestMissingRoot(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Roots[claude.Name] = []string{filepath.Join(dir, "home", ".claude", "projects")}
	cfg.ReconcileInterval = time.Hour // events alone, no sweep
	cfg.PollInterval = time.Hour
	r := start(t, cfg, testLogger(t))
	r.ready()
	p := filepath.Join(dir, "home", ".claude", "projects", "proj", sessA+".jsonl")
	mkdir(t, filepath.Dir(p))
	appendFile(t, p, claudeLine("first", 0))
	r.waitFor("the line", hasIDs(p, "first"))
}

// TestMissingRootRaced: a `mkdir -p` that makes the root's next level
// while the watcher is setting up its ancestor watches (here: during the
// other root's) does not lose the root. The watch that reports the new
// level stays until the root's watches move down to it.
func TestMissingRootRaced(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Roots[claude.Name] = []string{filepath.Join(dir, "home", ".claude", "projects")}
	cfg.Roots[codex.Name] = []string{filepath.Join(dir, "cx", "codex")}
	cfg.ReconcileInterval = time.Hour // events alone, no sweep
	cfg.PollInterval = time.Hour
	mkdir(t, filepath.Join(dir, "home"))
	mkdir(t, filepath.Join(dir, "cx"))
	r := start(t, cfg, testLogger(t), func(w *Watcher) {
		w.newDirWatcher = func() (dirWatcher, error) {
			dw, err := newFsnotify()
			return &hookedWatcher{dirWatcher: dw, onAdd: func(d string) {
				if d == filepath.Join(dir, "cx") {
					_ = os.Mkdir(filepath.Join(dir, "home", ".claude"), 0o755) // the watcher's goroutine: no t.Fatal
				}
			}}, err
		}
	})
	r.ready()
	p := filepath.Join(dir, "home", ".claude", "projects", "proj", sessA+".jsonl")
	mkdir(t, filepath.Dir(p))
	appendFile(t, p, claudeLine("first", 0))
	r.waitFor("the line", hasIDs(p, "first"))
}

// hookedWatcher is a real directory watcher that calls onAdd after each
// watch it adds.
type hookedWatcher struct {
	dirWatcher
	onAdd func(dir string)
}

func (h *hookedWatcher) Add(dir string) error {
	err := h.dirWatcher.Add(dir)
	h.onAdd(dir)
	return err
}

// TestTruncateDeleteRecreate: the file-level records, in order.
func TestTruncateDeleteRecreate(t *testing.T) {
	dir := t.TempDir()
	r := start(t, testConfig(dir), testLogger(t))
	r.ready()
	p := filepath.Join(dir, "claude", "proj", sessA+".jsonl")
	mkdir(t, filepath.Dir(p))
	appendFile(t, p, claudeLine("a", 0)+claudeLine("b", 0))
	r.waitFor("a b", hasIDs(p, "a", "b"))
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	r.waitFor("reset", func(recs []Record) bool { return count(recs, KindReset, p) == 1 })
	appendFile(t, p, claudeLine("c", 0))
	r.waitFor("c", hasIDs(p, "a", "b", "c"))
	if err := os.WriteFile(p, []byte(claudeLine("rewritten-d", 0)+claudeLine("e", 0)), 0o644); err != nil {
		t.Fatal(err)
	}
	r.waitFor("d e", hasIDs(p, "a", "b", "c", "rewritten-d", "e"))
	// The partial last line of a deleted file is never delivered.
	appendFile(t, p, claudeLine("f", 0)+`{"type":"sys`)
	r.waitFor("f", hasIDs(p, "a", "b", "c", "rewritten-d", "e", "f"))
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	r.waitFor("deleted", func(recs []Record) bool { return count(recs, KindDeleted, p) == 1 })
	appendFile(t, p, claudeLine("g", 0))
	recs := r.waitFor("g", hasIDs(p, "a", "b", "c", "rewritten-d", "e", "f", "g"))
	var kinds []string
	var gens []int
	for _, rec := range recs {
		if rec.Path == p {
			kinds = append(kinds, rec.Kind.String())
			gens = append(gens, rec.Gen)
		}
	}
	wantKinds := []string{"line", "line", "reset", "line", "reset", "line", "line", "line", "deleted", "line"}
	wantGens := []int{0, 0, 1, 1, 2, 2, 2, 2, 2, 3}
	if !slices.Equal(kinds, wantKinds) || !slices.Equal(gens, wantGens) {
		t.Fatalf("kinds %v gens %v\nwant  %v gens %v", kinds, gens, wantKinds, wantGens)
	}
	// Position counts a record once it is handed over, just after it is
	// visible on Records.
	want := Position{Gen: 3, Line: 1, Offset: int64(len(claudeLine("g", 0))), Size: int64(len(claudeLine("g", 0)))}
	deadline := time.Now().Add(waitTimeout)
	for pos, _ := r.w.Position(p); pos != want; pos, _ = r.w.Position(p) {
		if time.Now().After(deadline) {
			t.Fatalf("position %+v, want %+v", pos, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestOversized: lines over the limit are skipped and counted, and the
// lines around them are delivered.
func TestOversized(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.MaxLineBytes = 1000
	p := filepath.Join(dir, "claude", "proj", sessA+".jsonl")
	mkdir(t, filepath.Dir(p))
	appendFile(t, p, claudeLine("a", 0)+claudeLine("big1", 5000))
	r := start(t, cfg, testLogger(t))
	r.ready()
	appendFile(t, p, claudeLine("big2", 1002)+claudeLine("b", 999))
	recs := r.waitFor("b", hasIDs(p, "a", "b"))
	over := 0
	for _, rec := range recs {
		if rec.Kind == KindOversized {
			over += rec.Count
		}
		if rec.Kind == KindLine && rec.Evidence.At == "b" && rec.Line != 4 {
			t.Errorf("b is line %d, want 4", rec.Line)
		}
	}
	if over != 2 || r.w.Stats().Oversized != 2 {
		t.Errorf("oversized %d, stats %d; want 2", over, r.w.Stats().Oversized)
	}
}

// TestRestartCheckpoint: lines written while the watcher is down arrive
// once, as history; the tail before the checkpoint is resent as Replay.
func TestRestartCheckpoint(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	p := filepath.Join(dir, "claude", "proj", sessA+".jsonl")
	mkdir(t, filepath.Dir(p))
	appendFile(t, p, claudeLine("a", 0))
	r := start(t, cfg, testLogger(t))
	r.waitFor("a", hasIDs(p, "a"))
	appendFile(t, p, claudeLine("b", 0)+`{"type":"system","timest`)
	r.waitFor("b", hasIDs(p, "a", "b"))
	r.stop()

	appendFile(t, p, `amp":"c"}`+"\n")
	r = start(t, cfg, testLogger(t))
	r.ready()
	appendFile(t, p, claudeLine("d", 0))
	recs := r.waitFor("d", func(recs []Record) bool { return len(lineIDs(recs, p)) == 4 })
	var got []string
	for _, rec := range recs {
		got = append(got, fmt.Sprintf("%s:%d:boot=%v:replay=%v", rec.Evidence.At, rec.Line, rec.Bootstrap, rec.Replay))
	}
	want := []string{"a:1:boot=true:replay=true", "b:2:boot=true:replay=true", "c:3:boot=true:replay=false", "d:4:boot=false:replay=false"}
	if !slices.Equal(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
}

// TestBootstrapTail: a big file is read from its recent tail only, starting
// at a line boundary; a Codex file's first line (its session_meta) is read
// too, and names the session when the file name does not.
func TestBootstrapTail(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.BootstrapBytes = 4096
	p := filepath.Join(dir, "codex", "2026", "01", "02", "rollout-noid.jsonl")
	mkdir(t, filepath.Dir(p))
	var b strings.Builder
	b.WriteString(`{"timestamp":"meta","type":"session_meta","payload":{"id":"sess-from-meta","cwd":"/w"}}` + "\n")
	for i := range 200 {
		fmt.Fprintf(&b, `{"timestamp":"l%d","type":"event_msg","payload":{"type":"token_count","pad":"%0100d"}}`+"\n", i, 0)
	}
	appendFile(t, p, b.String())
	r := start(t, cfg, testLogger(t))
	r.ready()
	recs := r.waitFor("l199", func(recs []Record) bool {
		ids := lineIDs(recs, p)
		return len(ids) > 0 && ids[len(ids)-1] == "l199"
	})
	ids := lineIDs(recs, p)
	if len(ids) < 20 || len(ids) > 40 || ids[0] != "meta" || ids[len(ids)-1] != "l199" {
		t.Fatalf("bootstrap read %d lines: %v", len(ids), ids)
	}
	for _, rec := range recs {
		if rec.Session != "sess-from-meta" && rec.Evidence.At != "meta" {
			t.Fatalf("record %s: session %q", rec.Evidence.At, rec.Session)
		}
		if rec.Evidence.At != "meta" && rec.Line != 0 {
			t.Fatalf("line numbers are unknown in a tail window, got %d", rec.Line)
		}
		if !rec.Bootstrap {
			t.Fatalf("record %s not bootstrap", rec.Evidence.At)
		}
	}
}

// TestFollowAndPoke: a file outside every root, named before it exists, is
// followed as soon as it appears; its agent comes from its content. Poke
// reads to the end at once, without events.
func TestFollowAndPoke(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.ReconcileInterval, cfg.PollInterval = time.Hour, time.Hour
	p := filepath.Join(dir, "elsewhere", "transcript.jsonl")
	r := start(t, cfg, testLogger(t), func(w *Watcher) {
		w.newDirWatcher = func() (dirWatcher, error) { return silentWatcher(), nil }
	})
	r.ready()
	r.w.Follow(p)
	mkdir(t, filepath.Dir(p))
	appendFile(t, p, claudeLine("x", 0))
	if !r.w.Poke(p) {
		// Not found yet by the loop: Follow's request may still be queued.
		time.Sleep(10 * time.Millisecond)
	}
	recs := r.waitFor("x", func(recs []Record) bool {
		r.w.Poke(p)
		return len(lineIDs(recs, p)) == 1
	})
	if recs[0].Agent != claude.Name || recs[0].Session != "transcript" || recs[0].Bootstrap {
		t.Fatalf("record %+v", recs[0])
	}
	appendFile(t, p, claudeLine("y", 0))
	r.w.Poke(p) // no events at all: only Poke reads it
	r.waitFor("y", hasIDs(p, "x", "y"))
}

// TestFollowNewFileInListedDir: a file created in a directory the watcher
// lists, after that listing, and named by Follow before the watcher found
// it, is new: its lines are live, as the listing would have read them, not
// history. One that existed outside every listed directory when named is
// history.
func TestFollowNewFileInListedDir(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.ReconcileInterval, cfg.PollInterval = time.Hour, time.Hour
	listed := filepath.Join(dir, "claude", "-w-app")
	mkdir(t, listed)
	old := filepath.Join(dir, "elsewhere", "old.jsonl")
	mkdir(t, filepath.Dir(old))
	appendFile(t, old, claudeLine("o", 0))
	r := start(t, cfg, testLogger(t), func(w *Watcher) {
		w.newDirWatcher = func() (dirWatcher, error) { return silentWatcher(), nil }
	})
	r.ready()
	p := filepath.Join(listed, "s.jsonl")
	appendFile(t, p, claudeLine("x", 0))
	r.w.Follow(p) // before any listing or event finds it: none will
	r.w.Follow(old)
	recs := r.waitFor("x and o", func(recs []Record) bool {
		return len(lineIDs(recs, p)) == 1 && len(lineIDs(recs, old)) == 1
	})
	for _, rec := range recs {
		if rec.Kind == KindLine && rec.Bootstrap != (rec.Path == old) {
			t.Errorf("%s: bootstrap %v", rec.Path, rec.Bootstrap)
		}
	}
}

// silentWatcher accepts watches and never reports an event: every event is
// lost.
func silentWatcher() dirWatcher {
	return &fakeWatcher{events: make(chan fsnotify.Event), errs: make(chan error)}
}

type fakeWatcher struct {
	events chan fsnotify.Event
	errs   chan error
	add    func(string) error
}

func (f *fakeWatcher) Add(dir string) error {
	if f.add != nil {
		return f.add(dir)
	}
	return nil
}
func (f *fakeWatcher) Remove(string) error           { return nil }
func (f *fakeWatcher) Events() <-chan fsnotify.Event { return f.events }
func (f *fakeWatcher) Errors() <-chan error          { return f.errs }
func (f *fakeWatcher) Close() error                  { return nil }

// TestLostEventsAndOverflow: with every event lost, the reconcile sweep
// still delivers everything; an overflow triggers a rescan at once.
func TestLostEventsAndOverflow(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.ReconcileInterval = 100 * time.Millisecond
	fw := &fakeWatcher{events: make(chan fsnotify.Event), errs: make(chan error)}
	r := start(t, cfg, testLogger(t), func(w *Watcher) {
		w.newDirWatcher = func() (dirWatcher, error) { return fw, nil }
	})
	r.ready()
	p := filepath.Join(dir, "claude", "new", sessA+".jsonl")
	mkdir(t, filepath.Dir(p))
	appendFile(t, p, claudeLine("a", 0))
	r.waitFor("a via the sweep", hasIDs(p, "a"))
	appendFile(t, p, claudeLine("b", 0))
	fw.errs <- fsnotify.ErrEventOverflow
	r.waitFor("b", hasIDs(p, "a", "b"))
	if r.w.Stats().Overflows != 1 {
		t.Errorf("overflows = %d", r.w.Stats().Overflows)
	}
}

// TestWatchLimit: beyond MaxWatches directories are polled, said once in
// the log, and their files are still followed.
func TestWatchLimit(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.MaxWatches = 3
	cfg.ReconcileInterval = time.Hour
	var logs syncBuffer
	var paths []string
	for i := range 6 {
		p := filepath.Join(dir, "claude", fmt.Sprintf("proj%d", i), sessA+".jsonl")
		mkdir(t, filepath.Dir(p))
		appendFile(t, p, claudeLine("a", 0))
		paths = append(paths, p)
	}
	r := start(t, cfg, zerolog.New(&logs))
	r.ready()
	for _, p := range paths {
		appendFile(t, p, claudeLine("b", 0))
	}
	r.waitFor("every b", func(recs []Record) bool {
		for _, p := range paths {
			if len(lineIDs(recs, p)) != 2 {
				return false
			}
		}
		return true
	})
	if n := strings.Count(logs.String(), "watch limit reached"); n != 1 {
		t.Errorf("limit logged %d times:\n%s", n, logs.String())
	}
	if s := r.w.Stats(); s.Dirs != 7 || s.Watched != 3 || s.Polled != 4 {
		t.Errorf("stats %+v", s)
	}
}

// TestNoWatcher: when no watcher can be had at all, everything is polled and
// the log says so once.
func TestNoWatcher(t *testing.T) {
	dir := t.TempDir()
	var logs syncBuffer
	r := start(t, testConfig(dir), zerolog.New(&logs), func(w *Watcher) {
		w.newDirWatcher = func() (dirWatcher, error) { return nil, fmt.Errorf("inotify_init1: %w", syscall.EMFILE) }
	})
	r.ready()
	p := filepath.Join(dir, "codex", "2026", "01", "01", "rollout-x.jsonl")
	mkdir(t, filepath.Dir(p))
	appendFile(t, p, `{"timestamp":"a","type":"event_msg","payload":{"type":"token_count"}}`+"\n")
	r.waitFor("a", hasIDs(p, "a"))
	if n := strings.Count(logs.String(), "polling every directory"); n != 1 || !r.w.Stats().Polling {
		t.Errorf("polling logged %d times, stats %+v", n, r.w.Stats())
	}
}

// TestUnreadableDir: a directory that cannot be read gets one clear
// warning; the rest keeps working, and it is picked up once readable.
func TestUnreadableDir(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.ReconcileInterval = 50 * time.Millisecond
	bad := filepath.Join(dir, "claude", "locked")
	good := filepath.Join(dir, "claude", "open", sessA+".jsonl")
	badFile := filepath.Join(bad, sessA+".jsonl")
	mkdir(t, bad)
	mkdir(t, filepath.Dir(good))
	appendFile(t, badFile, claudeLine("hidden", 0))
	if err := os.Chmod(bad, 0); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	locked := true
	var logs syncBuffer
	r := start(t, cfg, zerolog.New(&logs), func(w *Watcher) {
		// Root ignores permission bits: deny at the seam as well.
		w.readDir = func(p string) ([]dirEntry, error) {
			mu.Lock()
			l := locked
			mu.Unlock()
			if l && p == bad {
				return nil, &fs.PathError{Op: "open", Path: p, Err: syscall.EACCES}
			}
			return readDirEntries(p)
		}
	})
	r.ready()
	appendFile(t, good, claudeLine("a", 0))
	r.waitFor("a", hasIDs(good, "a"))
	time.Sleep(200 * time.Millisecond) // a few sweeps: still one warning
	if n := strings.Count(logs.String(), "cannot read directory"); n != 1 || !strings.Contains(logs.String(), bad) {
		t.Errorf("warnings: %d\n%s", n, logs.String())
	}
	if err := os.Chmod(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	locked = false
	mu.Unlock()
	r.waitFor("the file once readable", hasIDs(badFile, "hidden"))
}

// TestManyFiles: 10 000 existing files are all discovered and bootstrapped,
// and a write to any of them afterwards is live.
func TestManyFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("10 000 files")
	}
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.ReconcileInterval = time.Hour
	line := claudeLine("old", 200)
	var paths []string
	for d := range 500 {
		pd := filepath.Join(dir, "claude", fmt.Sprintf("proj%03d", d))
		mkdir(t, pd)
		for f := range 20 {
			p := filepath.Join(pd, fmt.Sprintf("s%02d.jsonl", f))
			if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
	}
	r := start(t, cfg, testLogger(t))
	r.ready()
	recs := r.waitFor("every file", func(recs []Record) bool { return len(recs) >= len(paths) })
	if len(recs) != len(paths) {
		t.Fatalf("bootstrapped %d records, want %d", len(recs), len(paths))
	}
	if s := r.w.Stats(); s.Files != len(paths) || s.Watched != 501 || s.Active != 0 {
		t.Errorf("stats %+v", s)
	}
	last := paths[len(paths)-1]
	appendFile(t, last, claudeLine("new", 0))
	got := r.waitFor("live line", func(recs []Record) bool { return len(lineIDs(recs, last)) == 2 })
	if rec := got[len(got)-1]; rec.Bootstrap || rec.Evidence.At != "new" {
		t.Errorf("live record %+v", rec)
	}
}

// TestIdleReopen: an idle reader closes, keeping its position, and the next
// write reopens it.
func TestIdleReopen(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.IdleTimeout = 50 * time.Millisecond
	r := start(t, cfg, testLogger(t))
	r.ready()
	p := filepath.Join(dir, "claude", "proj", sessA+".jsonl")
	mkdir(t, filepath.Dir(p))
	appendFile(t, p, claudeLine("a", 0)+`{"type":"system",`)
	r.waitFor("a", hasIDs(p, "a"))
	deadline := time.Now().Add(waitTimeout)
	for r.w.Stats().Active != 0 {
		if time.Now().After(deadline) {
			t.Fatal("reader never went idle")
		}
		time.Sleep(10 * time.Millisecond)
	}
	appendFile(t, p, `"timestamp":"b"}`+"\n")
	r.waitFor("b", hasIDs(p, "a", "b"))
}

// TestRealworldSameAsVerify: on the real sample logs the watcher reports
// what `logwatch verify` does — they share the line reader and the parsers.
func TestRealworldSameAsVerify(t *testing.T) {
	// Absolute from here on: the watcher reports the paths it follows, and
	// they are compared with verify's.
	rw, err := filepath.Abs(testsupport.Realworld(t, "../../shared/realworld"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Roots[claude.Name] = []string{rw + "/claude"}
	delete(cfg.Roots, codex.Name)
	cfg.BootstrapBytes = 1 << 30 // whole files, to compare line by line
	// Outside the layout: followed by name, agent from the content.
	outside, err := filepath.Glob(rw + "/codex/*.jsonl")
	spawn, err2 := filepath.Glob(rw + "/claude/irrlicht/subagent-spawn/*/subagents/*.jsonl")
	if err != nil || err2 != nil || len(outside) == 0 || len(spawn) == 0 {
		t.Fatal("no samples")
	}
	outside = append(outside, spawn...)
	r := start(t, cfg, testLogger(t), func(w *Watcher) {
		for _, p := range outside {
			w.Follow(p)
		}
	})
	r.ready()
	rep, err := verify.Run([]string{rw + "/claude", rw + "/codex"}, verify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inScope := map[string]bool{}
	for _, p := range outside {
		inScope[p] = true
	}
	type sum struct {
		lines, malformed, interrupts int
		agent                        parsers.Agent
		session                      string
	}
	var checked int
	for _, f := range rep.Files {
		if filepath.Dir(filepath.Dir(f.Path)) != rw+"/claude" && !inScope[f.Path] {
			continue // not a layout the watcher follows
		}
		want := sum{f.Lines - f.Oversized, f.Malformed, len(f.Interrupts), f.Agent, ""}
		recs := r.waitFor(f.Path, func(recs []Record) bool { return len(lineIDsAll(recs, f.Path)) >= want.lines })
		var got sum
		for _, rec := range recs {
			if rec.Path != f.Path || rec.Kind != KindLine {
				continue
			}
			got.lines++
			if rec.Malformed {
				got.malformed++
			}
			if rec.Evidence.Kind == parsers.KindInterrupt {
				got.interrupts++
			}
			got.agent, got.session = rec.Agent, rec.Session
		}
		if got.lines != want.lines || got.malformed != want.malformed || got.interrupts != want.interrupts || got.agent != want.agent {
			t.Errorf("%s: watcher %+v, verify %+v", f.Path, got, want)
		}
		if (f.Agent == codex.Name || f.Subagent) && f.SessionID != "" && got.session != f.SessionID {
			t.Errorf("%s: session %q, verify %q", f.Path, got.session, f.SessionID)
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("checked %d files", checked)
	}
}

func lineIDsAll(recs []Record, path string) []Record {
	var l []Record
	for _, r := range recs {
		if r.Kind == KindLine && r.Path == path {
			l = append(l, r)
		}
	}
	return l
}

// TestNotALogUnderARoot: a JSONL in a Claude project folder that holds
// nothing an agent writes (captured hook payloads, say) is read and counted
// but belongs to no session, as verify reports it agent unknown; the first
// line an agent writes makes it the root's agent's log.
func TestNotALogUnderARoot(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	r := start(t, cfg, testLogger(t))
	r.ready()
	p := filepath.Join(dir, "claude", "proj", "hook-payloads.jsonl")
	mkdir(t, filepath.Dir(p))
	appendFile(t, p, `{"t":"2026-12-01T06:47:22Z","tab":"s1","payload":{"session_id":"s","hook_event_name":"SessionStart"}}`+"\n"+
		`{"t":"2026-12-01T06:47:24Z","tab":"s1","payload":{"session_id":"s","hook_event_name":"Stop"}}`+"\n")
	recs := r.waitFor("payload lines", func(recs []Record) bool { return len(lineIDsAll(recs, p)) == 2 })
	for _, rec := range lineIDsAll(recs, p) {
		if rec.Agent != parsers.AgentUnknown || rec.Session != "" || rec.Evidence.Kind != parsers.KindNone || rec.Malformed {
			t.Errorf("line %d: %+v", rec.Line, rec)
		}
	}
	appendFile(t, p, claudeLine("real", 0)+claudeLine("after", 0))
	recs = r.waitFor("agent lines", func(recs []Record) bool { return len(lineIDsAll(recs, p)) == 4 })
	for _, rec := range lineIDsAll(recs, p)[2:] {
		if rec.Agent != claude.Name || rec.Session != "hook-payloads" || rec.Evidence.Type != "system/informational" {
			t.Errorf("line %d after an agent line: %+v", rec.Line, rec)
		}
	}
}

// TestReaderReuse: one start-up worker reads every file with the same
// reader, parsers and buffers, and no file inherits anything from the one
// before it: each Codex rollout named without an id is named by its own
// first session_meta, not taken for a fork of the previous file's session.
func TestReaderReuse(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Workers = 1
	day := filepath.Join(dir, "codex", "2026", "01", "02")
	mkdir(t, day)
	want := map[string]string{}
	for _, name := range []string{"a", "b", "c"} {
		p := filepath.Join(day, "rollout-noid-"+name+".jsonl")
		appendFile(t, p, `{"timestamp":"meta","type":"session_meta","payload":{"id":"sess-`+name+`","cwd":"/w"}}`+"\n"+
			`{"timestamp":"`+name+`1","type":"event_msg","payload":{"type":"task_started"}}`+"\n")
		want[p] = "sess-" + name
	}
	r := start(t, cfg, testLogger(t))
	r.ready()
	recs := r.waitFor("every file's second line", func(recs []Record) bool {
		n := 0
		for _, rec := range recs {
			if rec.Kind == KindLine && rec.Line == 2 {
				n++
			}
		}
		return n == len(want)
	})
	for _, rec := range recs {
		if rec.Kind == KindLine && rec.Line == 2 && rec.Session != want[rec.Path] {
			t.Errorf("%s: session %q, want %q", filepath.Base(rec.Path), rec.Session, want[rec.Path])
		}
	}
}
