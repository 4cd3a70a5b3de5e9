package registry

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestFIFOEntry: a FIFO named <pid>.json, in the directory at start-up and
// created while the watcher runs, is refused once (counted, logged), never
// waited on: a registry file written after it is still delivered, and the
// watcher stops at once.
func TestFIFOEntry(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	early := filepath.Join(dir, "11.json")
	if err := syscall.Mkfifo(early, 0o600); err != nil {
		t.Fatal(err)
	}
	s := sink{ch: make(chan string, 64)}
	w := New(claudeRoots(dir), s, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	late := filepath.Join(dir, "12.json")
	// Whatever the outcome, a reader stuck opening a FIFO is let go.
	t.Cleanup(func() {
		for _, p := range []string{early, late} {
			if fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				syscall.Close(fd)
			}
		}
	})
	select {
	case <-w.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("the FIFO there at start-up blocked the first listing")
	}
	if err := syscall.Mkfifo(late, 0o600); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "13.json"), []byte(entry(13, "idle")), 0o600)
	if got := s.next(t); got != "entry 13 s13 idle" {
		t.Fatalf("got %q", got)
	}
	// A writer's events at the FIFO are refused again, not logged again.
	if fd, err := syscall.Open(late, syscall.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
		syscall.Write(fd, []byte("x"))
		syscall.Close(fd)
	}
	s.none(t, dir)
	if n := w.Stats.Refused.Load(); n != 2 {
		t.Errorf("refused %d, want 2 (each FIFO once)", n)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not stop")
	}
}
