// Command daemonbench measures the real daemon (`logwatch run`) for
// bench/daemon.sh:
//
//	daemonbench rss      [-files 10000 -dirs 500]  anonymous memory after start-up over existing transcripts
//	daemonbench latency  [-n 200 -sessions 3]       append (or OpenCode's commit) → published state, beside Claude
//	daemonbench opencode [-sessions 1000 -idle 30s] start-up, memory and idle CPU over OpenCode's stored sessions
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
	"github.com/logwatch/logwatch/parsers/opencode/store/storetest"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

func main() {
	if len(os.Args) < 2 {
		stats.Fail("usage: daemonbench rss|latency|opencode [flags]")
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
	case "opencode":
		fs := flag.NewFlagSet("opencode", flag.ExitOnError)
		sessions := fs.Int("sessions", 1000, "stored root sessions (every fourth with a child session), 2 turns each; memory also at twice as many")
		idle := fs.Duration("idle", 30*time.Second, "how long CPU and memory are watched while the daemons idle")
		rounds := fs.Int("rounds", 3, "start-ups timed per database")
		fs.Parse(os.Args[2:])
		opencodeRun(bin, *sessions, *idle, *rounds)
	default:
		stats.Fail("unknown command " + os.Args[1])
	}
}

// daemon is a running `logwatch run` over fresh roots in a temp dir.
type daemon struct {
	dir, claude, codex, pi, gemini, copilot, socket string
	// opencode is OpenCode's root: the folder its database is in.
	opencode string
	// debug, when set, is called with each line the daemon logs, at debug
	// level (start-up's end: bootLine).
	debug func(line string)
	cmd   *exec.Cmd
}

func newDaemon(bin string) *daemon {
	if bin == "" {
		stats.Fail("set LOGWATCH_BIN (bench/run does)")
	}
	dir, err := os.MkdirTemp("", "lwdaemon")
	stats.Check(err)
	d := &daemon{dir: dir, claude: filepath.Join(dir, "claude"), codex: filepath.Join(dir, "codex"),
		pi: filepath.Join(dir, "pi"), opencode: filepath.Join(dir, "opencode"),
		gemini: filepath.Join(dir, "gemini"), copilot: filepath.Join(dir, "copilot"), socket: filepath.Join(dir, "lw.sock")}
	for _, root := range []string{d.claude, d.opencode, d.codex, d.pi, d.gemini, d.copilot} {
		stats.Check(os.MkdirAll(root, 0o755))
	}
	return d
}

func (d *daemon) start(bin string) {
	d.cmd = exec.Command(bin, "run")
	d.cmd.Env = append(os.Environ(), "LOGWATCH_SOCKET="+d.socket, "HOME="+d.dir,
		"LOGWATCH_AGENTS_CLAUDE_ROOTS="+d.claude, "LOGWATCH_AGENTS_CODEX_ROOTS="+d.codex,
		"LOGWATCH_AGENTS_PI_ROOTS="+d.pi, "LOGWATCH_AGENTS_OPENCODE_ROOTS="+d.opencode,
		"LOGWATCH_AGENTS_GEMINI_ROOTS="+d.gemini, "LOGWATCH_AGENTS_COPILOT_ROOTS="+d.copilot, "LOGWATCH_LOG_LEVEL=warn")
	if d.debug == nil {
		d.cmd.Stderr = os.Stderr
	} else {
		d.cmd.Env = append(d.cmd.Env, "LOGWATCH_LOG_LEVEL=debug") // the later one counts
		r, err := d.cmd.StderrPipe()
		stats.Check(err)
		go func(f func(string)) {
			sc := bufio.NewScanner(r)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				f(sc.Text())
			}
		}(d.debug)
	}
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

// bootLine is what the daemon logs (at debug level) once its relay booted:
// the present state of every log and database folded and published.
const bootLine = "start-up memory released"

// startup starts d and returns how long it took to give its first status
// answer and to boot, and the sessions it knows once booted; c is left
// connected.
func (d *daemon) startup(bin string) (c *client.Client, answer, booted time.Duration, known int) {
	bootC := make(chan time.Time, 1)
	d.debug = func(l string) {
		if strings.Contains(l, bootLine) {
			select {
			case bootC <- time.Now():
			default:
			}
		}
	}
	t0 := time.Now()
	d.start(bin)
	c = d.dial()
	_, err := c.Status(context.Background())
	stats.Check(err)
	answer = time.Since(t0)
	select {
	case t := <-bootC:
		booted = t.Sub(t0)
	case <-time.After(2 * time.Minute):
		stats.Fail("daemon not booted after 2 minutes")
	}
	st, err := c.Status(context.Background())
	stats.Check(err)
	return c, answer, booted, len(st.Sessions)
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
	last, still := stats.CPUTicks(d.cmd.Process.Pid), 0
	for still < 10 {
		time.Sleep(100 * time.Millisecond)
		now := stats.CPUTicks(d.cmd.Process.Pid)
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
	// commit, when set, is the write instead of start/finish (a database):
	// it opens (start) or ends the turn and returns when it committed.
	commit func(start bool) time.Time
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

// geminiSession is a Gemini CLI chat file (formats/gemini.md §2): its
// header and session context, then a prompt opens each turn and a cancel
// ("Request cancelled.") ends it (an answer ends it only with the AfterAgent
// hook or after the quiet period, which is not what this measures).
func geminiSession(root string, k int) *liveSession {
	// The file is named by the start's minute and the id's first 8 digits.
	id := fmt.Sprintf("%08x-0000-4000-8000-%012d", 0x44440000+k, k)
	now := time.Now().UTC()
	dir := filepath.Join(root, "live", "chats")
	stats.Check(os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, "session-"+now.Format("2006-01-02T15-04")+"-"+id[:8]+".jsonl")
	n := 0
	rec := func(body string) string {
		n++
		ts := time.Now().UTC().Format(time.RFC3339Nano)
		return fmt.Sprintf(`{"id":"%032x","timestamp":%q,%s}`+"\n"+`{"$set":{"lastUpdated":%q}}`+"\n", n, ts, body, ts)
	}
	head := fmt.Sprintf(`{"sessionId":%q,"projectHash":"00","startTime":%q,"lastUpdated":%q,"kind":"main"}`+"\n", id,
		now.Format(time.RFC3339Nano), now.Format(time.RFC3339Nano)) +
		`{"$set":{"messages":[{"id":"c0","type":"user","content":[{"text":"<session_context>\nlive\n</session_context>"}]}]}}` + "\n"
	stats.Check(os.WriteFile(path, []byte(head), 0o644))
	return &liveSession{id: id, w: writer{path: path},
		start: func(i int) string {
			return rec(fmt.Sprintf(`"type":"user","content":[{"text":"prompt %d"}]`, i))
		},
		finish: func(i int) string {
			return rec(`"type":"info","content":"Request cancelled."`)
		}}
}

// copilotSession is a Copilot CLI events.jsonl (formats/copilot.md §2): its
// session.start, then a prompt (user.message) opens each turn and an answer
// with no tool request, then assistant.turn_end, ends it.
func copilotSession(root string, k int) *liveSession {
	id := fmt.Sprintf("55555555-0000-4000-8000-%012d", k)
	dir := filepath.Join(root, id)
	stats.Check(os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, "events.jsonl")
	n := 0
	ev := func(typ, data string) string {
		n++
		return fmt.Sprintf(`{"type":%q,"data":%s,"id":"e%d","timestamp":%q,"parentId":"e%d"}`+"\n",
			typ, data, n, time.Now().UTC().Format(time.RFC3339Nano), n-1)
	}
	head := ev("session.start", fmt.Sprintf(`{"sessionId":%q,"version":1,"producer":"copilot-agent","copilotVersion":"1.0.102","context":{"cwd":"/w/live"}}`, id))
	stats.Check(os.WriteFile(path, []byte(head), 0o644))
	return &liveSession{id: id, w: writer{path: path},
		start: func(i int) string {
			return ev("user.message", fmt.Sprintf(`{"content":"prompt %d","messageId":"m%d","turnId":"%d"}`, i, i, i))
		},
		finish: func(i int) string {
			return ev("assistant.message", fmt.Sprintf(`{"messageId":"a%d","content":"ok","toolRequests":[],"turnId":"%d"}`, i, i)) +
				ev("assistant.turn_end", fmt.Sprintf(`{"turnId":"%d"}`, i))
		}}
}

// write opens (start) or ends turn i: it appends the line that does or
// commits it to the database. It returns when the write began (for a
// database: its commit) and what it wrote.
func (s *liveSession) write(keep, start bool, turn int) (time.Time, string) {
	if s.commit != nil {
		if start {
			return s.commit(true), "opencode: a prompt (its user message)"
		}
		return s.commit(false), "opencode: its answer completed"
	}
	line := s.finish(turn)
	if start {
		line = s.start(turn)
	}
	t0 := time.Now()
	s.w.write(keep, line)
	return t0, line
}

// opencodeSession is a session in OpenCode's database, written as OpenCode
// does (storetest.Writer: its schema, WAL, its connection settings): a
// prompt is its user message's row, a turn's end its answer completed,
// each one transaction with its event row.
func opencodeSession(w *storetest.Writer) *liveSession {
	id := w.Session("")
	return &liveSession{id: id, commit: func(start bool) time.Time {
		var t0 time.Time
		w.BeforeCommit = func() { t0 = time.Now() }
		defer func() { w.BeforeCommit = nil }()
		if start {
			w.Prompt(id)
		} else {
			w.Finish(id)
		}
		return t0
	}}
}

// benchT is what storetest needs of its caller, for a program: a failure
// ends it.
type benchT struct{}

func (benchT) Helper() {}
func (benchT) Fatalf(format string, args ...any) {
	stats.Fail(fmt.Sprintf(format, args...))
}

// measure appends alternately a turn start and a turn end to each session in
// turn and times each append until the daemon publishes the state it implies.
func measure(evs <-chan wire.Event, ss []*liveSession, n int, keep bool) []time.Duration {
	var out []time.Duration
	for i := 0; i < n; i++ {
		s := ss[i%len(ss)]
		turn := s.turn
		s.turn++
		want := "working"
		if turn%2 == 1 {
			want = ""
		}
		t0, line := s.write(keep, turn%2 == 0, turn)
		deadline := time.After(5 * time.Second)
	wait:
		for {
			select {
			case e := <-evs:
				if e.Session != s.id {
					continue
				}
				if os.Getenv("DAEMONBENCH_TRACE") != "" {
					l := strings.TrimSpace(line)
					fmt.Fprintf(os.Stderr, "%s +%v %s %s %s %s\n", e.Agent, time.Since(t0), e.State, e.Reason, e.Rule, l[:min(len(l), 60)])
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
	// OpenCode's database is there before the daemon, as on a machine
	// where OpenCode ran before.
	ow := storetest.NewWriter(benchT{}, filepath.Join(d.opencode, "opencode.db"))
	defer ow.Close()
	ow.Now = time.Now().UnixMilli()
	d.start(bin)
	c := d.dial()
	defer c.Close()
	evs, _, err := c.Subscribe(context.Background())
	stats.Check(err)

	fmt.Printf("append → published state, %d live sessions per agent, %d appends each (turn start / turn end alternating;\n", sessions, n)
	fmt.Printf("  OpenCode: commits to its database in WAL mode, timed from the commit)\n")
	fmt.Printf("  %-34s %9s %9s %9s\n", "", "p50 ms", "p99 ms", "max ms")
	k := 0
	for _, keep := range []bool{true, false} {
		mode := "writer keeps files open"
		if !keep {
			mode = "open-append-close per write"
		}
		var cl, cx, cp, co, cg, cc []*liveSession
		for j := 0; j < sessions; j++ {
			cl = append(cl, claudeSession(d.claude, k, false))
			cx = append(cx, codexSession(d.codex, k, false))
			cp = append(cp, piSession(d.pi, k))
			co = append(co, opencodeSession(ow))
			cg = append(cg, geminiSession(d.gemini, k))
			cc = append(cc, copilotSession(d.copilot, k))
			k++
		}
		// Let the daemon find the new files before timing (discovery of a
		// new file is not what this measures).
		all := slices.Concat(cl, cx, cp, co, cg, cc)
		for _, s := range all {
			s.write(keep, true, -1)
		}
		settle(evs, 2*time.Second)
		for _, s := range all {
			s.write(keep, false, -1)
		}
		settle(evs, 2*time.Second)
		// Interleave the agents so all see the same machine.
		var tc, tx, tp, to, tg, tt []time.Duration
		for r := 0; r < 10; r++ {
			tc = append(tc, measure(evs, cl, n/10, keep)...)
			tx = append(tx, measure(evs, cx, n/10, keep)...)
			tp = append(tp, measure(evs, cp, n/10, keep)...)
			to = append(to, measure(evs, co, n/10, keep)...)
			tg = append(tg, measure(evs, cg, n/10, keep)...)
			tt = append(tt, measure(evs, cc, n/10, keep)...)
		}
		row := func(name string, t []time.Duration) {
			fmt.Printf("  %-34s %9.2f %9.2f %9.2f\n", name, stats.Ms(stats.Pct(t, 50)), stats.Ms(stats.Pct(t, 99)), stats.Ms(stats.Pct(t, 100)))
		}
		fmt.Printf(" %s\n", mode)
		row("claude", tc)
		row("codex", tx)
		row("pi", tp)
		row("opencode (database commit)", to)
		row("gemini", tg)
		row("copilot", tt)
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
		ro := float64(stats.Pct(to, 99)) / float64(stats.Pct(tc, 99))
		fmt.Printf("  opencode/claude p99 %.2f   target opencode p99 ≤ 10 ms   %s\n", ro, stats.Verdict(stats.Pct(to, 99) <= 10*time.Millisecond))
		for _, a := range []struct {
			name string
			t    []time.Duration
		}{{"gemini", tg}, {"copilot", tt}} {
			r := float64(stats.Pct(a.t, 99)) / float64(stats.Pct(tc, 99))
			fmt.Printf("  %s/claude p99 %.2f   target %s p99 ≤ 10 ms   %s\n", a.name, r, a.name, stats.Verdict(stats.Pct(a.t, 99) <= 10*time.Millisecond))
		}
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

// opencodeDB writes a database as OpenCode leaves it in dir: sessions root
// sessions (every fourth with a child) of 2 turns, all within the last
// hour. The writer stays open, as an idle OpenCode's connection does.
func opencodeDB(dir string, sessions int) (w *storetest.Writer, rows int64, mb float64) {
	w = storetest.NewWriter(benchT{}, filepath.Join(dir, "opencode.db"))
	w.Now = time.Now().Add(-time.Hour).UnixMilli()
	rows = w.Fixture(sessions, 2)
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(w.Path + suffix); err == nil {
			mb += float64(fi.Size()) / (1 << 20)
		}
	}
	return w, rows, mb
}

// opencodeRun measures the daemon over OpenCode's stored sessions beside
// the same daemon with an empty root: start-up (to its first status answer
// and to its relay's boot), anonymous memory with sessions and twice as
// many, and CPU while the database is present and untouched.
func opencodeRun(bin string, sessions int, idle time.Duration, rounds int) {
	var dirs []string
	defer func() {
		for _, d := range dirs {
			os.RemoveAll(d)
		}
	}()
	fixture := func(n int) (string, *storetest.Writer, int64, float64) {
		dir, err := os.MkdirTemp("", "lwopencode")
		stats.Check(err)
		dirs = append(dirs, dir)
		w, rows, mb := opencodeDB(dir, n)
		return dir, w, rows, mb
	}
	one, w1, rows1, mb1 := fixture(sessions)
	defer w1.Close()
	two, w2, rows2, mb2 := fixture(2 * sessions)
	defer w2.Close()
	fmt.Printf("OpenCode's database: %d root sessions (and %d children) of 2 turns, %d event rows, %.0f MiB; twice as many: %d rows, %.0f MiB\n",
		sessions, sessions/4, rows1, mb1, rows2, mb2)

	// Start-up, fresh daemons alternating between an empty OpenCode root
	// and the database's.
	var ea, eb, oa, ob []time.Duration
	known := 0
	for r := 0; r < rounds; r++ {
		for _, root := range []string{"", one} {
			d := newDaemon(bin)
			if root != "" {
				d.opencode = root
			}
			c, answer, booted, n := d.startup(bin)
			c.Close()
			d.stop()
			if root == "" {
				ea, eb = append(ea, answer), append(eb, booted)
			} else {
				oa, ob, known = append(oa, answer), append(ob, booted), n
			}
		}
	}
	med := func(t []time.Duration) string {
		return fmt.Sprintf("%6.0f [%.0f-%.0f]", stats.Ms(stats.Pct(t, 50)), stats.Ms(stats.Pct(t, 0)), stats.Ms(stats.Pct(t, 100)))
	}
	fmt.Printf(" start-up, %d fresh daemons each (ms: median [min-max])  %-20s %-20s %s\n", rounds, "first status answer", "booted", "sessions known")
	fmt.Printf("  %-51s %-20s %-20s %d\n", "empty OpenCode root (baseline)", med(ea), med(eb), 0)
	fmt.Printf("  %-51s %-20s %-20s %d\n", fmt.Sprintf("%d stored sessions", sessions), med(oa), med(ob), known)
	added := stats.Pct(ob, 50) - stats.Pct(eb, 50)
	fmt.Printf("  booted: %.2f× the baseline, +%.0f ms   target start-up over %d sessions ≤ 1 s (beyond the baseline)   %s\n",
		float64(stats.Pct(ob, 50))/float64(stats.Pct(eb, 50)), stats.Ms(added), sessions, stats.Verdict(added <= time.Second))

	// Memory and idle CPU: three daemons side by side, so each sees the
	// same machine.
	type run struct {
		name      string
		d         *daemon
		anon, pss float64
		most      float64
		ticks     int64
		known     int
	}
	runs := []*run{{name: "empty OpenCode root (baseline)"}, {name: fmt.Sprintf("%d stored sessions", sessions)}, {name: fmt.Sprintf("%d stored sessions", 2*sessions)}}
	for i, root := range []string{"", one, two} {
		d := newDaemon(bin)
		if root != "" {
			d.opencode = root
		}
		defer d.stop()
		c, _, _, n := d.startup(bin)
		c.Close()
		runs[i].d, runs[i].known = d, n
	}
	// Start-up is over when none of them uses CPU for a second.
	last, still := make([]int64, len(runs)), 0
	for t0 := time.Now(); still < 10; {
		time.Sleep(100 * time.Millisecond)
		moved := false
		for i, r := range runs {
			now := stats.CPUTicks(r.d.cmd.Process.Pid)
			moved = moved || now != last[i]
			last[i] = now
		}
		if moved {
			still = 0
		} else {
			still++
		}
		if time.Since(t0) > 2*time.Minute {
			stats.Fail("daemons still busy after 2 minutes")
		}
	}
	time.Sleep(5 * time.Second) // settle: the runtime returns what start-up freed
	for _, r := range runs {
		r.anon, r.pss = anon(r.d.cmd.Process.Pid)
		r.most = r.anon
		r.ticks = stats.CPUTicks(r.d.cmd.Process.Pid)
	}
	for t := time.Now(); time.Since(t) < idle; {
		time.Sleep(time.Second)
		for _, r := range runs {
			if now, _ := anon(r.d.cmd.Process.Pid); now > r.most {
				r.most = now
			}
		}
	}
	for _, r := range runs {
		r.ticks = stats.CPUTicks(r.d.cmd.Process.Pid) - r.ticks
	}
	base := runs[0]
	fmt.Printf(" anonymous memory (MiB), three daemons side by side, after start-up and at most while idle for %s\n", idle)
	for i, r := range runs {
		extra := ""
		if i > 0 {
			extra = fmt.Sprintf("   +%.2f MiB (+%.2f per 1 000 sessions), at most +%.2f", r.anon-base.anon, (r.anon-base.anon)*1000/float64(sessions*i), r.most-base.most)
		}
		fmt.Printf("  %-36s anon %5.1f (Pss_Anon %5.1f), at most %5.1f; %d sessions known%s\n", r.name+":", r.anon, r.pss, r.most, r.known, extra)
	}
	// What sessions cost is the slope from N to 2N; beside no database at
	// all, the open database's own cost (the driver's connection and its
	// allocator's pool, about 0.9 MiB with 10 sessions) is in it too.
	slope := max(runs[2].anon-runs[1].anon, runs[2].most-runs[1].most) * 1000 / float64(sessions)
	perK := max(runs[1].most-base.most, (runs[2].most-base.most)/2) * 1000 / float64(sessions)
	fmt.Printf("  +%.2f MiB per 1 000 sessions more (%d → %d)   target ≤ +1 MiB per 1 000 sessions   %s\n",
		slope, sessions, 2*sessions, stats.Verdict(slope <= 1))
	fmt.Printf("  at most +%.2f MiB per 1 000 sessions beside no database (the open database's fixed cost included)\n", perK)
	fmt.Printf(" CPU while idle for %s, the database present and untouched (its writer's connection open): utime+stime, ms\n", idle)
	for _, r := range runs {
		fmt.Printf("  %-36s %5d\n", r.name+":", r.ticks*10)
	}
	worst := max(runs[1].ticks, runs[2].ticks)
	fmt.Printf("  beside the baseline: %+d ms   target nothing measurable (≤ 1 tick of 10 ms beyond it)   %s\n",
		(worst-base.ticks)*10, stats.Verdict(worst <= base.ticks+1))
}
