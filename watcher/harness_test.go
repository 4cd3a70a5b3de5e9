package watcher

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/parsers/codex"
	"github.com/rs/zerolog"
)

// waitTimeout bounds every wait for delivery. Tests never assert speed.
const waitTimeout = 10 * time.Second

// run is one running Watcher whose records are collected.
type run struct {
	t      testing.TB
	w      *Watcher
	cancel context.CancelFunc
	done   chan error

	mu   sync.Mutex
	recs []Record
	more chan struct{}
}

func testConfig(dir string) Config {
	return Config{
		Roots: map[parsers.Agent][]string{
			claude.Name: {filepath.Join(dir, "claude")},
			codex.Name:  {filepath.Join(dir, "codex")},
		},
		ReconcileInterval: 200 * time.Millisecond,
		PollInterval:      50 * time.Millisecond,
		IdleTimeout:       time.Minute,
		CheckpointFile:    filepath.Join(dir, "state", "checkpoint.json"),
	}
}

// testLogger logs to the test, so warnings show with -v or on failure.
func testLogger(t testing.TB) zerolog.Logger {
	return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.InfoLevel)
}

func start(t testing.TB, cfg Config, log zerolog.Logger, setup ...func(*Watcher)) *run {
	t.Helper()
	w, err := New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range setup {
		s(w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &run{t: t, w: w, cancel: cancel, done: make(chan error, 1), more: make(chan struct{}, 1)}
	go func() { r.done <- w.Run(ctx) }()
	go func() {
		for rec := range w.Records() {
			r.mu.Lock()
			r.recs = append(r.recs, rec)
			r.mu.Unlock()
			select {
			case r.more <- struct{}{}:
			default:
			}
		}
		close(r.more)
	}()
	t.Cleanup(func() { r.stop() })
	return r
}

// stop ends the run and waits until every record has been collected.
func (r *run) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	select {
	case err := <-r.done:
		if err != nil {
			r.t.Errorf("Run: %v", err)
		}
	case <-time.After(waitTimeout):
		r.t.Fatal("Run did not return")
	}
	for range r.more {
	}
}

func (r *run) records() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Record(nil), r.recs...)
}

// waitFor waits until cond holds for the records collected so far.
func (r *run) waitFor(what string, cond func([]Record) bool) []Record {
	r.t.Helper()
	deadline := time.After(waitTimeout)
	for {
		recs := r.records()
		if cond(recs) {
			return recs
		}
		select {
		case <-r.more:
		case <-deadline:
			r.t.Fatalf("timed out waiting for %s; got %d records", what, len(recs))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (r *run) ready() {
	r.t.Helper()
	select {
	case <-r.w.Ready():
	case <-time.After(waitTimeout):
		r.t.Fatal("watcher not ready")
	}
}

// lines returns the ids (Evidence.At) of the line records for path.
func lineIDs(recs []Record, path string) []string {
	var ids []string
	for _, r := range recs {
		if r.Kind == KindLine && r.Path == path {
			ids = append(ids, r.Evidence.At)
		}
	}
	return ids
}

// claudeLine is a transcript line whose Evidence.At is id, padded to about
// size bytes.
func claudeLine(id string, size int) string {
	const format = `{"type":"system","subtype":"informational","timestamp":%q,"sessionId":"s","pad":%q}` + "\n"
	pad := max(size-len(format)-len(id), 0)
	return fmt.Sprintf(format, id, strings.Repeat("x", pad))
}

func appendFile(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t testing.TB, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
}
