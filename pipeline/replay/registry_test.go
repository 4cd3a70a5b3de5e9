package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/pipeline/ingest"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/vclock"
	"github.com/logwatch/logwatch/watcher"
)

// memRecorder keeps a recording in memory.
type memRecorder struct {
	mu    sync.Mutex
	lines []relay.RecordLine
}

func (m *memRecorder) Record(l relay.RecordLine) {
	m.mu.Lock()
	m.lines = append(m.lines, l)
	m.mu.Unlock()
}

// live is a recording relay fed by the real watcher over temporary roots,
// on a virtual clock, as `logwatch run --record` runs it.
type live struct {
	t     *testing.T
	ctx   context.Context
	r     *relay.Relay
	clock *vclock.Clock
	root  string
	sub   *relay.Subscription
	rec   *memRecorder
	got   []Entry
}

func newLive(t *testing.T) *live {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	root := filepath.Join(t.TempDir(), "claude", "projects")
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	w, err := watcher.New(watcher.Config{Roots: map[parsers.Agent][]string{claude.Name: {root}}, PollInterval: 20 * time.Millisecond,
		MaxLineBytes: 4096}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	clock := vclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	r := relay.New(relay.Config{Roots: []string{root}}, clock, w, zerolog.Nop())
	rec := &memRecorder{}
	r.SetRecorder(rec)
	clock.Settle = func() { r.Status(ctx) }
	go r.Run(ctx)
	go w.Run(ctx)
	go ingest.Pump(ctx, w, r, ingest.Options{Raw: true})
	sub, err := r.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("watcher not ready")
	}
	return &live{t: t, ctx: ctx, r: r, clock: clock, root: root, sub: sub, rec: rec}
}

// drain collects what the relay published so far.
func (l *live) drain() {
	l.t.Helper()
	if _, err := l.r.Status(l.ctx); err != nil {
		l.t.Fatal(err)
	}
	for {
		select {
		case ev := <-l.sub.C():
			if !ev.Snapshot {
				l.got = append(l.got, Entry{Seq: ev.Seq, Session: ev.Session, Tab: ev.Tab, State: ev.State,
					Reason: ev.Reason, Source: ev.Source, Rule: ev.Rule})
			}
		default:
			return
		}
	}
}

// write appends a line to session's log and waits until the relay has it.
func (l *live) write(session, line string) {
	l.t.Helper()
	path := l.appendLine(session, line)
	st, _ := os.Stat(path)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		off, err := l.r.LogOffset(l.ctx, path)
		if err != nil {
			l.t.Fatal(err)
		}
		if off >= st.Size() {
			break
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("%s: the relay did not read up to %d (at %d)", path, st.Size(), off)
		}
	}
	l.drain()
}

func (l *live) appendLine(session, line string) string {
	l.t.Helper()
	path := filepath.Join(l.root, "-w-app", session+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		l.t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		l.t.Fatal(err)
	}
	f.WriteString(line + "\n")
	f.Close()
	return path
}

// until waits (wall time) for the relay to reach cond.
func (l *live) until(what string, cond func(relay.Status) bool) {
	l.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		st, err := l.r.Status(l.ctx)
		if err != nil {
			l.t.Fatal(err)
		}
		if cond(st) {
			break
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("waiting for %s: %+v", what, st.Counters)
		}
	}
	l.drain()
}

func (l *live) entry(pid int, session, status string) {
	start, err := proctree.StartTime(pid)
	if err != nil {
		start = 1
	}
	l.r.RegistryEntry(relay.RegistryProcess{Path: fmt.Sprintf("/reg/%d.json", pid), Pid: pid, SessionID: session,
		ProcStart: start, Status: status, StartedAt: 1, StatusUpdatedAt: l.clock.Now().UnixMilli()})
	l.drain()
}

func kill(pid int) {
	syscall.Kill(pid, syscall.SIGKILL)
	for i := 0; i < 2000 && proctree.Alive(pid, 0); i++ {
		time.Sleep(5 * time.Millisecond)
	}
}

func prompt(s string) string {
	return fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":"/w/app","version":"2.1.143","message":{"role":"user","content":"hi"}}`, s)
}

// A recording holds every input, the registry's and the processes'
// included, and the answers the relay got from /proc: replayed after every
// process it names is gone, it publishes the same changes, in order, with
// the same seq, tab and rule.
func TestReplayRegistryRecording(t *testing.T) {
	if !proctree.Alive(os.Getpid(), 0) {
		t.Skip("no /proc here")
	}
	l := newLive(t)
	l.r.BootstrapDone()
	l.drain()
	tab1, agent1 := testsupport.ShellWithChild(t) // a tab running an agent
	_, agent2 := testsupport.ShellWithChild(t)
	_, agent3 := testsupport.ShellWithChild(t)
	_, agent4 := testsupport.ShellWithChild(t)
	step := func() { l.clock.Advance(100 * time.Millisecond) }

	for _, s := range []string{"s1", "s2", "s3"} {
		l.write(s, prompt(s))
		step()
	}
	// The tab's process binds the tab by ancestry; the registry's wait
	// comes with it.
	if err := l.r.TabProcess(l.ctx, "t1", tab1.Process.Pid); err != nil {
		t.Fatal(err)
	}
	step()
	l.entry(agent1, "s1", "waiting")
	step()
	// A removal while the process runs ends nothing; its exit is the goodbye.
	l.entry(agent2, "s2", "busy")
	step()
	l.r.RegistryRemoved(fmt.Sprintf("/reg/%d.json", agent2))
	l.drain()
	step()
	kill(agent2)
	l.until("s2 ended", func(st relay.Status) bool { return ended(st, "s2") })
	step()
	// A kill -9, told by its pidfd.
	l.entry(agent3, "s3", "busy")
	step()
	kill(agent3)
	l.until("s3 ended", func(st relay.Status) bool { return ended(st, "s3") })
	step()
	// A process dead before its session's log appeared: the sweep ends it.
	kill(agent4)
	l.entry(agent4, "s4", "busy")
	step()
	l.write("s4", prompt("s4"))
	step()
	// An oversized line, skipped and counted.
	l.appendLine("s1", `{"type":"user","pad":"`+strings.Repeat("x", 8192)+`"}`)
	l.until("the oversized line", func(st relay.Status) bool { return st.Counters.Oversized == 1 })
	l.clock.Advance(3 * time.Second) // the sweep
	l.drain()
	l.r.RegistryListed()
	l.clock.Advance(10 * time.Second)
	l.drain()

	want := l.got
	for _, rule := range []string{"registry.waiting", "registry.removed", "registry.process_gone"} {
		if !hasRule(want, rule) {
			t.Fatalf("the scenario published no %s: %+v", rule, want)
		}
	}
	if !hasTab(want, "t1") {
		t.Fatalf("the scenario bound no tab: %+v", want)
	}
	l.rec.mu.Lock()
	recording := append([]relay.RecordLine(nil), l.rec.lines...)
	l.rec.mu.Unlock()
	kinds := map[string]int{}
	for _, rl := range recording {
		kinds[rl.Kind]++
	}
	for _, k := range []string{relay.RecRegistry, relay.RecRegistryRemoved, relay.RecRegistryListed, relay.RecExit,
		relay.RecTabProcess, relay.RecOversized, relay.RecProc} {
		if kinds[k] == 0 {
			t.Errorf("recording has no %q line: %v", k, kinds)
		}
	}

	// Replay where the processes are gone: the recorded answers decide.
	// (The live relay records these exits too: after the copy.)
	tab1.Process.Kill()
	kill(agent1)
	inputs, cfg := FromRecording(recording)
	done := make(chan struct{})
	var tl []Entry
	var err error
	go func() {
		defer close(done)
		tl, err = Run(context.Background(), inputs, Options{Config: cfg, Log: zerolog.Nop()})
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("replay hangs")
	}
	if err != nil {
		t.Fatal(err)
	}
	var got []Entry
	for _, e := range tl {
		got = append(got, Entry{Seq: e.Seq, Session: e.Session, Tab: e.Tab, State: e.State, Reason: e.Reason,
			Source: e.Source, Rule: e.Rule})
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("replay published\n%s\nrecorded\n%s", lines(got), lines(want))
	}
}

func ended(st relay.Status, id string) bool {
	for _, s := range st.Sessions {
		if s.Session == id {
			return s.State == "ended"
		}
	}
	return false
}

func hasRule(es []Entry, rule string) bool {
	for _, e := range es {
		if e.Rule == rule {
			return true
		}
	}
	return false
}

func hasTab(es []Entry, tab string) bool {
	for _, e := range es {
		if e.Tab == tab {
			return true
		}
	}
	return false
}

func lines(es []Entry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "  %d %s %s/%s/%s/%s tab=%s\n", e.Seq, e.Session, e.State, e.Reason, e.Source, e.Rule, e.Tab)
	}
	return b.String()
}
