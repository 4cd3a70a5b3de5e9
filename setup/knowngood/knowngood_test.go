package knowngood

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/safeopen"
)

func TestAddAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "known-good.json")
	r, err := Read(path)
	if err != nil || len(r) != 0 {
		t.Fatalf("missing file: %v %v", r, err)
	}
	at := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	for _, v := range []string{"2.1.333", "2.1.334"} {
		if err := Add(path, "claude", v, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := Add(path, "codex", "0.172.0", at); err != nil {
		t.Fatal(err)
	}
	r, err = Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Has("claude", "2.1.333") || r.Has("claude", "2.1.335") || !slices.Equal(r.Versions("claude"), []string{"2.1.333", "2.1.334"}) || !r.Has("codex", "0.172.0") {
		t.Fatalf("record %v", r)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
}

// TestBadFile: a corrupt record is an error to Read and is replaced by
// Add; a FIFO in its place is never opened for writing through.
func TestBadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "known-good.json")
	os.WriteFile(path, []byte("{not json"), 0o600)
	if _, err := Read(path); err == nil {
		t.Fatal("corrupt file read without error")
	}
	if err := Add(path, "claude", "1.0.0", time.Now()); err != nil {
		t.Fatal(err)
	}
	if r, err := Read(path); err != nil || !r.Has("claude", "1.0.0") {
		t.Fatalf("after replacing: %v %v", r, err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { done <- Add(fifo, "claude", "1.0.0", time.Now()) }()
	select {
	case err := <-done:
		if !errors.Is(err, safeopen.ErrNotRegular) {
			t.Fatalf("FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Add blocked on a FIFO")
	}
}
