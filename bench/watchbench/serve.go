package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/watcher"
)

// summary is what serve reports when it is stopped.
type summary struct {
	Records   int     `json:"records"`
	Bootstrap int     `json:"bootstrap"`
	Live      int     `json:"live"`
	Dups      int     `json:"dups"`   // a sequence number seen again
	Gaps      int     `json:"gaps"`   // a sequence number skipped (later arrival means disorder)
	Unique    int     `json:"unique"` // distinct live load lines
	P50       float64 `json:"p50_ms"` // write -> record, load lines
	P99       float64 `json:"p99_ms"`
	Oversized int64   `json:"oversized"`
}

// serve runs the watcher as its own process, so idle and load measure its
// CPU and memory alone. It prints "ready" once bootstrapped and a JSON
// summary when sent SIGTERM.
func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	root := fs.String("root", "", "Claude root")
	reconcile := fs.Duration("reconcile", 0, "reconcile interval (0: default)")
	_ = fs.Parse(args)
	log := zerolog.New(os.Stderr).Level(zerolog.WarnLevel)
	w, err := watcher.New(watcher.Config{Roots: map[parsers.Agent][]string{claude.Name: {*root}}, ReconcileInterval: *reconcile}, log)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	go func() {
		<-w.Ready()
		fmt.Println("ready")
	}()
	var s summary
	last := map[string]int{}
	var lat []time.Duration
	for r := range w.Records() {
		s.Records++
		if r.Kind != watcher.KindLine {
			continue
		}
		if r.Bootstrap {
			s.Bootstrap++
			continue
		}
		s.Live++
		// Load lines carry "L:<seq>:<unix nanos at write>".
		parts := strings.Split(r.Evidence.At, ":")
		if len(parts) != 3 || parts[0] != "L" {
			continue
		}
		seq, _ := strconv.Atoi(parts[1])
		ns, _ := strconv.ParseInt(parts[2], 10, 64)
		lat = append(lat, time.Since(time.Unix(0, ns)))
		switch prev := last[r.Path]; {
		case seq <= prev:
			s.Dups++
		case seq > prev+1:
			s.Gaps++
			fallthrough
		default:
			last[r.Path] = seq
			s.Unique++
		}
	}
	if err := <-done; err != nil {
		return err
	}
	s.P50 = float64(pct(lat, 50)) / 1e6
	s.P99 = float64(pct(lat, 99)) / 1e6
	s.Oversized = w.Stats().Oversized
	return json.NewEncoder(os.Stdout).Encode(s)
}

// child is a running serve process.
type child struct {
	cmd   *exec.Cmd
	out   *bufio.Scanner
	start time.Time
}

func startServe(root string, extra ...string) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, append([]string{"serve", "-root", root}, extra...)...)
	cmd.Stderr = os.Stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, out: bufio.NewScanner(pipe), start: time.Now()}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return c, nil
}

// ready waits for the child's "ready" and returns the time since its start.
func (c *child) ready() (time.Duration, error) {
	if !c.out.Scan() || c.out.Text() != "ready" {
		return 0, fmt.Errorf("serve did not get ready: %q %v", c.out.Text(), c.out.Err())
	}
	return time.Since(c.start), nil
}

func (c *child) stop() (summary, error) {
	var s summary
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return s, err
	}
	if !c.out.Scan() {
		return s, fmt.Errorf("no summary: %v", c.out.Err())
	}
	if err := json.Unmarshal(c.out.Bytes(), &s); err != nil {
		return s, err
	}
	return s, c.cmd.Wait()
}

// cpu is the child's user+system CPU time so far.
func (c *child) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// Fields after the parenthesised command name; utime and stime are 14 and 15.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	const hz = 100 // USER_HZ
	return time.Duration(ut+st) * time.Second / hz, nil
}

// rss returns the child's resident set size and its peak, in MiB.
func (c *child) rss() (cur, peak float64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			cur = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return cur, peak, nil
}

// idle: 10 000 session files in 500 project directories, nothing written.
func idle(args []string) error {
	fs := flag.NewFlagSet("idle", flag.ExitOnError)
	dir := fs.String("dir", "", "scratch directory")
	files := fs.Int("files", 10000, "session files")
	dirs := fs.Int("dirs", 500, "project directories")
	dur := fs.Duration("for", 60*time.Second, "idle period")
	_ = fs.Parse(args)
	root := filepath.Join(*dir, "projects")
	if err := os.RemoveAll(*dir); err != nil {
		return err
	}
	var content strings.Builder
	for i := range 8 {
		content.WriteString(line(fmt.Sprint("h", i), 400))
	}
	for i := range *files {
		pd := filepath.Join(root, fmt.Sprintf("-home-user-project-%03d", i%*dirs))
		if err := os.MkdirAll(pd, 0o755); err != nil {
			return err
		}
		p := filepath.Join(pd, fmt.Sprintf("%08x-0000-4000-8000-%012x.jsonl", i, i))
		if err := os.WriteFile(p, []byte(content.String()), 0o644); err != nil {
			return err
		}
	}
	c, err := startServe(root)
	if err != nil {
		return err
	}
	up, err := c.ready()
	if err != nil {
		return err
	}
	cpu0, _ := c.cpu()
	time.Sleep(*dur)
	cpu1, err := c.cpu()
	if err != nil {
		return err
	}
	cur, peak, err := c.rss()
	if err != nil {
		return err
	}
	s, err := c.stop()
	if err != nil {
		return err
	}
	fmt.Printf("idle: %d files in %d directories (%d KiB each), quiet for %s\n", *files, *dirs, content.Len()/1024, *dur)
	fmt.Printf("  bootstrapped %d lines; start-up CPU %s\n", s.Bootstrap, cpu0.Round(time.Millisecond))
	verdict("start-up (all bootstrapped)", up.Seconds(), 2, "s")
	verdict(fmt.Sprintf("CPU while idle for %s", *dur), (cpu1 - cpu0).Seconds(), 0.2, "s")
	verdict("RSS after idle", cur, 40, "MiB")
	fmt.Printf("  (peak RSS during start-up %.1f MiB)\n", peak)
	return nil
}

// load: many files appended at a steady rate; every line must arrive once.
func load(args []string) error {
	fs := flag.NewFlagSet("load", flag.ExitOnError)
	dir := fs.String("dir", "", "scratch directory")
	files := fs.Int("files", 200, "files written")
	rate := fs.Int("rate", 50, "lines per second per file")
	dur := fs.Duration("for", 30*time.Second, "duration")
	_ = fs.Parse(args)
	root := filepath.Join(*dir, "projects")
	if err := os.RemoveAll(*dir); err != nil {
		return err
	}
	var paths []string
	for i := range *files {
		pd := filepath.Join(root, fmt.Sprintf("proj%02d", i%10))
		if err := os.MkdirAll(pd, 0o755); err != nil {
			return err
		}
		p := filepath.Join(pd, fmt.Sprintf("%08x-0000-4000-8000-000000000000.jsonl", i))
		if err := os.WriteFile(p, []byte(line("history", 400)), 0o644); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	c, err := startServe(root)
	if err != nil {
		return err
	}
	if _, err := c.ready(); err != nil {
		return err
	}
	cpu0, _ := c.cpu()
	t0 := time.Now()
	// Writers: each owns a slice of the files and writes one line to each
	// of them per period, staggered across the period.
	const writers = 4
	period := time.Second / time.Duration(*rate)
	written := make(chan int, writers)
	for wi := range writers {
		go func() {
			mine := paths[wi*len(paths)/writers : (wi+1)*len(paths)/writers]
			fhs := make([]*os.File, len(mine))
			for i, p := range mine {
				fhs[i], _ = os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			}
			n := 0
			tick := time.NewTicker(period)
			defer tick.Stop()
			time.Sleep(period * time.Duration(wi) / writers)
			for seq := 1; time.Since(t0) < *dur; seq++ {
				for _, fh := range fhs {
					if _, err := fh.WriteString(line(fmt.Sprintf("L:%d:%d", seq, time.Now().UnixNano()), 300)); err == nil {
						n++
					}
				}
				<-tick.C
			}
			for _, fh := range fhs {
				fh.Close()
			}
			written <- n
		}()
	}
	total := 0
	for range writers {
		total += <-written
	}
	elapsed := time.Since(t0)
	time.Sleep(time.Second) // let the last lines arrive
	cpu1, _ := c.cpu()
	s, err := c.stop()
	if err != nil {
		return err
	}
	fmt.Printf("load: %d files x %d lines/s for %s: %d lines written (%.0f lines/s)\n",
		*files, *rate, *dur, total, float64(total)/elapsed.Seconds())
	fmt.Printf("  delivered %d unique, %d lost, %d duplicated, %d out of order\n", s.Unique, total-s.Unique, s.Dups, s.Gaps)
	fmt.Printf("  write->record p50 %.2f ms\n", s.P50)
	mark := "ok"
	if total != s.Unique || s.Dups != 0 {
		mark = "MISSED"
	}
	fmt.Printf("  %-34s %10d      target 0                     %s\n", "lost + duplicated lines", total-s.Unique+s.Dups, mark)
	verdict("p99 latency under load", s.P99, 50, "ms")
	verdict("CPU (cores) under load", (cpu1-cpu0).Seconds()/(elapsed.Seconds()+1), 1, "core")
	return nil
}
