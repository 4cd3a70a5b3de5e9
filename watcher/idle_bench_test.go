package watcher

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rs/zerolog"
)

// BenchmarkIdleFiles is the heap a watcher holds per file once start-up
// has read every file and they all sit idle, as most of 10 000 sessions'
// logs do for most of a daemon's life (bench/run daemon measures the whole
// daemon's RSS).
func BenchmarkIdleFiles(b *testing.B) {
	const files, dirs = 2000, 100
	dir := b.TempDir()
	for i := 0; i < files; i++ {
		d := filepath.Join(dir, "claude", fmt.Sprintf("-w-p%03d", i%dirs))
		if i < dirs {
			mkdir(b, d)
		}
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		if err := os.WriteFile(filepath.Join(d, id+".jsonl"), []byte(claudeLine("a", 200)+claudeLine("b", 200)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	mkdir(b, filepath.Join(dir, "codex"))
	cfg := testConfig(dir)
	cfg.CheckpointFile = ""
	perFile := -1.0 // the least over the iterations: garbage a collection missed only adds
	b.ReportAllocs()
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		w, err := New(cfg, zerolog.Nop())
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		go func() {
			for range w.Records() {
			}
		}()
		<-w.Ready()
		for w.Stats().Active > 0 { // the start-up readers are finishing
			runtime.Gosched()
		}
		if n := w.Stats().Files; n != files {
			b.Fatalf("%d files known, want %d", n, files)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if d := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / files; perFile < 0 || d < perFile {
			perFile = d
		}
		cancel()
		if err := <-done; err != nil && err != context.Canceled {
			b.Fatal(err)
		}
	}
	b.ReportMetric(perFile, "heapB/file")
}
