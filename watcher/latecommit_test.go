package watcher

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestCheckpointAfterLateCommit: a consumer that commits after the barrier
// gave up has still handed over (and so cleared) its "changed" flag. The
// next checkpoint must then be written even if the consumer now reports
// nothing changed, or that change is in no checkpoint until the next one.
func TestCheckpointAfterLateCommit(t *testing.T) {
	old := barrierWait
	barrierWait = 50 * time.Millisecond // the consumer is made late, not timed
	t.Cleanup(func() { barrierWait = old })
	cfg := testConfig(t.TempDir())
	cfg.SaveState = true
	w, err := New(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	save := func() <-chan error {
		done := make(chan error, 1)
		go func() { done <- w.saveCheckpoint(false) }()
		return done
	}
	barrier := func() *Checkpoint {
		for rec := range w.Records() {
			if rec.Kind == KindCheckpoint {
				return rec.Checkpoint
			}
		}
		t.Fatal("records closed")
		return nil
	}

	done := save()
	c := barrier()
	if err := <-done; err == nil {
		t.Fatal("a barrier nobody committed in time did not fail")
	}
	c.Commit([]byte(`{"late":true}`), nil, true) // too late: the watcher gave up

	done = save()
	barrier().Commit([]byte(`{"late":true}`), nil, false)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(cfg.CheckpointFile)
	if err != nil {
		t.Fatalf("no checkpoint after the late commit: %v", err)
	}
	if want := `"state":{"late":true}`; !strings.Contains(string(b), want) {
		t.Fatalf("checkpoint %s lacks %s", b, want)
	}
}
