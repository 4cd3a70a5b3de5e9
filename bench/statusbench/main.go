// Command statusbench measures the real daemon (`logwatch run`) serving
// large status answers (issue 22 item 7), for bench/status.sh:
//
//   - nonreaders: N clients each send {"op":"status"} over the socket and
//     never read, with S sessions in the daemon; meanwhile hooks are sent
//     on fresh connections (as `logwatch hook` does) and timed, and the
//     daemon's anonymous memory is read from /proc (against its level
//     before the clients came);
//   - cli: C concurrent `logwatch status --all` processes; how many fail,
//     and the slowest.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/logwatch/logwatch/bench/stats"
	"github.com/logwatch/logwatch/relay/client"
)

func main() {
	bin := flag.String("bin", os.Getenv("LOGWATCH_BIN"), "logwatch binary")
	sessions := flag.Int("sessions", 5000, "sessions seeded by hooks")
	readers := flag.Int("nonreaders", 256, "clients that send status and never read")
	hooks := flag.Int("hooks", 50, "hooks timed while the non-readers hold their connections")
	cli := flag.Int("cli", 300, "concurrent `logwatch status --all` processes")
	flag.Parse()
	if *bin == "" {
		stats.Fail("set -bin or LOGWATCH_BIN")
	}
	d := start(*bin)
	defer d.stop()
	d.seed(*sessions)
	size := d.answerSize()
	fmt.Printf("status answers at %d sessions (%.2f MB each)\n", *sessions, float64(size)/1e6)
	d.nonReaders(*readers, *hooks)
	d.cliStatus(*cli)
}

type daemon struct {
	bin, dir, socket string
	env              []string
	cmd              *exec.Cmd
}

func start(bin string) *daemon {
	dir, err := os.MkdirTemp("", "lwstatus")
	stats.Check(err)
	d := &daemon{bin: bin, dir: dir, socket: filepath.Join(dir, "lw.sock")}
	d.env = append(os.Environ(), "LOGWATCH_SOCKET="+d.socket, "HOME="+dir,
		"LOGWATCH_AGENTS_CLAUDE_ROOTS="+filepath.Join(dir, "c"), "LOGWATCH_AGENTS_CODEX_ROOTS="+filepath.Join(dir, "x"),
		"LOGWATCH_CHECKPOINT=", "LOGWATCH_LOG_LEVEL=warn")
	d.cmd = exec.Command(bin, "run")
	d.cmd.Env = d.env
	d.cmd.Stderr = os.Stderr
	stats.Check(d.cmd.Start())
	for i := 0; i < 1000; i++ {
		if c, err := client.Dial(context.Background(), d.socket); err == nil {
			c.Close()
			return d
		}
		time.Sleep(10 * time.Millisecond)
	}
	d.stop()
	stats.Fail("daemon did not open its socket")
	return nil
}

func (d *daemon) stop() {
	if d.cmd.ProcessState == nil {
		d.cmd.Process.Signal(syscall.SIGTERM)
		d.cmd.Wait()
	}
	os.RemoveAll(d.dir)
}

// seed makes n sessions, each working on a prompt in a tab of its own.
func (d *daemon) seed(n int) {
	const workers = 8
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			c, err := client.Dial(context.Background(), d.socket)
			stats.Check(err)
			defer c.Close()
			for i := w; i < n; i += workers {
				p := fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"00000000-0000-4000-8000-%012d","cwd":"/home/user/src/project-%04d","prompt":"go"}`, i, i%500)
				stats.Check(c.Hook(context.Background(), "claude", fmt.Sprintf("tab-%d", i), []byte(p)))
			}
		}(w)
	}
	wg.Wait()
}

func (d *daemon) answerSize() int {
	c, err := net.Dial("unix", d.socket)
	stats.Check(err)
	defer c.Close()
	io.WriteString(c, `{"op":"status"}`+"\n")
	line, err := bufio.NewReaderSize(c, 1<<20).ReadString('\n')
	stats.Check(err)
	return len(line)
}

// procKB reads the kB figures of /proc/<pid>/status.
func procKB(pid int) map[string]int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	stats.Check(err)
	m := map[string]int64{}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && f[2] == "kB" {
			m[strings.TrimSuffix(f[0], ":")], _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	return m
}

func (d *daemon) nonReaders(n, hooks int) {
	pid := d.cmd.Process.Pid
	time.Sleep(time.Second)
	before := procKB(pid)["RssAnon"]
	var conns []net.Conn
	for i := 0; i < n; i++ {
		c, err := net.Dial("unix", d.socket)
		stats.Check(err)
		io.WriteString(c, `{"op":"status"}`+"\n")
		conns = append(conns, c)
	}
	// Sample the daemon's anonymous memory while they hold on, and time
	// hooks, each on a fresh connection.
	var peak int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if a := procKB(pid)["RssAnon"]; a > peak {
				peak = a
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	var lat []time.Duration
	failed := 0
	for i := 0; i < hooks; i++ {
		t0 := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, err := client.Dial(ctx, d.socket)
		if err == nil {
			err = c.Hook(ctx, "claude", "bench", []byte(fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"hook-probe","cwd":"/w","tool_name":"Bash","tool_input":{"command":"step %d"}}`, i)))
			c.Close()
		}
		cancel()
		if err != nil {
			failed++
		} else {
			lat = append(lat, time.Since(t0))
		}
		time.Sleep(50 * time.Millisecond)
	}
	// How many of them the daemon still holds (and how many it closed).
	held, evicted := int64(-1), int64(-1)
	if c, err := client.Dial(context.Background(), d.socket); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if st, err := c.Status(ctx); err == nil {
			held, evicted = st.Counters.Conns-1, st.Counters.ConnsEvicted
		}
		cancel()
		c.Close()
	}
	close(stop)
	<-sampled
	fmt.Printf("  %d clients send status and never read: daemon anon RSS %.1f MiB before, peak %.1f MiB while they hold on (VmHWM %.1f MiB)\n",
		n, float64(before)/1024, float64(peak)/1024, float64(procKB(pid)["VmHWM"])/1024)
	fmt.Printf("  hooks meanwhile (fresh connection each): p50 %.1f ms, p99 %.1f ms, max %.1f ms, %d failed of %d; then %d request connections open besides the asker, %d evicted\n",
		stats.Ms(stats.Pct(lat, 50)), stats.Ms(stats.Pct(lat, 99)), stats.Ms(stats.Pct(lat, 100)), failed, hooks, held, evicted)
	for _, c := range conns {
		c.Close()
	}
}

func (d *daemon) cliStatus(n int) {
	time.Sleep(time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := 0
	walls := make([]time.Duration, 0, n)
	whys := map[string]int{}
	t0 := time.Now()
	cpu0 := stats.CPUTicks(d.cmd.Process.Pid)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(d.bin, "status", "--all")
			cmd.Env = d.env
			var errb strings.Builder
			cmd.Stdout, cmd.Stderr = io.Discard, &errb
			s := time.Now()
			err := cmd.Run()
			mu.Lock()
			defer mu.Unlock()
			walls = append(walls, time.Since(s))
			if err != nil {
				failed++
				why := strings.TrimSpace(errb.String())
				if i := strings.IndexByte(why, '\n'); i > 0 {
					why = why[:i]
				}
				whys[why]++
			}
		}()
	}
	// A probe meanwhile: how long the daemon takes to start an answer and
	// to finish it.
	probeDone := make(chan struct{})
	var firsts, wholes []time.Duration
	go func() {
		defer close(probeDone)
		for time.Since(t0) < 120*time.Second {
			mu.Lock()
			n := len(walls)
			mu.Unlock()
			if n == cap(walls) && n > 0 {
				return
			}
			c, err := net.Dial("unix", d.socket)
			if err != nil {
				continue
			}
			s := time.Now()
			io.WriteString(c, `{"op":"status"}`+"\n")
			rd := bufio.NewReaderSize(c, 1<<16)
			if _, err := rd.Peek(1); err == nil {
				firsts = append(firsts, time.Since(s))
				if _, err := rd.ReadString('\n'); err == nil {
					wholes = append(wholes, time.Since(s))
				}
			}
			c.Close()
			time.Sleep(200 * time.Millisecond)
		}
	}()
	wg.Wait()
	<-probeDone
	fmt.Printf("  a probe meanwhile: first byte p50 %.0f ms max %.0f ms; whole answer p50 %.0f ms max %.0f ms (%d probes)\n",
		stats.Ms(stats.Pct(firsts, 50)), stats.Ms(stats.Pct(firsts, 100)), stats.Ms(stats.Pct(wholes, 50)), stats.Ms(stats.Pct(wholes, 100)), len(firsts))
	fmt.Printf("  %d concurrent `logwatch status --all`: %d failed, slowest %.1f s, all done in %.1f s; the daemon used %.2f s of CPU\n",
		n, failed, stats.Pct(walls, 100).Seconds(), time.Since(t0).Seconds(), float64(stats.CPUTicks(d.cmd.Process.Pid)-cpu0)/100)
	for why, k := range whys {
		fmt.Printf("    %d× %s\n", k, why)
	}
	d.counters()
}

// counters prints the daemon's connection and status-answer figures.
func (d *daemon) counters() {
	c, err := client.Dial(context.Background(), d.socket)
	stats.Check(err)
	defer c.Close()
	st, err := c.Status(context.Background())
	stats.Check(err)
	k := st.Counters
	fmt.Printf("  daemon: %d connections evicted, %d refused; status answers %d built for %d requests, %d refused busy\n",
		k.ConnsEvicted, k.ConnsRefused, k.StatusBuilt, k.StatusServed, k.StatusBusy)
}
