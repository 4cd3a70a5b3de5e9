package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/watcher"
)

// latency: append one line to a watched transcript, time until its record
// arrives; the baseline is fsnotify's own write→event round trip.
func latency(args []string) error {
	fs := flag.NewFlagSet("latency", flag.ExitOnError)
	dir := fs.String("dir", "", "scratch directory")
	n := fs.Int("n", 300, "appends")
	_ = fs.Parse(args)
	if err := os.RemoveAll(*dir); err != nil {
		return err
	}
	base, err := fsnotifyRoundTrip(filepath.Join(*dir, "raw"), *n)
	if err != nil {
		return err
	}
	got, err := watcherLatency(filepath.Join(*dir, "claude"), *n)
	if err != nil {
		return err
	}
	fmt.Printf("latency: append one line -> record delivered, %d appends\n", *n)
	fmt.Printf("  baseline fsnotify write->event       p50 %s  p99 %s\n", ms(pct(base, 50)), ms(pct(base, 99)))
	fmt.Printf("  watcher write->record                p50 %s  p99 %s  (p99 ratio to baseline %.1fx)\n",
		ms(pct(got, 50)), ms(pct(got, 99)), float64(pct(got, 99))/float64(max(pct(base, 99), 1)))
	verdict("watcher p99 latency", float64(pct(got, 99))/1e6, 10, "ms")
	return nil
}

func fsnotifyRoundTrip(dir string, n int) ([]time.Duration, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "t.jsonl")
	if err := appendTo(path, ""); err != nil {
		return nil, err
	}
	drain(w, 50*time.Millisecond)
	var out []time.Duration
	for i := range n {
		t0 := time.Now()
		if err := appendTo(path, line(fmt.Sprint(i), 200)); err != nil {
			return nil, err
		}
		for ev := range w.Events {
			if ev.Has(fsnotify.Write) {
				break
			}
		}
		out = append(out, time.Since(t0))
		drain(w, time.Millisecond) // the close event, so the next wait is for the next write
		time.Sleep(2 * time.Millisecond)
	}
	return out, nil
}

func drain(w *fsnotify.Watcher, d time.Duration) {
	for {
		select {
		case <-w.Events:
		case <-time.After(d):
			return
		}
	}
}

func watcherLatency(root string, n int) ([]time.Duration, error) {
	proj := filepath.Join(root, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(proj, "11111111-2222-3333-4444-555555555555.jsonl")
	if err := appendTo(path, line("history", 200)); err != nil {
		return nil, err
	}
	w, err := watcher.New(watcher.Config{Roots: map[parsers.Agent][]string{claude.Name: {root}}}, zerolog.Nop())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-w.Ready()
	recs := w.Records()
	<-recs // the bootstrap line
	var out []time.Duration
	for i := range n {
		id := fmt.Sprint(i)
		t0 := time.Now()
		if err := appendTo(path, line(id, 200)); err != nil {
			return nil, err
		}
		for r := range recs {
			if r.Kind == watcher.KindLine && r.Evidence.At == id {
				break
			}
		}
		out = append(out, time.Since(t0))
		time.Sleep(2 * time.Millisecond)
	}
	return out, nil
}
