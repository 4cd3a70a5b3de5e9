// Package driver runs one agent scenario offline: a private HOME and work
// dir, a real `logwatch run` on its own socket with a live `logwatch events
// --json` (the Timeline of published changes), and terminals (tmux panes,
// the agent under `logwatch wrap`) typed into as a person types. The live
// conformance suite and `logwatch selftest` both drive agents through it;
// they reach it through TB, which *testing.T satisfies.
package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/logwatch/logwatch/internal/hookdebug"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// TB is what a scenario reports to: *testing.T, or selftest's runner. Fatal
// and Fatalf end the scenario (runtime.Goexit); Context is cancelled when
// the scenario must stop early (a test's end, a Ctrl+C), and every wait of
// the driver gives up then.
type TB interface {
	Helper()
	Name() string
	Log(args ...any)
	Logf(format string, args ...any)
	Error(args ...any)
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Failed() bool
	Cleanup(func())
	Context() context.Context
}

// Options make a Scenario.
type Options struct {
	Bin   string // the logwatch binary
	Agent string // the agent's name, for the latency summary
	// Dir is the scenario's folder (emptied first), kept after a pass
	// without its home; "" is a temp folder removed after a pass. A failed
	// scenario keeps its folder either way.
	Dir string
	// Verbose logs the timeline of a scenario that passed too.
	Verbose bool
}

// Scenario is one isolated world: a temp HOME, a work dir, a daemon on its
// own socket with a live `logwatch events --json`, and the panes started in
// it. Everything it writes is in Dir.
type Scenario struct {
	T     TB
	Agent string // pinned agent name, for the latency summary
	Bin   string // the logwatch binary
	Dir   string // artifacts: daemon.log, requests, pane output, timeline
	Home  string
	Work  string // the agent's cwd
	// Env is the environment of everything the scenario runs: HOME, XDG
	// dirs, PATH, LOGWATCH_SOCKET. Add to it before starting panes.
	Env []string

	socket   string
	short    string // short temp dir for sockets
	keepDir  bool   // Dir was given: keep it after a pass, without home
	verbose  bool
	daemon   *exec.Cmd
	daemonLg string
	Timeline *Timeline
	panes    []*Pane
	mu       sync.Mutex
	presses  []time.Time // key presses awaiting their ready
}

// New makes the world and starts the daemon and the subscription.
func New(t TB, o Options) *Scenario {
	t.Helper()
	s := &Scenario{T: t, Agent: o.Agent, Bin: o.Bin, keepDir: o.Dir != "", verbose: o.Verbose}
	// One of the machine's scenario slots, given back after everything the
	// scenario started is stopped (cleanups run last registered first).
	release, err := acquireSlot(t.Context(), Slots())
	if err != nil {
		t.Fatalf("waiting for a scenario slot: %v", err)
	}
	t.Cleanup(release)
	short, err := os.MkdirTemp("", "lwc") // unix socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	s.short = short
	if o.Dir != "" {
		s.Dir = o.Dir
		os.RemoveAll(s.Dir)
	} else {
		s.Dir = filepath.Join(short, "art")
	}
	s.Home = filepath.Join(s.Dir, "home")
	s.Work = filepath.Join(s.Home, "work")
	// Registered before anything can fail, so that a failed start still
	// removes what it made.
	t.Cleanup(s.cleanup)
	for _, d := range []string{s.Work, filepath.Join(s.Home, ".config"), filepath.Join(s.Home, ".state"), filepath.Join(short, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The work dir's real path: agents key their project settings by it.
	if w, err := filepath.EvalSymlinks(s.Work); err == nil {
		s.Work = w
	}
	s.socket = filepath.Join(short, "lw.sock")
	s.Env = PrivateEnv(s.Home, short, s.socket)
	// A hook event the hook client gave up on is a change never published:
	// a failure names why.
	s.Env = append(s.Env, hookdebug.Env+"="+filepath.Join(s.Dir, "hooks-dropped.log"))
	s.startDaemon()
	s.Timeline = s.subscribe()
	return s
}

// PrivateEnv is the whole environment of a private world: HOME and the
// XDG dirs under home, the runtime dir and TMPDIR (runtime/tmp) under
// runtime, logwatch's socket, and the user's PATH; nothing else of the
// user's environment (keys, proxies, agent settings) reaches it.
func PrivateEnv(home, runtime, socket string) []string {
	return []string{
		"HOME=" + home,
		"USER=" + envOr("USER", "logwatch"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_RUNTIME_DIR=" + runtime,
		"TMPDIR=" + filepath.Join(runtime, "tmp"),
		"LOGWATCH_SOCKET=" + socket,
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"TERM=xterm-256color",
	}
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

// Compiled on first use, as ansiRE: the logwatch binary links this
// package, and every `logwatch hook` would compile them at its start.
var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_.-]+`) })

// Sanitize makes a test or scenario name a file name.
func Sanitize(s string) string { return unsafeName().ReplaceAllString(s, "_") }

// SetEnv adds or replaces KEY=VALUE entries in Env.
func (s *Scenario) SetEnv(kv ...string) { s.Env = WithEnv(s.Env, kv...) }

// WithEnv is env with each KEY=VALUE of kv added, or in place of that
// key's entry. It reuses env's array.
func WithEnv(env []string, kv ...string) []string {
	for _, e := range kv {
		k := e[:strings.IndexByte(e, '=')+1]
		out := env[:0]
		for _, old := range env {
			if !strings.HasPrefix(old, k) {
				out = append(out, old)
			}
		}
		env = append(out, e)
	}
	return env
}

// UnsetEnv removes KEY entries from Env.
func (s *Scenario) UnsetEnv(keys ...string) {
	for _, k := range keys {
		out := s.Env[:0]
		for _, e := range s.Env {
			if !strings.HasPrefix(e, k+"=") {
				out = append(out, e)
			}
		}
		s.Env = out
	}
}

// WriteFile writes a file under Home (rel is relative to it).
func (s *Scenario) WriteFile(rel, content string) {
	s.T.Helper()
	p := filepath.Join(s.Home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		s.T.Fatal(err)
	}
}

// Logwatch runs the logwatch binary with the scenario's environment.
func (s *Scenario) Logwatch(args ...string) (string, error) {
	cmd := exec.Command(s.Bin, args...)
	cmd.Env = s.Env
	cmd.Dir = s.Work
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Title is the title `logwatch status --json` gives session ("" when it
// has none or there is no such session).
func (s *Scenario) Title(session string) string {
	s.T.Helper()
	out, err := s.Logwatch("status", "--json")
	if err != nil {
		s.T.Fatalf("status: %v %s", err, out)
	}
	var st struct {
		Sessions []struct{ Session, Title string } `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		s.T.Fatal(err)
	}
	for _, e := range st.Sessions {
		if e.Session == session {
			return e.Title
		}
	}
	return ""
}

// InstallHooks runs the real `logwatch hooks install --agent A --bin BIN`.
func (s *Scenario) InstallHooks(agent string) {
	s.T.Helper()
	if out, err := s.Logwatch("hooks", "install", "--agent", agent, "--bin", s.Bin); err != nil {
		s.T.Fatalf("hooks install --agent %s: %v\n%s", agent, err, out)
	}
}

func (s *Scenario) startDaemon() {
	s.T.Helper()
	s.daemonLg = filepath.Join(s.Dir, "daemon.log")
	f, err := os.Create(s.daemonLg)
	if err != nil {
		s.T.Fatal(err)
	}
	// The recording (every hook payload, key and log line the daemon took
	// in, and every change) is an artifact `logwatch replay` can rerun.
	cmd := exec.Command(s.Bin, "run", "--record", filepath.Join(s.Dir, "record.jsonl"))
	cmd.Env = append(append([]string{}, s.Env...), "LOGWATCH_LOG_LEVEL=debug", "LOGWATCH_LOG_FORMAT=json")
	cmd.Stdout, cmd.Stderr = f, f
	// Its own process group: a Ctrl+C at the terminal reaches the program
	// that drives the scenario, whose cleanup stops the daemon in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		s.T.Fatal(err)
	}
	f.Close()
	s.daemon = cmd
	deadline := time.Now().Add(15 * time.Second)
	for {
		if _, err := s.Logwatch("status", "--json"); err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.T.Fatal("daemon socket never answered")
		}
		s.Pause(20 * time.Millisecond)
	}
}

// mustBeZero are the daemon's counters of input it could not use: any of
// them above zero after a scenario means an agent wrote or sent something
// logwatch does not understand.
var mustBeZero = []string{"malformed", "oversized", "bad_requests", "hooks_unknown", "subscriber_resyncs"}

// checkCounters fails the scenario on a counter of unusable input.
func (s *Scenario) checkCounters() {
	c, err := s.Counters()
	if err != nil {
		s.T.Errorf("status at the end of the scenario: %v", err)
		return
	}
	for _, k := range mustBeZero {
		if c[k] != 0 {
			s.T.Errorf("daemon counter %s = %v after the scenario, want 0 (all counters: %v)", k, c[k], c)
		}
	}
}

// Counters are the daemon's counters now (`logwatch status --json`).
func (s *Scenario) Counters() (map[string]float64, error) {
	out, err := s.Logwatch("status", "--json")
	if err != nil {
		return nil, fmt.Errorf("status: %w: %s", err, out)
	}
	var st struct {
		Counters map[string]float64 `json:"counters"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	return st.Counters, nil
}

func (s *Scenario) cleanup() {
	for _, p := range s.panes {
		p.close()
	}
	if !s.T.Failed() && s.daemon != nil && s.daemon.ProcessState == nil {
		s.checkCounters()
	}
	if s.Timeline != nil {
		s.Timeline.stop()
	}
	if s.daemon != nil && s.daemon.ProcessState == nil {
		s.daemon.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { s.daemon.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			s.daemon.Process.Kill()
			<-done
		}
	}
	if s.Timeline != nil {
		s.Timeline.save(filepath.Join(s.Dir, "timeline.jsonl"))
	}
	if s.daemon != nil {
		s.checkReplay()
	}
	if s.verbose && !s.T.Failed() {
		s.T.Logf("timeline:\n%s", s.Timeline)
	}
	if s.T.Failed() {
		s.report()
		s.T.Logf("artifacts kept in %s", s.Dir)
		if s.keepDir {
			os.RemoveAll(s.short) // sockets and the tmux configuration
		}
		return
	}
	if s.keepDir {
		os.RemoveAll(filepath.Join(s.Dir, "home")) // the agent's install-sized caches
	}
	os.RemoveAll(s.short)
}

// Pause sleeps for d, and ends the scenario when its context ends first.
func (s *Scenario) Pause(d time.Duration) {
	s.T.Helper()
	select {
	case <-s.T.Context().Done():
		s.T.Fatalf("stopped: %v", context.Cause(s.T.Context()))
	case <-time.After(d):
	}
}

// checkReplay replays the scenario's recording with the real `logwatch
// replay --check`: the replay must publish the changes the daemon
// published, in order, or the recording missed an input.
func (s *Scenario) checkReplay() {
	rec := filepath.Join(s.Dir, "record.jsonl")
	if _, err := os.Stat(rec); err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	begin := time.Now()
	out, err := exec.CommandContext(ctx, s.Bin, "replay", "--check", rec).CombinedOutput()
	d := time.Since(begin)
	replayMu.Lock()
	replayWall += d
	replays++
	replayMu.Unlock()
	if err != nil {
		s.T.Errorf("logwatch replay --check %s (%s): %v\n%s", rec, d.Round(time.Millisecond), err, tail(string(out), 6000))
	}
}

var (
	replayMu   sync.Mutex
	replayWall time.Duration
	replays    int
)

// report prints what a failure needs: the timeline, each pane's screen and
// the daemon log's tail.
func (s *Scenario) report() {
	var b strings.Builder
	fmt.Fprintf(&b, "\n=== timeline (%s)\n%s", s.T.Name(), s.Timeline.String())
	for _, p := range s.panes {
		fmt.Fprintf(&b, "=== screen of pane %q (%s)\n%s\n", p.Name, p.Tab, p.lastScreen)
		fmt.Fprintf(&b, "=== last pane output, ANSI stripped\n%s\n", tail(StripANSI(p.rawOutput()), 3000))
	}
	if dropped, err := os.ReadFile(filepath.Join(s.Dir, "hooks-dropped.log")); err == nil {
		fmt.Fprintf(&b, "=== hook events the hook client dropped\n%s\n", tail(string(dropped), 4<<10))
	}
	log, _ := os.ReadFile(s.daemonLg)
	fmt.Fprintf(&b, "=== daemon log (last 12 KB of %s)\n%s\n", s.daemonLg, tail(string(log), 12<<10))
	s.T.Log(b.String())
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

var ansiRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b(\[[0-9;?<=>!]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[()][0-9A-Za-z]|[=>0-9@-Z\\-_])`)
})

// StripANSI removes escape sequences and carriage returns.
func StripANSI(s string) string {
	return strings.ReplaceAll(ansiRE().ReplaceAllString(s, ""), "\r", "")
}

// Hooks returns the payloads of the hook events named event the daemon
// received so far (from its recording), oldest first.
func (s *Scenario) Hooks(event string) []map[string]any {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "record.jsonl"))
	var out []map[string]any
	for _, line := range strings.Split(string(b), "\n") {
		var l struct {
			Kind    string         `json:"kind"`
			Payload map[string]any `json:"payload"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Kind == "hook" && l.Payload["hook_event_name"] == event {
			out = append(out, l.Payload)
		}
	}
	return out
}

// Keys returns how many interrupt key presses (Esc, Ctrl+C; not the Enters
// wrap reports as submits) the daemon received (from its recording): proof
// that wrap saw and reported a key that changed nothing.
func (s *Scenario) Keys() int {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "record.jsonl"))
	return strings.Count(string(b), `"kind":"key"`) - strings.Count(string(b), `"key":"enter"`)
}

// WaitKeys waits until the daemon has received n key presses.
func (s *Scenario) WaitKeys(n int, timeout time.Duration) {
	s.T.Helper()
	deadline := time.Now().Add(timeout)
	for s.Keys() < n {
		if time.Now().After(deadline) {
			s.T.Fatalf("the daemon received %d key press(es) within %s, want %d", s.Keys(), timeout, n)
		}
		s.Pause(50 * time.Millisecond)
	}
}

// WaitHook waits until the daemon has received n hook events named event.
func (s *Scenario) WaitHook(event string, n int, timeout time.Duration) []map[string]any {
	s.T.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if h := s.Hooks(event); len(h) >= n {
			return h
		}
		if time.Now().After(deadline) {
			s.T.Fatalf("the daemon did not receive %d %s hook(s) within %s\ntimeline:\n%s", n, event, timeout, s.Timeline)
		}
		s.Pause(100 * time.Millisecond)
	}
}

// Event is one line of `logwatch events --json`, with when it arrived.
type Event struct {
	Seq      int64     `json:"seq"`
	Session  string    `json:"session"`
	Agent    string    `json:"agent"`
	Tab      string    `json:"tab"`
	State    string    `json:"state"`
	Reason   string    `json:"reason"`
	Detail   string    `json:"detail"`
	Source   string    `json:"source"`
	Rule     string    `json:"rule"`
	Snapshot bool      `json:"snapshot"`
	Pid      int       `json:"pid"`      // the agent's process, when known
	Live     bool      `json:"live"`     // it runs
	At       time.Time `json:"received"` // when the subscriber read it
}

func (e Event) String() string {
	return fmt.Sprintf("%s/%s source=%s tab=%q detail=%q (session %s, rule %s)", e.State, e.Reason, e.Source, e.Tab, e.Detail, short8(e.Session), e.Rule)
}

func short8(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// Timeline is the published changes, in order, as a real `logwatch events
// --json` client received them. Snapshot lines are left out.
type Timeline struct {
	s      *Scenario
	cancel context.CancelFunc
	cmd    *exec.Cmd
	mu     sync.Mutex
	events []Event
	grew   chan struct{}
	next   int // the cursor Next moves
	closed bool
}

func (s *Scenario) subscribe() *Timeline {
	s.T.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, s.Bin, "events", "--json")
	cmd.Env = s.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		s.T.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		s.T.Fatal(err)
	}
	tl := &Timeline{s: s, cancel: cancel, cmd: cmd, grew: make(chan struct{}, 1)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev Event
			if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.State == "" || ev.Snapshot || retitled(ev.Rule) {
				continue
			}
			ev.At = time.Now()
			tl.mu.Lock()
			tl.events = append(tl.events, ev)
			tl.mu.Unlock()
			select {
			case tl.grew <- struct{}{}:
			default:
			}
		}
		tl.mu.Lock()
		tl.closed = true
		tl.mu.Unlock()
		select {
		case tl.grew <- struct{}{}:
		default:
		}
	}()
	// Changes published before the stream is live would come as snapshot
	// lines: wait until the daemon counts the subscriber.
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := s.Logwatch("status", "--json")
		var st struct {
			Counters map[string]float64 `json:"counters"`
		}
		if json.Unmarshal([]byte(out), &st) == nil && st.Counters["subscribers"] >= 1 {
			break
		}
		if time.Now().After(deadline) {
			s.T.Fatal("subscription never became live")
		}
		s.Pause(20 * time.Millisecond)
	}
	return tl
}

func (tl *Timeline) stop() {
	tl.cancel()
	tl.cmd.Wait()
}

// Events returns every change so far.
func (tl *Timeline) Events() []Event {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return append([]Event(nil), tl.events...)
}

func (tl *Timeline) String() string {
	var b strings.Builder
	evs := tl.Events()
	if len(evs) == 0 {
		b.WriteString("  (no change published)\n")
	}
	var t0 time.Time
	for i, e := range evs {
		if i == 0 {
			t0 = e.At
		}
		mark := "  "
		if i == tl.cursor() {
			mark = "▶ "
		}
		fmt.Fprintf(&b, "%s%2d +%6.2fs  %s\n", mark, i, e.At.Sub(t0).Seconds(), e)
	}
	return b.String()
}

func (tl *Timeline) cursor() int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.next
}

func (tl *Timeline) save(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, e := range tl.Events() {
		enc.Encode(e)
	}
}

// retitled reports a change that only gives its session a new title
// (rule log.title or hook.title, docs/protocol.md): a timeline is the
// states', and an agent's title arrives whenever its side request ends.
func retitled(rule string) bool { return strings.HasSuffix(rule, ".title") }

// Any, as a Step field, matches every value.
const Any = "\x00any"

// Step is one expected change. Every field is compared exactly ("" means
// empty) except those set to Any. Session "" is the scenario's first
// session; set it to compare against another one.
type Step struct {
	State, Reason, Source, Tab, Detail string
	Session                            string
}

func (st Step) String() string {
	f := func(s string) string {
		if s == Any {
			return "*"
		}
		return strconv.Quote(s)
	}
	g := func(s string) string {
		if s == Any {
			return "*"
		}
		return s
	}
	return fmt.Sprintf("%s/%s source=%s tab=%s detail=%s", g(st.State), g(st.Reason), f(st.Source), f(st.Tab), f(st.Detail))
}

// Match reports whether e is the step; session is the one "" stands for.
func (st Step) Match(e Event, session string) bool {
	eq := func(want, got string) bool { return want == Any || want == got }
	wantSession := st.Session
	if wantSession == "" {
		wantSession = session
	}
	return eq(wantSession, e.Session) && eq(st.State, e.State) && eq(st.Reason, e.Reason) &&
		eq(st.Source, e.Source) && eq(st.Tab, e.Tab) && eq(st.Detail, e.Detail)
}

// Session is the id of the first session the timeline published.
func (tl *Timeline) Session() string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if len(tl.events) == 0 {
		return ""
	}
	return tl.events[0].Session
}

// Next waits for the next published change and fails unless it is want:
// calling Next for every step, then Quiet, asserts the exact timeline. A
// ready/interrupted step after Press records the key→ready latency.
func (tl *Timeline) Next(want Step, timeout time.Duration) Event {
	tl.s.T.Helper()
	deadline := time.After(timeout)
	for {
		tl.mu.Lock()
		if tl.next < len(tl.events) {
			e := tl.events[tl.next]
			session := tl.events[0].Session
			tl.next++
			tl.mu.Unlock()
			if !want.Match(e, session) {
				tl.mu.Lock()
				tl.next-- // ▶ marks the change that did not match
				tl.mu.Unlock()
				tl.s.T.Fatalf("change %d: got %s\n  want %s\ntimeline (▶ the unexpected change):\n%s", tl.next, e, want, tl)
			}
			if e.State == "ready" {
				tl.s.readyAt(e.At)
			}
			return e
		}
		closed := tl.closed
		tl.mu.Unlock()
		if closed {
			tl.s.T.Fatalf("the event stream ended while waiting for %s\ntimeline:\n%s", want, tl)
		}
		select {
		case <-tl.grew:
		case <-deadline:
			tl.s.T.Fatalf("no change within %s; want %s\ntimeline:\n%s", timeout, want, tl)
		case <-tl.s.T.Context().Done():
			tl.s.T.Fatalf("stopped while waiting for %s: %v", want, context.Cause(tl.s.T.Context()))
		}
	}
}

// Either is Next for a change that may come from any of sources (a hook
// and a log racing for the same transition): want's own Source is not
// looked at.
func (tl *Timeline) Either(want Step, timeout time.Duration, sources ...string) Event {
	tl.s.T.Helper()
	want.Source = Any
	e := tl.Next(want, timeout)
	if !slices.Contains(sources, e.Source) {
		tl.s.T.Fatalf("change %s: source %q, want one of %q\ntimeline:\n%s", e, e.Source, sources, tl)
	}
	return e
}

// Expect is Next for each step in turn.
func (tl *Timeline) Expect(timeout time.Duration, steps ...Step) {
	tl.s.T.Helper()
	for _, st := range steps {
		tl.Next(st, timeout)
	}
}

// Quiet asserts that nothing more is published for d: no flap, no repeat.
func (tl *Timeline) Quiet(d time.Duration) {
	tl.s.T.Helper()
	tl.s.Pause(d)
	tl.mu.Lock()
	extra := tl.events[tl.next:]
	tl.mu.Unlock()
	if len(extra) > 0 {
		tl.s.T.Fatalf("%d change(s) published after the last expected one (a flap or a repeat): first %s\ntimeline (▶ the first unexpected change):\n%s", len(extra), extra[0], tl)
	}
}

// Maybe consumes the next change if it is opt, waiting up to timeout for
// one to come; it reports whether it did.
func (tl *Timeline) Maybe(opt Step, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		tl.mu.Lock()
		if tl.next < len(tl.events) {
			ok := opt.Match(tl.events[tl.next], tl.events[0].Session)
			if ok {
				tl.next++
			}
			tl.mu.Unlock()
			return ok
		}
		tl.mu.Unlock()
		if time.Now().After(deadline) {
			return false
		}
		tl.s.Pause(10 * time.Millisecond)
	}
}

// Pending says how many published changes Next has not consumed.
func (tl *Timeline) Pending() int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return len(tl.events) - tl.next
}

// ----- key→ready latency -----

// Latency is one key press and the ready it led to. Key is when the
// daemon took the key in (press → wrap → socket): logwatch's own part; the
// rest is mostly the agent writing its interrupt marker.
type Latency struct {
	Agent, Scenario string
	D, Key          time.Duration
}

var (
	latMu     sync.Mutex
	latencies []Latency
)

func (s *Scenario) pressed(at time.Time) {
	s.mu.Lock()
	s.presses = append(s.presses, at)
	s.mu.Unlock()
}

func (s *Scenario) readyAt(at time.Time) {
	s.mu.Lock()
	if len(s.presses) == 0 {
		s.mu.Unlock()
		return
	}
	p := s.presses[0]
	s.presses = nil // a ready answers the latest run of presses, measured from the first
	s.mu.Unlock()
	l := Latency{Agent: s.Agent, Scenario: s.T.Name(), D: at.Sub(p), Key: -1}
	if k, ok := s.keyRecorded(p); ok {
		l.Key = k.Sub(p)
	}
	latMu.Lock()
	latencies = append(latencies, l)
	latMu.Unlock()
}

// keyRecorded is when the daemon recorded the first key at or after t
// (its recording's clock is the same wall clock).
func (s *Scenario) keyRecorded(t time.Time) (time.Time, bool) {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "record.jsonl"))
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.Contains(line, `"kind":"key"`) || strings.Contains(line, `"key":"enter"`) {
			continue
		}
		var l struct {
			T time.Time `json:"t"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && !l.T.Before(t) {
			return l.T, true
		}
	}
	return time.Time{}, false
}

// ForgetPresses drops presses that are not meant to end in ready (an Esc at
// an idle prompt), so they are not measured.
func (s *Scenario) ForgetPresses() {
	s.mu.Lock()
	s.presses = nil
	s.mu.Unlock()
}

// Summary is the suite's latency table and wall time, as text.
func Summary(wall time.Duration) string {
	latMu.Lock()
	defer latMu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "conformance: wall time %s on %d CPUs\n", wall.Round(100*time.Millisecond), runtime.NumCPU())
	replayMu.Lock()
	if replays > 0 {
		fmt.Fprintf(&b, "conformance: %d replay checks took %s (%s each on average)\n", replays,
			replayWall.Round(10*time.Millisecond), (replayWall / time.Duration(replays)).Round(time.Millisecond))
	}
	replayMu.Unlock()
	by := map[string][]time.Duration{}
	for _, l := range latencies {
		by[l.Agent] = append(by[l.Agent], l.D)
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ds := by[n]
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		fmt.Fprintf(&b, "conformance: %s key→ready latency over %d presses: p50 %s, max %s\n", n, len(ds),
			ds[len(ds)/2].Round(time.Millisecond), ds[len(ds)-1].Round(time.Millisecond))
	}
	ls := append([]Latency(nil), latencies...)
	sort.Slice(ls, func(i, j int) bool { return ls[i].Scenario < ls[j].Scenario })
	for _, l := range ls {
		key := "ready before any key reached the daemon"
		if l.Key >= 0 {
			key = "key at the daemon after " + l.Key.Round(time.Millisecond).String()
		}
		fmt.Fprintf(&b, "conformance:   %-50s %8s  (%s)\n", l.Scenario, l.D.Round(time.Millisecond), key)
	}
	return b.String()
}
