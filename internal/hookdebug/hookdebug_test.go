package hookdebug

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// TestBounded: the file never grows past MaxBytes, keeps whole lines, and
// its last line is the newest drop.
func TestBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "debug.log")
	at := time.Date(2026, 12, 4, 23, 0, 0, 0, time.UTC)
	for i := range 3000 {
		if err := Record(p, at, "pi", fmt.Sprintf("no daemon: attempt %d\nsecond line", i), time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(p); err != nil || fi.Size() > MaxBytes {
			t.Fatalf("after %d: %v bytes, %v", i, fi.Size(), err)
		}
	}
	lines, err := Last(p, 3)
	if err != nil || len(lines) != 3 {
		t.Fatalf("%q %v", lines, err)
	}
	want := "2026-12-04T23:00:00Z pi took 1ms: no daemon: attempt 2999 second line"
	if lines[2] != want {
		t.Errorf("last %q, want %q", lines[2], want)
	}
	b, _ := os.ReadFile(p)
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(l, "2026-12-04T23:00:00Z pi took") {
			t.Fatalf("a cut line: %q", l)
		}
	}
}

// TestRecordRefusesNonFiles: the file is appended to only if it is a
// regular file: a symlink (to a file the user cares about) is not followed,
// and a FIFO, with or without a reader, is never waited on nor written.
func TestRecordRefusesNonFiles(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 12, 5, 4, 0, 0, 0, time.UTC)
	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.log")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Record(link, at, "pi", "x", 0); err == nil {
		t.Error("appended through a symlink")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("the link's target changed: %q", b)
	}
	fifo := filepath.Join(dir, "fifo.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Record(fifo, at, "pi", "x", 0) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("wrote to a FIFO with no reader")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Record waited on a FIFO with no reader")
	}
	// With a reader holding it open, the open succeeds: the type check refuses.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Record(fifo, at, "pi", "x", 0); !errors.Is(err, safeopen.ErrNotRegular) {
		t.Errorf("a FIFO with a reader: %v, want not a regular file", err)
	}
	if _, err := Last(fifo, 1); !errors.Is(err, safeopen.ErrNotRegular) {
		t.Errorf("Last on a FIFO: %v, want not a regular file", err)
	}
}

// TestAt reads a line's time; a line that is not the file's is none.
func TestAt(t *testing.T) {
	if at, ok := At("2026-12-04T23:00:00.5Z pi took 1ms: no daemon: x"); !ok || !at.Equal(time.Date(2026, 12, 4, 23, 0, 0, 5e8, time.UTC)) {
		t.Errorf("%v %v", at, ok)
	}
	for _, l := range []string{"", "garbage", "2026-12-04 pi"} {
		if _, ok := At(l); ok {
			t.Errorf("%q read as a time", l)
		}
	}
}
