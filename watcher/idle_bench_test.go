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
// daemon's RSS). heapB/file includes the watcher's fixed heap (most of it
// the Records channel's buffer) shared by the files; netB/file leaves out
// the heap of a watcher with no files; startB/file is what reading the
// files at start-up allocated.
func BenchmarkIdleFiles(b *testing.B) { benchIdleFiles(b, false) }

// BenchmarkIdleFilesRestart is the same after a restart: every file is
// resumed from the checkpoint a first watcher wrote, as the daemon's are
// each time it starts.
func BenchmarkIdleFilesRestart(b *testing.B) { benchIdleFiles(b, true) }

func benchIdleFiles(b *testing.B, restart bool) {
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
	if !restart {
		cfg.CheckpointFile = ""
	}
	empty := testConfig(b.TempDir())
	empty.CheckpointFile = ""
	// run starts a watcher and waits until it idles; stop ends it, writing
	// the checkpoint.
	run := func(cfg Config, files int) (w *Watcher, stop func()) {
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
		return w, func() {
			cancel()
			if err := <-done; err != nil && err != context.Canceled {
				b.Fatal(err)
			}
		}
	}
	if restart {
		_, stop := run(cfg, files)
		stop()
		if _, err := os.Stat(cfg.CheckpointFile); err != nil {
			b.Fatal(err)
		}
	}
	// Two collections: the first moves sync.Pool contents to the victim
	// cache, the second frees them.
	live := func(m *runtime.MemStats) {
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(m)
	}
	// heap is what a running watcher holds, the least over n runs: garbage
	// a collection missed only adds; alloc is what its start-up allocated.
	heap := func(cfg Config, files, n int) (held, alloc float64) {
		held = -1
		for range n {
			var before, after runtime.MemStats
			live(&before)
			_, stop := run(cfg, files)
			live(&after)
			if d := float64(int64(after.HeapAlloc) - int64(before.HeapAlloc)); held < 0 || d < held {
				held, alloc = d, float64(after.TotalAlloc-before.TotalAlloc)
			}
			stop()
		}
		return held, alloc
	}
	fixed, _ := heap(empty, 0, 3)
	perFile, alloc := -1.0, 0.0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if d, a := heap(cfg, files, 1); perFile < 0 || d < perFile {
			perFile, alloc = d, a
		}
	}
	b.ReportMetric(perFile/files, "heapB/file")
	b.ReportMetric((perFile-fixed)/files, "netB/file")
	// Start-up garbage is what leaves partly used spans behind it.
	b.ReportMetric(alloc/files, "startB/file")
}
