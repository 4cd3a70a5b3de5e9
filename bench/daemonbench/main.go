// Command daemonbench measures the real daemon (`logwatch run`) for
// bench/daemon.sh:
//
//	daemonbench rss     [-files 10000 -dirs 500]  anonymous memory after start-up over existing transcripts
//	daemonbench latency [-n 200 -sessions 3]       append → published state, Codex beside Claude
//
// Each prints its numbers next to a baseline measured in the same run.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/logwatch/logwatch/bench/stats"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

func main() {
	if len(os.Args) < 2 {
		stats.Fail("usage: daemonbench rss|latency [flags]")
	}
	bin := os.Getenv("LOGWATCH_BIN")
	switch os.Args[1] {
	case "rss":
		fs := flag.NewFlagSet("rss", flag.ExitOnError)
		files := fs.Int("files", 10000, "existing two-line transcripts")
		dirs := fs.Int("dirs", 500, "project folders they are spread over")
		idle := fs.Duration("idle", 30*time.Second, "how long memory is then watched while the daemon idles (checkpoints, sweeps)")
		fs.Parse(os.Args[2:])
		rss(bin, *files, *dirs, *idle)
	case "latency":
		fs := flag.NewFlagSet("latency", flag.ExitOnError)
		n := fs.Int("n", 200, "appends per agent and writer mode")
		sessions := fs.Int("sessions", 3, "live sessions per agent")
		fs.Parse(os.Args[2:])
		latency(bin, *n, *sessions)
	default:
		stats.Fail("unknown command " + os.Args[1])
	}
}

// daemon is a running `logwatch run` over fresh roots in a temp dir.
type daemon struct {
	dir, claude, codex, pi, socket string
	cmd                            *exec.Cmd
}

func newDaemon(bin string) *daemon {
	if bin == "" {
		stats.Fail("set LOGWATCH_BIN (bench/run does)")
	}
	dir, err := os.MkdirTemp("", "lwdaemon")
	stats.Check(err)
	d := &daemon{dir: dir, claude: filepath.Join(dir, "claude"), codex: filepath.Join(dir, "codex"),
		pi: filepath.Join(dir, "pi"), socket: filepath.Join(dir, "lw.sock")}
	stats.Check(os.MkdirAll(d.claude, 0o755))
	stats.Check(os.MkdirAll(d.codex, 0o755))
	stats.Check(os.MkdirAll(d.pi, 0o755))
	return d
}

func (d *daemon) start(bin string) {
	d.cmd = exec.Command(bin, "run")
	d.cmd.Env = append(os.Environ(), "LOGWATCH_SOCKET="+d.socket, "HOME="+d.dir,
		"LOGWATCH_AGENTS_CLAUDE_ROOTS="+d.claude, "LOGWATCH_AGENTS_CODEX_ROOTS="+d.codex,
		"LOGWATCH_AGENTS_PI_ROOTS="+d.pi, "LOGWATCH_LOG_LEVEL=warn")
	d.cmd.Stderr = os.Stderr
	stats.Check(d.cmd.Start())
}

func (d *daemon) dial() *client.Client {
	for i := 0; i < 1000; i++ {
		if c, err := client.Dial(context.Background(), d.socket); err == nil {
			return c
		}
		time.Sleep(10 * time.Millisecond)
	}
	stats.Fail("daemon did not open its socket")
	return nil
}

func (d *daemon) stop() {
	if d.cmd != nil && d.cmd.Process != nil {
		d.cmd.Process.Signal(syscall.SIGTERM)
		d.cmd.Wait()
	}
	os.RemoveAll(d.dir)
}

// cpuTicks is a process's user+system CPU time in clock ticks.
func cpuTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	stats.Check(err)
	// Fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// anon reads a process's anonymous memory, in MiB: its resident anonymous
// pages (RssAnon: heap, stacks) and their proportional share (Pss_Anon).
// Memory is measured this way, not as RSS: the binary's own pages are file
// pages, shared with every logwatch process and reclaimable at any time.
func anon(pid int) (rss, pss float64) {
	rss = procStatus(pid)["RssAnon"]
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	stats.Check(err)
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "Pss_Anon:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			pss = kb / 1024
		}
	}
	return rss, pss
}

// procStatus reads the memory fields (kB) of /proc/<pid>/status, in MiB.
func procStatus(pid int) map[string]float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	stats.Check(err)
	defer f.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || fields[2] != "kB" {
			continue
		}
		kb, _ := strconv.ParseFloat(fields[1], 64)
		m[strings.TrimSuffix(fields[0], ":")] = kb / 1024
	}
	return m
}

// split is the resident set's parts: the heap and stacks (anonymous) and
// the binary's and libraries' pages (file-backed), and its peak.
func split(pid int) string {
	m := procStatus(pid)
	return fmt.Sprintf("RSS %.1f = anon %.1f + file %.1f, peak RSS %.1f", m["VmRSS"], m["RssAnon"], m["RssFile"]+m["RssShmem"], m["VmHWM"])
}

const claudeID = "00000000-0000-4000-8000-%012d"

// claudeLines is a finished two-line transcript: a prompt and its answer.
func claudeLines(id, cwd string) string {
	return fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":%q,"version":"2.1.328","timestamp":"2026-12-01T08:00:00.000Z","message":{"role":"user","content":"hello"}}`+"\n"+
		`{"type":"assistant","sessionId":%q,"cwd":%q,"version":"2.1.328","timestamp":"2026-12-01T08:00:01.000Z","message":{"role":"assistant","model":"m","stop_reason":"end_turn","content":[{"type":"text","text":"hi"}]}}`+"\n",
		id, cwd, id, cwd)
}

func rss(bin string, files, dirs int, idle time.Duration) {
	d := newDaemon(bin)
	defer d.stop()
	for i := 0; i < files; i++ {
		p := filepath.Join(d.claude, fmt.Sprintf("-w-p%03d", i%dirs))
		if i < dirs {
			stats.Check(os.MkdirAll(p, 0o755))
		}
		id := fmt.Sprintf(claudeID, i)
		stats.Check(os.WriteFile(filepath.Join(p, id+".jsonl"), []byte(claudeLines(id, "/w/p")), 0o644))
	}
	// Baseline: the same binary started with nothing to watch.
	e := newDaemon(bin)
	e.start(bin)
	e.dial().Close()
	time.Sleep(2 * time.Second)
	ecur, _ := anon(e.cmd.Process.Pid)
	esplit := split(e.cmd.Process.Pid)
	e.stop()

	fmt.Printf("daemon anonymous memory (RssAnon, MiB), %d two-line transcripts in %d folders, then idle for %s\n", files, dirs, idle)
	fresh := d.measureRSS(bin, files, idle, "first start")
	// A user's daemon restarts over its checkpoint (the state file in
	// HOME): restored sessions must cost no more than folded ones.
	stats.Check(d.cmd.Process.Signal(syscall.SIGTERM))
	stats.Check(d.cmd.Wait())
	restart := d.measureRSS(bin, files, idle, "restart over its checkpoint")
	fmt.Printf("  baseline: the same daemon with empty roots: anon %.1f MiB (%s); sessions add %.1f MiB (%.2f KiB each), %.1f MiB after a restart\n",
		ecur, esplit, fresh-ecur, (fresh-ecur)*1024/float64(files), restart-ecur)
	fmt.Printf("  target anon ≤ 12 MiB at 10 000 sessions (at most while idle, first start and restart)   %s\n", stats.Verdict(fresh <= 12 && restart <= 12))
}

// measureRSS starts d and prints its anonymous memory once start-up is over
// and at most while it then idles; it returns the latter.
func (d *daemon) measureRSS(bin string, files int, idle time.Duration, name string) float64 {
	t0 := time.Now()
	d.start(bin)
	c := d.dial()
	defer c.Close()
	// Start-up is over when the daemon stops using CPU; the session count
	// is checked after memory is read (a status reply of 10 000 sessions
	// would itself cost the daemon memory).
	last, still := cpuTicks(d.cmd.Process.Pid), 0
	for still < 10 {
		time.Sleep(100 * time.Millisecond)
		now := cpuTicks(d.cmd.Process.Pid)
		if now == last && time.Since(t0) > time.Second {
			still++
		} else {
			still = 0
		}
		last = now
		if time.Since(t0) > 2*time.Minute {
			stats.Fail("daemon still busy after 2 minutes")
		}
	}
	ready := time.Since(t0) - time.Second
	time.Sleep(5 * time.Second) // settle: the runtime returns what start-up freed
	cur, pss := anon(d.cmd.Process.Pid)
	dsplit := split(d.cmd.Process.Pid)
	// Idle is not still: periodic checkpoints and sweeps allocate, and
	// what the runtime keeps of it is resident too.
	most := cur
	for t := time.Now(); time.Since(t) < idle; {
		time.Sleep(time.Second)
		if now, _ := anon(d.cmd.Process.Pid); now > most {
			most = now
		}
	}
	st, err := c.Status(context.Background())
	stats.Check(err)
	if len(st.Sessions) != files {
		stats.Fail(fmt.Sprintf("%s: %d sessions known, want %d", name, len(st.Sessions), files))
	}
	fmt.Printf("  %-28s anon %.1f MiB after start-up (Pss_Anon %.1f; %s), idle %.2f s after start; at most %.1f MiB while idle\n",
		name+":", cur, pss, dsplit, ready.Seconds(), most)
	return most
}

// writer appends lines to a session file, either through a file it keeps
// open or by opening, appending and closing per write.
type writer struct {
	path string
	f    *os.File
}

func (w *writer) write(keep bool, s string) {
	stats.Check(os.MkdirAll(filepath.Dir(w.path), 0o755))
	if keep {
		if w.f == nil {
			f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			stats.Check(err)
			w.f = f
		}
		_, err := w.f.WriteString(s)
		stats.Check(err)
		return
	}
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	stats.Check(err)
	_, err = f.WriteString(s)
	stats.Check(err)
	stats.Check(f.Close())
}

func (w *writer) close() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
}

// liveSession is one agent session under test: its file, the lines that
// start and end a turn, and the states they publish.
type liveSession struct {
	id     string
	w      writer
	start  func(i int) string
	finish func(i int) string
	turn   int // appends so far: even opens a turn, odd ends it
}

func claudeSession(root string, k int, newDir bool) *liveSession {
	id := fmt.Sprintf("11111111-0000-4000-8000-%012d", k)
	dir := filepath.Join(root, "-w-live")
	if newDir {
		// Created by the timed write itself.
		dir = filepath.Join(root, fmt.Sprintf("-w-new%d", k))
	} else {
		stats.Check(os.MkdirAll(dir, 0o755))
	}
	line := func(typ, body string, i int) string {
		return fmt.Sprintf(`{"type":%q,"sessionId":%q,"cwd":"/w/live","version":"2.1.328","timestamp":%q,%s}`+"\n",
			typ, id, time.Now().UTC().Format(time.RFC3339Nano), body)
	}
	return &liveSession{id: id, w: writer{path: filepath.Join(dir, id+".jsonl")},
		start: func(i int) string {
			return line("user", fmt.Sprintf(`"message":{"role":"user","content":"prompt %d"}`, i), i)
		},
		finish: func(i int) string {
			return line("system", `"subtype":"turn_duration","durationMs":5`, i)
		}}
}

func codexSession(root string, k int, newDir bool) *liveSession {
	id := fmt.Sprintf("22222222-0000-4000-8000-%012d", k)
	now := time.Now().UTC()
	dir := filepath.Join(root, now.Format("2006"), now.Format("01"), now.Format("02"))
	if newDir {
		// A day that has no folder yet, as at midnight: three new levels.
		day := now.AddDate(k, 0, 0)
		dir = filepath.Join(root, day.Format("2006"), day.Format("01"), day.Format("02"))
	}
	path := filepath.Join(dir, "rollout-"+now.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
	ev := func(body string) string {
		return fmt.Sprintf(`{"timestamp":%q,"type":"event_msg","payload":%s}`+"\n", time.Now().UTC().Format(time.RFC3339Nano), body)
	}
	s := &liveSession{id: id, w: writer{path: path},
		start: func(i int) string {
			return ev(fmt.Sprintf(`{"type":"task_started","turn_id":"t%d"}`, i))
		},
		finish: func(i int) string {
			if i%3 == 2 {
				return ev(fmt.Sprintf(`{"type":"turn_aborted","turn_id":"t%d","reason":"interrupted"}`, i))
			}
			return ev(fmt.Sprintf(`{"type":"task_complete","turn_id":"t%d","last_agent_message":"ok"}`, i))
		}}
	meta := fmt.Sprintf(`{"timestamp":%q,"type":"session_meta","payload":{"id":%q,"cwd":"/w/live","cli_version":"0.169.0","originator":"codex_cli_rs"}}`+"\n",
		now.Format(time.RFC3339Nano), id)
	if newDir {
		// The timed write creates the folders and the file, meta and all.
		start := s.start
		s.start = func(i int) string {
			if i == 0 {
				return meta + start(i)
			}
			return start(i)
		}
		return s
	}
	stats.Check(os.MkdirAll(dir, 0o755))
	stats.Check(os.WriteFile(path, []byte(meta), 0o644))
	return s
}

// piSession is a pi session file (formats/pi.md): its header, then a
// prompt opens each turn and an answer Esc cut short ends it (pi writes no
// turn-end record: a finished answer ends the turn only after the quiet
// period, which is not what this measures).
func piSession(root string, k int) *liveSession {
	id := fmt.Sprintf("33333333-0000-4000-8000-%012d", k)
	now := time.Now().UTC()
	dir := filepath.Join(root, "--w-live--")
	stats.Check(os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, now.Format("2006-01-02T15-04-05-000Z")+"_"+id+".jsonl")
	n := 0
	entry := func(msg string) string {
		n++
		return fmt.Sprintf(`{"type":"message","id":"%08x","parentId":"%08x","timestamp":%q,"message":%s}`+"\n",
			n, n-1, time.Now().UTC().Format(time.RFC3339Nano), msg)
	}
	head := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":%q,"cwd":"/w/live"}`+"\n", id, now.Format(time.RFC3339Nano))
	stats.Check(os.WriteFile(path, []byte(head), 0o644))
	return &liveSession{id: id, w: writer{path: path},
		start: func(i int) string {
			return entry(fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"prompt %d"}],"timestamp":1}`, i))
		},
		finish: func(i int) string {
			return entry(`{"role":"assistant","content":[{"type":"text","text":"part"}],"stopReason":"aborted","errorMessage":"Operation aborted","timestamp":1}`)
		}}
}

// measure appends alternately a turn start and a turn end to each session in
// turn and times each append until the daemon publishes the state it implies.
func measure(evs <-chan wire.Event, ss []*liveSession, n int, keep bool) []time.Duration {
	var out []time.Duration
	for i := 0; i < n; i++ {
		s := ss[i%len(ss)]
		turn := s.turn
		s.turn++
		line, want := s.start(turn), "working"
		if turn%2 == 1 {
			line, want = s.finish(turn), ""
		}
		t0 := time.Now()
		s.w.write(keep, line)
		deadline := time.After(5 * time.Second)
	wait:
		for {
			select {
			case e := <-evs:
				if e.Session != s.id {
					continue
				}
				if os.Getenv("DAEMONBENCH_TRACE") != "" {
					fmt.Fprintf(os.Stderr, "%s +%v %s %s %s %s\n", e.Agent, time.Since(t0), e.State, e.Reason, e.Rule, strings.TrimSpace(line)[:60])
				}
				if want == "" && e.State != "working" || want != "" && e.State == want {
					out = append(out, time.Since(t0))
					break wait
				}
			case <-deadline:
				stats.Fail(fmt.Sprintf("session %s: no %q within 5 s after %q", s.id, want, strings.TrimSpace(line)))
			}
		}
	}
	for _, s := range ss {
		s.w.close()
	}
	return out
}

func latency(bin string, n, sessions int) {
	d := newDaemon(bin)
	defer d.stop()
	d.start(bin)
	c := d.dial()
	defer c.Close()
	evs, _, err := c.Subscribe(context.Background())
	stats.Check(err)

	fmt.Printf("append → published state, %d live sessions per agent, %d appends each (turn start / turn end alternating)\n", sessions, n)
	fmt.Printf("  %-34s %9s %9s %9s\n", "", "p50 ms", "p99 ms", "max ms")
	k := 0
	for _, keep := range []bool{true, false} {
		mode := "writer keeps files open"
		if !keep {
			mode = "open-append-close per write"
		}
		var cl, cx, cp []*liveSession
		for j := 0; j < sessions; j++ {
			cl = append(cl, claudeSession(d.claude, k, false))
			cx = append(cx, codexSession(d.codex, k, false))
			cp = append(cp, piSession(d.pi, k))
			k++
		}
		// Let the daemon find the new files before timing (discovery of a
		// new file is not what this measures).
		all := slices.Concat(cl, cx, cp)
		for _, s := range all {
			s.w.write(keep, s.start(-1))
		}
		settle(evs, 2*time.Second)
		for _, s := range all {
			s.w.write(keep, s.finish(-1))
		}
		settle(evs, 2*time.Second)
		// Interleave the agents so all see the same machine.
		var tc, tx, tp []time.Duration
		for r := 0; r < 10; r++ {
			tc = append(tc, measure(evs, cl, n/10, keep)...)
			tx = append(tx, measure(evs, cx, n/10, keep)...)
			tp = append(tp, measure(evs, cp, n/10, keep)...)
		}
		row := func(name string, t []time.Duration) {
			fmt.Printf("  %-34s %9.2f %9.2f %9.2f\n", name, stats.Ms(stats.Pct(t, 50)), stats.Ms(stats.Pct(t, 99)), stats.Ms(stats.Pct(t, 100)))
		}
		fmt.Printf(" %s\n", mode)
		row("claude", tc)
		row("codex", tx)
		row("pi", tp)
		// A session that starts while the daemon runs: its file is created
		// with the line that opens the turn.
		var nc, nx, dc, dx []time.Duration
		for r := 0; r < 10; r++ {
			s := claudeSession(d.claude, k, false)
			nc = append(nc, measure(evs, []*liveSession{s}, 1, keep)...)
			s = codexSession(d.codex, k, false)
			nx = append(nx, measure(evs, []*liveSession{s}, 1, keep)...)
			k++
			s = claudeSession(d.claude, k, true)
			dc = append(dc, measure(evs, []*liveSession{s}, 1, keep)...)
			s = codexSession(d.codex, k, true)
			dx = append(dx, measure(evs, []*liveSession{s}, 1, keep)...)
			k++
		}
		row("claude, new file", nc)
		row("codex, new file", nx)
		row("claude, new file in a new folder", dc)
		row("codex, new file in a new day", dx)
		tc, tx = append(tc, nc...), append(tx, nx...)
		r := float64(stats.Pct(tx, 99)) / float64(stats.Pct(tc, 99))
		ok := stats.Pct(tx, 99) <= 10*time.Millisecond
		fmt.Printf("  codex/claude p99 %.2f   target codex p99 ≤ 10 ms, as claude   %s\n", r, stats.Verdict(ok))
		rp := float64(stats.Pct(tp, 99)) / float64(stats.Pct(tc, 99))
		fmt.Printf("  pi/claude p99 %.2f   target pi p99 ≤ 10 ms   %s\n", rp, stats.Verdict(stats.Pct(tp, 99) <= 10*time.Millisecond))
	}
	afterStart(bin, 5)
}

// afterStart times the first append after start-up, in a daemon started
// for it over one finished session of the agent: the first time the live
// path runs. The RSS of file-backed pages right before the append is
// printed beside.
func afterStart(bin string, rounds int) {
	var tc, tx []time.Duration
	var mapped []float64
	for r := 0; r < rounds; r++ {
		for _, agent := range []string{"claude", "codex"} {
			d := newDaemon(bin)
			s := claudeSession(d.claude, r, false)
			if agent == "codex" {
				s = codexSession(d.codex, r, false)
			}
			s.w.write(false, s.start(-1))
			s.w.write(false, s.finish(-1))
			d.start(bin)
			c := d.dial()
			evs, _, err := c.Subscribe(context.Background())
			stats.Check(err)
			settle(evs, 3*time.Second) // start-up, then idle
			mapped = append(mapped, procStatus(d.cmd.Process.Pid)["RssFile"])
			t := measure(evs, []*liveSession{s}, 2, false)[0]
			if agent == "claude" {
				tc = append(tc, t)
			} else {
				tx = append(tx, t)
			}
			c.Close()
			d.stop()
		}
	}
	sort.Float64s(mapped)
	fmt.Printf(" first append after start-up (%d daemons each; file-backed pages before it %.1f-%.1f MiB)\n", rounds, mapped[0], mapped[len(mapped)-1])
	for _, a := range []struct {
		name string
		t    []time.Duration
	}{{"claude", tc}, {"codex", tx}} {
		fmt.Printf("  %-34s %9.2f %9.2f %9.2f\n", a.name, stats.Ms(stats.Pct(a.t, 50)), stats.Ms(stats.Pct(a.t, 99)), stats.Ms(stats.Pct(a.t, 100)))
	}
}

// settle drains events until none arrives for a while (at most d).
func settle(evs <-chan wire.Event, d time.Duration) {
	end := time.After(d)
	for {
		select {
		case <-evs:
		case <-end:
			return
		}
	}
}
