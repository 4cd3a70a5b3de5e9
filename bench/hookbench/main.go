// Command hookbench measures what starting `logwatch hook` costs (issue 35
// item 7), the binary built from this tree against one built from a base
// commit, interleaved run by run so that both see the same machine: its
// wall time with no daemon (a fresh home: no configuration file, the
// default socket; and a home with the example config.yaml), the package
// initialisation GODEBUG=inittrace=1 reports, and, with a daemon up, hook
// process start → the change on a subscription.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/logwatch/logwatch/bench/stats"
)

func main() {
	bin := flag.String("bin", os.Getenv("LOGWATCH_BIN"), "logwatch binary (after)")
	base := flag.String("base", "", "logwatch binary built from the base commit (before)")
	n := flag.Int("n", 200, "runs of each binary")
	flag.Parse()
	if *bin == "" || *base == "" {
		stats.Fail("set -bin (or LOGWATCH_BIN) and -base")
	}
	dir, err := os.MkdirTemp("", "lwhb")
	stats.Check(err)
	defer os.RemoveAll(dir)
	// A newcomer's machine: no configuration file, no LOGWATCH_SOCKET, the
	// default socket (under XDG_RUNTIME_DIR) with no daemon on it.
	fresh := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "PATH=" + os.Getenv("PATH")}
	// The same with a configuration file: the example config.yaml in place,
	// in a home of its own.
	cdir := filepath.Join(dir, "withconfig")
	stats.Check(os.MkdirAll(filepath.Join(cdir, "config", "logwatch"), 0o755))
	example, err := os.ReadFile("config.yaml")
	stats.Check(err)
	stats.Check(os.WriteFile(filepath.Join(cdir, "config", "logwatch", "config.yaml"), example, 0o644))
	configured := []string{"HOME=" + cdir, "XDG_CONFIG_HOME=" + filepath.Join(cdir, "config"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "PATH=" + os.Getenv("PATH")}
	payload := `{"hook_event_name":"Stop","session_id":"s","cwd":"/w"}`
	bins := []struct{ name, path string }{{"before", *base}, {"after", *bin}}

	wall := map[string][]time.Duration{}
	wallConfig := map[string][]time.Duration{}
	inits := map[string][]time.Duration{}
	run := func(bin string, env []string) time.Duration {
		h := exec.Command(bin, "hook", "--agent", "claude")
		h.Env = env
		h.Stdin = strings.NewReader(payload)
		t0 := time.Now()
		stats.Check(h.Run())
		return time.Since(t0)
	}
	for i := 0; i < *n; i++ {
		for _, b := range bins {
			wall[b.name] = append(wall[b.name], run(b.path, fresh))
			wallConfig[b.name] = append(wallConfig[b.name], run(b.path, configured))
		}
		if i%4 == 0 { // inittrace's own output costs time: a quarter of the runs
			for _, b := range bins {
				inits[b.name] = append(inits[b.name], initTime(b.path, fresh, payload))
			}
		}
	}
	fmt.Printf("logwatch hook, no daemon, fresh home (n=%d each, interleaved)\n", *n)
	for _, b := range bins {
		w, it := wall[b.name], inits[b.name]
		fmt.Printf("  %-6s  wall p50 %6.2f ms  p99 %6.2f ms   package init p50 %5.2f ms\n", b.name,
			stats.Ms(stats.Pct(w, 50)), stats.Ms(stats.Pct(w, 99)), stats.Ms(stats.Pct(it, 50)))
	}
	fmt.Printf("logwatch hook, no daemon, the example config.yaml in place (n=%d each, interleaved)\n", *n)
	for _, b := range bins {
		w := wallConfig[b.name]
		fmt.Printf("  %-6s  wall p50 %6.2f ms  p99 %6.2f ms\n", b.name, stats.Ms(stats.Pct(w, 50)), stats.Ms(stats.Pct(w, 99)))
	}

	// With a daemon (this tree's) up: hook started → change published.
	socket := filepath.Join(dir, "lw.sock")
	env := append(append([]string{}, fresh...), "LOGWATCH_SOCKET="+socket,
		"LOGWATCH_AGENTS_CLAUDE_ROOTS="+filepath.Join(dir, "c"), "LOGWATCH_AGENTS_CODEX_ROOTS="+filepath.Join(dir, "x"),
		"LOGWATCH_CHECKPOINT=", "LOGWATCH_LOG_LEVEL=warn")
	evs, stop := stats.Daemon(*bin, env, socket)
	defer stop()
	pub := map[string][]time.Duration{}
	for i := 0; i < *n; i++ {
		// One bin's hook a prompt, the other's a Stop: each moves the session.
		for j, b := range bins {
			pub[b.name] = append(pub[b.name], stats.HookToChange(b.path, env, evs, j))
		}
	}
	fmt.Printf("logwatch hook → change published, daemon up (n=%d each, interleaved)\n", *n)
	for _, b := range bins {
		p := pub[b.name]
		fmt.Printf("  %-6s  p50 %6.2f ms  p99 %6.2f ms   target p99 ≤ 10 ms  %s\n", b.name,
			stats.Ms(stats.Pct(p, 50)), stats.Ms(stats.Pct(p, 99)), stats.Verdict(stats.Pct(p, 99) <= 10*time.Millisecond))
	}
}

// initTime is the package initialisation one hook run reports under
// GODEBUG=inittrace=1 (the sum of its "init … @… N ms" lines).
func initTime(bin string, env []string, payload string) time.Duration {
	h := exec.Command(bin, "hook", "--agent", "claude")
	h.Env = append(append([]string{}, env...), "GODEBUG=inittrace=1")
	h.Stdin = strings.NewReader(payload)
	var errb bytes.Buffer
	h.Stderr = &errb
	stats.Check(h.Run())
	var total float64
	sc := bufio.NewScanner(&errb)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		// init PKG @T ms, D ms clock, B bytes, A allocs
		if len(f) >= 6 && f[0] == "init" && f[5] == "ms" {
			if v, err := strconv.ParseFloat(f[4], 64); err == nil {
				total += v
			}
		}
	}
	return time.Duration(total * float64(time.Millisecond))
}
