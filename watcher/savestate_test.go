package watcher

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// foldTo is a consumer that folds lines up to a limit per run: it commits
// marks only for what it folded, as a consumer that is behind the readers
// would.
type foldTo struct {
	w     *Watcher
	state []byte   // KindState of this run
	lines []string // "line:replay:bootstrap" of each KindLine
}

func runSaveState(t *testing.T, cfg Config, commitUpTo int, state string) *foldTo {
	t.Helper()
	w, err := New(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	c := &foldTo{w: w}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	var mark *Mark
	path := ""
	for rec := range w.Records() {
		switch rec.Kind {
		case KindState:
			c.state = rec.State
		case KindLine:
			c.lines = append(c.lines, fmt.Sprintf("%d:%v:%v", rec.Line, rec.Replay, rec.Bootstrap))
			if rec.Line <= commitUpTo {
				mark, path = &Mark{Gen: rec.Gen, End: rec.End, Line: rec.Line}, rec.Path
			}
			if len(c.lines) == 10 && !rec.Replay || rec.Line == 10 {
				cancel() // everything read: stop, which checkpoints through this loop
			}
		case KindCheckpoint:
			marks := map[string]Mark{}
			if mark != nil {
				marks[path] = *mark
			}
			rec.Checkpoint.Commit([]byte(state), marks, true)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	cancel()
	return c
}

// TestSaveStateCheckpoint: with SaveState the checkpoint holds the
// consumer's state and the position it folded (not how far the readers
// got); the next run hands the state back first, resends what the
// consumer had folded as Replay, and the rest as first deliveries.
func TestSaveStateCheckpoint(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.SaveState = true
	cfg.CheckpointInterval = time.Hour // only the final checkpoint
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		b.WriteString(claudeLine(fmt.Sprintf("l%d", i), 10))
	}
	mkdir(t, filepath.Join(dir, "claude", "-w"))
	appendFile(t, filepath.Join(dir, "claude", "-w", "s1.jsonl"), b.String())

	var sizes []int64
	cfg.AfterCheckpoint = func(n int64) { sizes = append(sizes, n) }
	first := runSaveState(t, cfg, 4, `{"folded":4}`)
	if first.state != nil || len(first.lines) != 10 {
		t.Fatalf("first run: state %q, %d lines", first.state, len(first.lines))
	}
	// Run has returned: the final checkpoint is written and reported.
	if fi, err := os.Stat(cfg.CheckpointFile); err != nil || len(sizes) != 1 || sizes[0] != fi.Size() {
		t.Fatalf("AfterCheckpoint told %v, checkpoint file %v (%v)", sizes, fi, err)
	}
	cfg.AfterCheckpoint = nil
	second := runSaveState(t, cfg, 10, `{"folded":10}`)
	if string(second.state) != `{"folded":4}` {
		t.Fatalf("second run got state %q", second.state)
	}
	want := "1:true:true 2:true:true 3:true:true 4:true:true 5:false:true 6:false:true 7:false:true 8:false:true 9:false:true 10:false:true"
	if got := strings.Join(second.lines, " "); got != want {
		t.Fatalf("second run lines\n got  %s\n want %s", got, want)
	}
}
