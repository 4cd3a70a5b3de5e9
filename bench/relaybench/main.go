// Command relaybench measures the hook path end to end: a real `logwatch
// hook` process started → the change seen on a subscription, against the
// bare cost of starting the binary (`logwatch --version`), measured in the
// same run; and the hook client's wall time with no daemon and with a daemon
// that accepts but never answers.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/logwatch/logwatch/bench/stats"
)

func main() {
	bin := flag.String("bin", os.Getenv("LOGWATCH_BIN"), "logwatch binary")
	n := flag.Int("n", 200, "hook events")
	flag.Parse()
	if *bin == "" {
		stats.Fail("set -bin or LOGWATCH_BIN")
	}
	dir, err := os.MkdirTemp("", "lwbench")
	stats.Check(err)
	defer os.RemoveAll(dir)
	socket := filepath.Join(dir, "lw.sock")
	env := append(os.Environ(), "LOGWATCH_SOCKET="+socket, "HOME="+dir,
		"LOGWATCH_AGENTS_CLAUDE_ROOTS="+filepath.Join(dir, "c"), "LOGWATCH_AGENTS_CODEX_ROOTS="+filepath.Join(dir, "x"),
		"LOGWATCH_CHECKPOINT=", "LOGWATCH_LOG_LEVEL=warn")

	evs, stop := stats.Daemon(*bin, env, socket)
	defer stop()

	// Baseline: the bare process start, interleaved with the hook runs so
	// both see the same machine.
	var base, hook []time.Duration
	for i := 0; i < *n; i++ {
		t0 := time.Now()
		v := exec.Command(*bin, "--version")
		v.Env = env
		stats.Check(v.Run())
		base = append(base, time.Since(t0))
		hook = append(hook, stats.HookToChange(*bin, env, evs, i))
	}
	bp50, bp99 := pct(base, 50), pct(base, 99)
	hp50, hp99 := pct(hook, 50), pct(hook, 99)
	fmt.Printf("process start (logwatch --version): p50 %6.2f ms  p99 %6.2f ms   (n=%d)\n", ms(bp50), ms(bp99), *n)
	fmt.Printf("hook → change on subscription:      p50 %6.2f ms  p99 %6.2f ms\n", ms(hp50), ms(hp99))
	added := hp50 - bp50
	fmt.Printf("relay adds (p50 difference):        %6.2f ms   target ≤ 2 ms   %s\n", ms(added), stats.Verdict(added <= 2*time.Millisecond))

	// The hook client must never hold an agent up.
	absent := runs(*bin, filepath.Join(dir, "absent.sock"), dir, 20)
	hung := filepath.Join(dir, "hung.sock")
	ln, err := net.Listen("unix", hung)
	stats.Check(err)
	go func() {
		var held []net.Conn
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, conn) // accept, never answer
		}
	}()
	hungT := runs(*bin, hung, dir, 10)
	fmt.Printf("hook client, no daemon:             p50 %6.2f ms  max %6.2f ms   target ≤ 50 ms    %s\n",
		ms(pct(absent, 50)), ms(pct(absent, 100)), stats.Verdict(pct(absent, 100) <= 50*time.Millisecond))
	fmt.Printf("hook client, hung daemon:           p50 %6.2f ms  max %6.2f ms   target ≤ 550 ms   %s\n",
		ms(pct(hungT, 50)), ms(pct(hungT, 100)), stats.Verdict(pct(hungT, 100) <= 550*time.Millisecond))
}

// runs times the hook client against socket, n times.
func runs(bin, socket, home string, n int) []time.Duration {
	var out []time.Duration
	for i := 0; i < n; i++ {
		h := exec.Command(bin, "hook")
		h.Env = []string{"LOGWATCH_SOCKET=" + socket, "HOME=" + home}
		h.Stdin = strings.NewReader(`{"hook_event_name":"Stop","session_id":"s"}`)
		t0 := time.Now()
		stats.Check(h.Run())
		out = append(out, time.Since(t0))
	}
	return out
}

func pct(ds []time.Duration, p float64) time.Duration { return stats.Pct(ds, p) }

func ms(d time.Duration) float64 { return stats.Ms(d) }
