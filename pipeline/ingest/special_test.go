package ingest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/watcher"
)

// TestReadRawRefusesFIFO: a recording daemon reads each line back from its
// log by name; a FIFO renamed over the log between the watcher's read and
// the pump's is refused (no bytes), not waited on in open(2).
func TestReadRawRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte("{\"a\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string]*os.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	rec := watcher.Record{Kind: watcher.KindLine, Path: path, Offset: 0, End: 8}
	if b := readRaw(files, rec); string(b) != `{"a":1}` {
		t.Fatalf("regular: %q", b)
	}
	fifo := filepath.Join(dir, "f.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // lets a reader stuck in open go
		if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			syscall.Close(fd)
		}
	})
	done := make(chan []byte, 1)
	rec.Path = fifo
	go func() { done <- readRaw(files, rec) }()
	select {
	case b := <-done:
		if b != nil {
			t.Fatalf("FIFO: %q", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("readRaw blocked on a FIFO")
	}
}
