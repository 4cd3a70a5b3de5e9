package watcher

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/parsers/lines"
	"github.com/logwatch/logwatch/watcher/follow"
)

// TestRefusedBatchIsReadAgain forces the interleaving behind a lost-lines
// failure of TestModel: the watcher stops while a reader holds a batch it has
// read but not delivered, and the reader reads once more before it notices.
// The follower had moved past the refused lines, so the next batch started
// after them and the position (and the checkpoint written at shutdown)
// skipped them; the next run then took them for delivered. Here the second
// read runs with a live context, as a reader whose follower was not rewound
// would after any refused or failed batch.
func TestRefusedBatchIsReadAgain(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "claude", "p")
	mkdir(t, proj)
	path := filepath.Join(proj, sessA+".jsonl")
	appendFile(t, path, claudeLine("a", 0)+claudeLine("b", 0)+claudeLine("c", 0))

	w, err := New(testConfig(dir), testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	f := w.newFile(path, nil, claude.Name, true, nil)
	w.mu.Unlock()
	r := w.newReader(f)
	defer r.closeFile()

	// Stopped, with room on the channel: nothing may be handed over, and
	// the position stays where delivery stopped.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w.ctx, w.out = ctx, make(chan Record, 16)
	r.read()
	if n := len(w.out); n != 0 {
		t.Fatalf("%d records handed over after the watcher stopped", n)
	}
	if p := f.position(); p.offset != 0 {
		t.Fatalf("position %d after a refused batch, want 0", p.offset)
	}

	appendFile(t, path, claudeLine("d", 0))
	w.ctx = context.Background()
	r.read()
	close(w.out)
	var ids []string
	var end int64
	for rec := range w.out {
		if rec.Kind != KindLine {
			continue
		}
		if rec.Offset != end {
			t.Errorf("line %s at %d, previous line ended at %d", rec.Evidence.At, rec.Offset, end)
		}
		ids = append(ids, rec.Evidence.At)
		end = rec.End
	}
	if got := strings.Join(ids, ","); got != "a,b,c,d" {
		t.Fatalf("lines %s, want a,b,c,d", got)
	}
	if p := f.position(); p.offset != end {
		t.Fatalf("position %d, want %d", p.offset, end)
	}
}

// failingOpener's followers fail once, after returning after lines in all.
type failingOpener struct {
	follow.Opener
	after, n int
	failed   bool
}

func (o *failingOpener) Open(f *os.File, off int64, num int) (follow.Follower, error) {
	fol, err := o.Opener.Open(f, off, num)
	return &failingFollower{Follower: fol, o: o}, err
}

type failingFollower struct {
	follow.Follower
	o *failingOpener
}

func (f *failingFollower) Next() (lines.Line, error) {
	if !f.o.failed && f.o.n == f.o.after {
		f.o.failed = true
		return lines.Line{}, errors.New("injected read error")
	}
	l, err := f.Follower.Next()
	if err == nil {
		f.o.n++
	}
	return l, err
}

// TestReadErrorMidBatch: lines read before a read error are delivered by the
// next read, not skipped.
func TestReadErrorMidBatch(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "claude", "p")
	mkdir(t, proj)
	path := filepath.Join(proj, sessA+".jsonl")
	appendFile(t, path, claudeLine("a", 0)+claudeLine("b", 0)+claudeLine("c", 0))

	w, err := New(testConfig(dir), testLogger(t), WithOpener(&failingOpener{Opener: follow.NewReaders(0), after: 2}))
	if err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	f := w.newFile(path, nil, claude.Name, true, nil)
	w.mu.Unlock()
	r := w.newReader(f)
	defer r.closeFile()
	w.ctx, w.out = context.Background(), make(chan Record, 16)
	r.read() // fails after a and b
	r.read()
	close(w.out)
	var ids []string
	for rec := range w.out {
		ids = append(ids, rec.Evidence.At)
	}
	if got := strings.Join(ids, ","); got != "a,b,c" {
		t.Fatalf("lines %s, want a,b,c", got)
	}
}
