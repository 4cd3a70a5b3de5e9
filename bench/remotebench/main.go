// Command remotebench measures remote hosts for bench/remote.sh, over a
// real sshd on loopback (internal/sshtest: as root, a throwaway user) and
// two real daemons (LOGWATCH_BIN), the remote one as that user:
//
//   - latency: a line appended to a remote session's transcript → its change
//     published by the remote's own daemon (baseline: a `logwatch events
//     --json` subscribed there) and by this machine's daemon, through ssh
//     (target: p99 ≤ 20 ms);
//   - idle: this machine's daemon with 10 remotes linked and nothing
//     changing, against the same daemon with none: its CPU and its ssh
//     processes' over -idle (target: nothing measurable), and one ssh
//     process per remote.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/logwatch/logwatch/bench/stats"
	"github.com/logwatch/logwatch/internal/sshtest"
)

func main() {
	n := flag.Int("n", 200, "appends measured")
	idle := flag.Duration("idle", 20*time.Second, "how long CPU is watched with the remotes linked and idle")
	remotes := flag.Int("remotes", 10, "remotes linked for the idle measure")
	flag.Parse()
	bin := os.Getenv("LOGWATCH_BIN")
	if bin == "" {
		stats.Fail("LOGWATCH_BIN is not set (bench/run sets it)")
	}
	b := &bt{}
	defer b.cleanup()
	s := sshtest.Start(b)
	r := remoteSide(b, s, bin)

	fmt.Printf(" remote change → published, %d appends to a remote transcript (p50 / p99 / max, ms)\n", *n)
	local := startLocal(b, bin, s, r, 1)
	waitUp(local, 1)
	there := events(b, s.Command([]string{"LOGWATCH_CONFIG=" + r.config}, r.bin, "events", "--json"))
	here := events(b, exec.Command(bin, "events", "--json"))
	here.cmd.Env = local.env
	here.start(b)
	there.start(b)
	// Both streams live: a change neither has yet seen reaches both (one
	// that came before a subscription would be a snapshot line).
	for i := 0; ; i++ {
		sid := fmt.Sprintf("warm-%d", i)
		appendLine(r, sid)
		if there.waitFor(sid, "", time.Second) && here.waitFor(sid, "box", 2*time.Second) {
			break
		}
		if i == 20 {
			stats.Fail("the streams never both saw a change")
		}
	}
	var base, via []time.Duration
	for i := range *n {
		sid := fmt.Sprintf("bench-%04d", i)
		t0 := time.Now()
		appendLine(r, sid)
		tThere := there.wait(sid, "")
		tHere := here.wait(sid, "box")
		base, via = append(base, tThere.Sub(t0)), append(via, tHere.Sub(t0))
	}
	row := func(name string, d []time.Duration) {
		fmt.Printf("  %-44s %7.2f %7.2f %7.2f\n", name, stats.Ms(stats.Pct(d, 50)), stats.Ms(stats.Pct(d, 99)), stats.Ms(stats.Pct(d, 100)))
	}
	row("the remote's own daemon (baseline)", base)
	row("this machine's daemon, through ssh", via)
	p99 := stats.Pct(via, 99)
	fmt.Printf("  through ssh / baseline p99: %.2f×; target p99 ≤ 20 ms: %s\n",
		float64(p99)/float64(max(stats.Pct(base, 99), 1)), stats.Verdict(p99 <= 20*time.Millisecond))
	here.stop()
	there.stop()
	local.stop()

	fmt.Printf("\n idle for %s: this machine's daemon with %d remotes linked vs none (utime+stime, ms)\n", *idle, *remotes)
	none := startLocal(b, bin, s, r, 0)
	many := startLocal(b, bin, s, r, *remotes)
	waitUp(many, *remotes)
	time.Sleep(2 * time.Second) // the links' start-up behind
	sshs := children(many.cmd.Process.Pid, "ssh")
	c0n, c0m, c0s := cpuMs(none.cmd.Process.Pid), cpuMs(many.cmd.Process.Pid), sumCPU(sshs)
	time.Sleep(*idle)
	dn, dm, ds := cpuMs(none.cmd.Process.Pid)-c0n, cpuMs(many.cmd.Process.Pid)-c0m, sumCPU(sshs)-c0s
	fmt.Printf("  %-44s %7.0f\n", "daemon, no remote (baseline)", dn)
	fmt.Printf("  %-44s %7.0f\n", fmt.Sprintf("daemon, %d remotes", *remotes), dm)
	fmt.Printf("  %-44s %7.0f\n", fmt.Sprintf("its %d ssh processes", len(sshs)), ds)
	fmt.Printf("  one ssh process per remote: %s; idle cost beyond the baseline %.0f ms in %s (a clock tick is 10 ms): %s\n",
		stats.Verdict(len(sshs) == *remotes), dm+ds-dn, *idle, stats.Verdict(dm+ds-dn <= 20))
	none.stop()
	many.stop()
}

// bt stands in for a test for sshtest: a failure ends the program.
type bt struct{ cleanups []func() }

func (b *bt) Helper()           {}
func (b *bt) Fatal(args ...any) { b.cleanup(); stats.Fail(fmt.Sprint(args...)) }
func (b *bt) Fatalf(format string, args ...any) {
	b.cleanup()
	stats.Fail(fmt.Sprintf(format, args...))
}
func (b *bt) Skipf(format string, args ...any) {
	b.cleanup()
	fmt.Printf(" skipped: "+format+"\n", args...)
	os.Exit(0)
}
func (b *bt) Cleanup(f func())                { b.cleanups = append(b.cleanups, f) }
func (b *bt) Failed() bool                    { return false }
func (b *bt) Logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (b *bt) cleanup() {
	for i := len(b.cleanups) - 1; i >= 0; i-- {
		b.cleanups[i]()
	}
	b.cleanups = nil
}

// remote is the remote host's daemon and what it watches.
type remote struct {
	bin, config, root string
}

func remoteSide(b *bt, s *sshtest.Server, bin string) remote {
	r := remote{bin: filepath.Join(s.Base, "logwatch"), config: filepath.Join(s.Base, "config.yaml"), root: filepath.Join(s.Base, "claude")}
	data, err := os.ReadFile(bin)
	stats.Check(err)
	stats.Check(os.WriteFile(r.bin, data, 0o755))
	stats.Check(os.MkdirAll(filepath.Join(r.root, "-w-app"), 0o755))
	stats.Check(os.WriteFile(r.config, []byte(fmt.Sprintf("socket: %s\nagents:\n  claude: {roots: [%s], registry: []}\ncheckpoint: \"\"\nlog: {level: warn}\n",
		filepath.Join(s.Base, "run", "lw.sock"), r.root)), 0o644))
	s.Own(b, s.Base)
	d := s.Command([]string{"LOGWATCH_CONFIG=" + r.config}, r.bin, "run")
	stats.Check(d.Start())
	b.Cleanup(func() { d.Process.Signal(syscall.SIGTERM); d.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(s.Base, "run", "lw.sock")); err == nil {
			return r
		}
		if time.Now().After(deadline) {
			b.Fatal("the remote daemon never made its socket")
		}
	}
}

// appendLine writes a prompt line to a new remote session's transcript, as
// Claude Code appends it.
func appendLine(r remote, sid string) {
	f, err := os.OpenFile(filepath.Join(r.root, "-w-app", sid+".jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	stats.Check(err)
	fmt.Fprintf(f, `{"type":"user","sessionId":%q,"cwd":"/w/app","timestamp":%q,"message":{"role":"user","content":"go"}}`+"\n",
		sid, time.Now().UTC().Format(time.RFC3339Nano))
	stats.Check(f.Close())
}

// daemon is this machine's `logwatch run`.
type daemon struct {
	cmd *exec.Cmd
	env []string
	dir string
}

func startLocal(b *bt, bin string, s *sshtest.Server, r remote, remotes int) *daemon {
	dir, err := os.MkdirTemp("", "lwrb")
	stats.Check(err)
	b.Cleanup(func() { os.RemoveAll(dir) })
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "socket: %s\ncheckpoint: \"\"\nlog: {level: warn}\nremotes:\n", filepath.Join(dir, "run", "lw.sock"))
	if remotes == 0 {
		cfg.WriteString("  []\n")
	}
	for i := range remotes {
		name := "box"
		if i > 0 {
			name = fmt.Sprintf("box%d", i)
		}
		fmt.Fprintf(&cfg, "  - {name: %s, dest: %s, command: %q, ssh: [\"-F\", %q]}\n", name, sshtest.Host,
			"LOGWATCH_CONFIG="+r.config+" "+r.bin, s.Config)
	}
	stats.Check(os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg.String()), 0o644))
	home := filepath.Join(dir, "home")
	d := &daemon{dir: dir, env: []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"LOGWATCH_CONFIG=" + filepath.Join(dir, "config.yaml"), "PATH=" + os.Getenv("PATH")}}
	d.cmd = exec.Command(bin, "run")
	d.cmd.Env = d.env
	stats.Check(d.cmd.Start())
	b.Cleanup(d.stop)
	return d
}

func (d *daemon) stop() {
	if d.cmd.ProcessState == nil {
		d.cmd.Process.Signal(syscall.SIGTERM)
		d.cmd.Wait()
	}
}

// waitUp waits until the daemon's n remotes are linked.
func waitUp(d *daemon, n int) {
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		cmd := exec.Command(os.Getenv("LOGWATCH_BIN"), "status", "--json")
		cmd.Env = d.env
		out, err := cmd.Output()
		if err != nil {
			continue
		}
		var st struct{ Remotes []struct{ State string } }
		if json.Unmarshal(out, &st) != nil {
			continue
		}
		up := 0
		for _, r := range st.Remotes {
			if r.State == "up" {
				up++
			}
		}
		if up == n {
			return
		}
	}
	stats.Fail(fmt.Sprintf("%d remotes never all up", n))
}

// stream is a `logwatch events --json` and when each session's first
// change arrived.
type stream struct {
	cmd  *exec.Cmd
	out  io.ReadCloser
	seen chan seen
}

type seen struct {
	session, host string
	at            time.Time
}

func events(b *bt, cmd *exec.Cmd) *stream {
	out, err := cmd.StdoutPipe()
	stats.Check(err)
	return &stream{cmd: cmd, out: out, seen: make(chan seen, 1024)}
}

func (s *stream) start(b *bt) {
	stats.Check(s.cmd.Start())
	b.Cleanup(s.stop)
	go func() {
		sc := bufio.NewScanner(s.out)
		for sc.Scan() {
			at := time.Now()
			var ev struct {
				Session, Host string
				Snapshot      bool
			}
			if json.Unmarshal(sc.Bytes(), &ev) == nil && !ev.Snapshot {
				s.seen <- seen{ev.Session, ev.Host, at}
			}
		}
	}()
}

func (s *stream) stop() {
	if s.cmd.Process != nil && s.cmd.ProcessState == nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}

// wait returns when the session's change (from host) arrived.
func (s *stream) wait(session, host string) time.Time {
	at, ok := s.arrival(session, host, 10*time.Second)
	if !ok {
		stats.Fail("no change of " + session + " within 10 s")
	}
	return at
}

// waitFor reports whether the session's change (from host) arrives within d.
func (s *stream) waitFor(session, host string, d time.Duration) bool {
	_, ok := s.arrival(session, host, d)
	return ok
}

// arrival is when the session's change from host arrived, within d.
func (s *stream) arrival(session, host string, d time.Duration) (time.Time, bool) {
	timeout := time.After(d)
	for {
		select {
		case v := <-s.seen:
			if v.session == session && v.host == host {
				return v.at, true
			}
		case <-timeout:
			return time.Time{}, false
		}
	}
}

// children are the pids of pid's children running name.
func children(pid int, name string) []int {
	var out []int
	ents, err := os.ReadDir("/proc")
	stats.Check(err)
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := stats.ReadProc(p); err == nil && st.PPid == pid && st.Comm == name {
			out = append(out, p)
		}
	}
	return out
}

// cpuMs is a process's user+system CPU time in ms (0 once it is gone).
func cpuMs(pid int) float64 {
	st, err := stats.ReadProc(pid)
	if err != nil {
		return 0
	}
	return float64(st.Ticks) * 10 // USER_HZ is 100 on Linux
}

func sumCPU(pids []int) float64 {
	t := 0.0
	for _, p := range pids {
		t += cpuMs(p)
	}
	return t
}
