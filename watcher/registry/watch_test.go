package registry

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/rs/zerolog"
)

// sink collects deliveries as "entry PID STATUS" and "removed NAME".
type sink struct{ ch chan string }

func (s sink) RegistryEntry(e Entry) {
	s.ch <- fmt.Sprintf("entry %d %s %s", e.Pid, e.SessionID, e.Status)
}
func (s sink) RegistryRemoved(p string) { s.ch <- "removed " + filepath.Base(p) }

func (s sink) next(t *testing.T) string {
	t.Helper()
	select {
	case v := <-s.ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery")
		return ""
	}
}

// none asserts nothing more is delivered by the time a marker file written
// after the action is.
func (s sink) none(t *testing.T, dir string) {
	t.Helper()
	marker := filepath.Join(dir, "999999.json")
	os.WriteFile(marker, []byte(`{"pid":999999,"sessionId":"marker"}`), 0o600)
	if got := s.next(t); got != "entry 999999 marker " {
		t.Fatalf("unexpected delivery %q", got)
	}
	os.Remove(marker)
	if got := s.next(t); got != "removed 999999.json" {
		t.Fatalf("unexpected delivery %q", got)
	}
}

func start(t *testing.T, roots ...string) (sink, *Watcher) {
	t.Helper()
	s := sink{ch: make(chan string, 64)}
	w := New(claudeRoots(roots...), s, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	<-w.Ready()
	return s, w
}

func entry(pid int, status string) string {
	return fmt.Sprintf(`{"pid":%d,"sessionId":"s%d","procStart":"1","status":%q,"statusUpdatedAt":%d}`, pid, pid, status, time.Now().UnixNano())
}

// Claude Code 2.1.328's own write pattern: create, write, rewrite in place
// (write then truncate, each an event), remove at exit; .key files and
// temporaries beside the entries.
func TestWatchLifecycle(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "sessions")
	s, w := start(t, dir) // not there yet: waited for
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "7.abc.key.tmp.1"), []byte(`{"peerToken":"x"}`), 0o600)
	os.Rename(filepath.Join(dir, "7.abc.key.tmp.1"), filepath.Join(dir, "7.abc.key"))
	p := filepath.Join(dir, "7.json")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	// Created empty first: nothing yet; then written.
	f.WriteString(entry(7, "idle"))
	if got := s.next(t); got != "entry 7 s7 idle" {
		t.Fatalf("got %q", got)
	}
	// A longer status, then a shorter one written over it before the
	// truncate: the half-written read is skipped, the whole one delivered.
	f.WriteAt([]byte(entry(7, "waiting")[:len(entry(7, "waiting"))-1]+`,"waitingFor":"permission prompt"}`), 0)
	if got := s.next(t); got != "entry 7 s7 waiting" {
		t.Fatalf("got %q", got)
	}
	short := entry(7, "busy")
	f.WriteAt([]byte(short), 0)
	f.Truncate(int64(len(short)))
	if got := s.next(t); got != "entry 7 s7 busy" {
		t.Fatalf("got %q", got)
	}
	// The same content written again is not delivered again.
	f.WriteAt([]byte(short), 0)
	s.none(t, dir)
	f.Close()
	if n := w.Stats.Entries.Load(); n != 1 {
		t.Errorf("%d entries, want 1", n)
	}
	os.Remove(p)
	if got := s.next(t); got != "removed 7.json" {
		t.Fatalf("got %q", got)
	}
	s.none(t, dir)
}

// An atomic rewrite (temporary file renamed over the entry) is one change;
// an invalid file delivers nothing until it is whole, and the entry read
// before stays.
func TestWatchRenameOverAndInvalid(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "8.json"), []byte(entry(8, "idle")), 0o600)
	os.WriteFile(filepath.Join(dir, "9.json"), []byte(`{"pid":9,`), 0o600)
	s, w := start(t, dir)
	if got := s.next(t); got != "entry 8 s8 idle" {
		t.Fatalf("got %q", got)
	}
	tmp := filepath.Join(dir, "8.json.tmp")
	os.WriteFile(tmp, []byte(entry(8, "busy")), 0o600)
	os.Rename(tmp, filepath.Join(dir, "8.json"))
	if got := s.next(t); got != "entry 8 s8 busy" {
		t.Fatalf("got %q", got)
	}
	os.WriteFile(filepath.Join(dir, "9.json"), []byte(entry(9, "idle")), 0o600)
	if got := s.next(t); got != "entry 9 s9 idle" {
		t.Fatalf("got %q", got)
	}
	if w.Stats.Incomplete.Load() == 0 {
		t.Error("the half-written file was not counted")
	}
	// A file renamed away is gone.
	os.Rename(filepath.Join(dir, "9.json"), filepath.Join(dir, "9.old"))
	if got := s.next(t); got != "removed 9.json" {
		t.Fatalf("got %q", got)
	}
	s.none(t, dir)
}

// The directory removed or renamed away takes its entries with it; created
// again under its name, it is watched afresh, and a write in the folder it
// was renamed to is not taken for the root's.
func TestWatchRootGoneAndBack(t *testing.T) {
	for _, tt := range []struct {
		name  string
		gone  func(dir, base string) error
		moved string // where the folder went, under base ("" when removed)
	}{
		{"removed", func(dir, _ string) error { return os.RemoveAll(dir) }, ""},
		{"renamed", func(dir, base string) error { return os.Rename(dir, filepath.Join(base, "old")) }, "old"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "sessions")
			os.MkdirAll(dir, 0o700)
			os.WriteFile(filepath.Join(dir, "5.json"), []byte(entry(5, "idle")), 0o600)
			s, _ := start(t, dir)
			if got := s.next(t); got != "entry 5 s5 idle" {
				t.Fatalf("got %q", got)
			}
			if err := tt.gone(dir, base); err != nil {
				t.Fatal(err)
			}
			if got := s.next(t); got != "removed 5.json" {
				t.Fatalf("got %q", got)
			}
			os.MkdirAll(dir, 0o700)
			os.WriteFile(filepath.Join(dir, "6.json"), []byte(entry(6, "busy")), 0o600)
			if got := s.next(t); got != "entry 6 s6 busy" {
				t.Fatalf("got %q", got)
			}
			if tt.moved != "" {
				os.WriteFile(filepath.Join(base, tt.moved, "7.json"), []byte(entry(7, "busy")), 0o600)
			}
			s.none(t, dir)
		})
	}
}

// claudeRoots are dirs in Claude Code's registry format, the one real
// agent that keeps a registry.
func claudeRoots(dirs ...string) []Root {
	var out []Root
	for _, d := range dirs {
		out = append(out, Root{Dir: d, Format: claude.Spec().Registry})
	}
	return out
}
