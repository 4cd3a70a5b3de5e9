package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/nxadm/tail"

	"github.com/logwatch/logwatch/watcher/follow"
)

// nxadm measures github.com/nxadm/tail, configured as the tailing notes
// advise (CompleteLines, no ReOpen, no RateLimiter, never Tell or Cleanup),
// on what made the watcher replace it: latency, truncate-and-rewrite, and
// the memory an oversized line costs.
func nxadm(args []string) error {
	fs := flag.NewFlagSet("nxadm", flag.ExitOnError)
	dir := fs.String("dir", "", "scratch directory")
	n := fs.Int("n", 50, "appends per mode")
	_ = fs.Parse(args)
	if err := os.RemoveAll(*dir); err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	fmt.Printf("nxadm/tail v1.4.11 (the follower the watcher replaced), %d appends per mode\n", *n)
	for _, poll := range []bool{true, false} {
		mode := map[bool]string{true: "poll", false: "inotify"}[poll]
		lat, err := nxLatency(filepath.Join(*dir, mode+".jsonl"), poll, *n)
		if err != nil {
			return err
		}
		fmt.Printf("  %-8s write->line p50 %s  p99 %s  (target p99 <= 10 ms: %s)\n", mode, ms(pct(lat, 50)), ms(pct(lat, 99)),
			map[bool]string{true: "ok", false: "MISSED"}[pct(lat, 99) <= 10*time.Millisecond])
		res, err := nxRewrite(filepath.Join(*dir, mode+"-rewrite.jsonl"), poll)
		if err != nil {
			return err
		}
		fmt.Printf("  %-8s truncate + longer rewrite: %s\n", mode, res)
	}
	nx, own, err := oversizedAlloc(filepath.Join(*dir, "big.jsonl"))
	if err != nil {
		return err
	}
	fmt.Printf("  a 64 MiB line: nxadm/tail allocates %.0f MiB in all to deliver it whole; the watcher's reader\n"+
		"           %.0f MiB in all to skip it (never holding more than max_line_bytes+1 = 32 MiB at once)\n", nx, own)
	return nil
}

func tailCfg(poll bool, off int64, whence int) tail.Config {
	return tail.Config{Follow: true, MustExist: true, Poll: poll, CompleteLines: true,
		Location: &tail.SeekInfo{Offset: off, Whence: whence}, Logger: tail.DiscardingLogger}
}

func nxLatency(path string, poll bool, n int) ([]time.Duration, error) {
	if err := appendTo(path, line("history", 200)); err != nil {
		return nil, err
	}
	t, err := tail.TailFile(path, tailCfg(poll, 0, io.SeekEnd))
	if err != nil {
		return nil, err
	}
	defer t.Stop()
	time.Sleep(300 * time.Millisecond) // Location is applied asynchronously (nxadm/tail#49)
	var out []time.Duration
	for i := range n {
		id := fmt.Sprintf(`"timestamp":"%d"`, i)
		t0 := time.Now()
		if err := appendTo(path, line(fmt.Sprint(i), 200)); err != nil {
			return nil, err
		}
		for l := range t.Lines {
			if strings.Contains(l.Text, id) {
				break
			}
		}
		out = append(out, time.Since(t0))
		time.Sleep(time.Duration(i%7) * time.Millisecond)
	}
	return out, nil
}

// nxRewrite: read two lines, rewrite the file in place with longer content,
// report what arrives.
func nxRewrite(path string, poll bool) (string, error) {
	old := line("old-1", 100) + line("old-2", 100)
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		return "", err
	}
	t, err := tail.TailFile(path, tailCfg(poll, 0, io.SeekStart))
	if err != nil {
		return "", err
	}
	defer t.Stop()
	for range 2 {
		<-t.Lines
	}
	time.Sleep(300 * time.Millisecond)
	newer := line("new-1", 150) + line("new-2", 150) + line("new-3", 150)
	if err := os.WriteFile(path, []byte(newer), 0o644); err != nil {
		return "", err
	}
	var got []string
	timeout := time.After(1500 * time.Millisecond)
loop:
	for {
		select {
		case l := <-t.Lines:
			got = append(got, l.Text)
		case <-timeout:
			break loop
		}
	}
	whole := 0
	for _, g := range got {
		if strings.HasPrefix(g, "{") && strings.Contains(g, `"new-`) {
			whole++
		}
	}
	if whole == 3 && len(got) == 3 {
		return "all 3 new lines, no fragment", nil
	}
	frag := len(got) - whole
	return fmt.Sprintf("%d of 3 new lines, %d fragment(s) delivered as lines (continued at the stale offset)", whole, frag), nil
}

// oversizedAlloc compares what delivering (nxadm) and skipping (the
// watcher's reader, limit 32 MiB) a 64 MiB line allocate.
func oversizedAlloc(path string) (nxMiB, ownMiB float64, err error) {
	big := strings.Repeat("x", 64<<20)
	if err := os.WriteFile(path, []byte(`{"big":"`+big+`"}`+"\n"+line("after", 10)), 0o644); err != nil {
		return 0, 0, err
	}
	big = ""
	measure := func(fn func() error) (float64, error) {
		runtime.GC()
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		err := fn()
		runtime.ReadMemStats(&b)
		return float64(b.TotalAlloc-a.TotalAlloc) / (1 << 20), err
	}
	nxMiB, err = measure(func() error {
		t, err := tail.TailFile(path, tail.Config{MustExist: true, CompleteLines: true, Logger: tail.DiscardingLogger})
		if err != nil {
			return err
		}
		for range t.Lines {
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	ownMiB, err = measure(func() error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		fol, err := follow.NewReaders(32<<20).Open(f, 0, 0)
		if err != nil {
			return err
		}
		for {
			if _, err := fol.Next(); err != nil {
				return nil
			}
		}
	})
	return nxMiB, ownMiB, err
}
