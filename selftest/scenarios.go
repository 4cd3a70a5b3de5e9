package selftest

import (
	"context"
	"strings"
	"time"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/selftest/driver"
	"github.com/logwatch/logwatch/selftest/fakemodel"
)

// settle is how long "nothing more" is watched after a scenario's last
// change: past the 2 s interrupt confirmation window.
const settle = 3 * time.Second

// scenario is one of the core scenarios.
type scenario struct {
	name    string
	applies func(*parsers.Offline) bool // nil: every agent
	none    string                      // why it does not apply, after the agent's name
	run     func(w *world)
}

// The core scenarios. They assert what a person relies on, whatever the
// release: the states and their order in the agent's tab, each once, and
// nothing after; not which reporter (hook, log, key) said it first, which
// the conformance suite pins for the pinned releases.
var scenarios = []scenario{
	{name: "prompt", run: func(w *world) {
		w.pane.Submit("hello from logwatch selftest")
		w.turnStart()
		w.until("done", "turn_end", "working")
		w.quiet()
	}},
	{name: "esc", run: func(w *world) {
		w.pane.Submit(w.fake.SlowPrompt)
		w.turnStart()
		streaming := w.fake.SlowScreen
		if w.off.Streaming != "" {
			streaming = w.off.Streaming
		}
		w.pane.WaitScreen(streaming, w.wait())
		w.interrupt(streaming)
		w.interrupted()
		w.quiet()
	}},
	{name: "permission", applies: func(o *parsers.Offline) bool { return o.Permission != "" }, none: "asks no permission", run: func(w *world) {
		w.pane.Submit(w.fake.ToolPrompt)
		w.turnStart()
		w.until("waiting", "permission", "working")
		w.pane.WaitScreen(w.off.Permission, w.wait())
		w.pane.Choose(w.off.Approve, w.off.Permission, w.step)
		w.until("done", "turn_end", "working")
		w.quiet()
	}},
	{name: "quit", run: func(w *world) {
		w.pane.Submit("hello before quitting")
		w.turnStart()
		w.until("done", "turn_end", "working")
		w.quiet()
		w.pane.Submit(w.off.Quit)
		w.until("ended", driver.Any)
		w.pane.WaitExit(w.step)
		// What outlives the terminal (a background server) stops now: its
		// goodbye must not end the session a second time.
		if w.off.Stop != nil {
			w.off.Stop(w.s.Home)
		}
		w.quiet()
	}},
}

// world is one scenario's world: the driver's (daemon, timeline, pane),
// the fake model server, the agent at its prompt in a wrapped tab.
type world struct {
	t    *runT
	s    *driver.Scenario
	off  *parsers.Offline
	fake *fakemodel.Server
	pane *driver.Pane
	step time.Duration
	// published are the changes the scenario consumed, in order.
	published []Change
	last      *driver.Event
	// started: the agent's first turn started; warm: it ended or stopped
	// (wait).
	started, warm bool
	// tooLate: the answer to interrupt was streamed to its end before the
	// key took effect, so its done says nothing of logwatch (runOne runs
	// the scenario again, once).
	tooLate bool
}

// privateNet sends whatever an agent would fetch besides the fake to a
// proxy that is not there: a release that phones home fails to, and
// nothing of the run leaves the machine.
var privateNet = []string{
	"HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9", "ALL_PROXY=http://127.0.0.1:9",
	"http_proxy=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9", "all_proxy=http://127.0.0.1:9",
	"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
}

func newWorld(t *runT, o Options, dir string, in Installed) *world {
	off := in.spec.Offline
	s := driver.New(t, driver.Options{Bin: o.Bin, Agent: in.Agent, Dir: dir})
	w := &world{t: t, s: s, off: off, step: o.Step}
	ctx, cancel := context.WithCancel(context.Background())
	fake, err := fakemodel.Start(ctx, off.Model, s.Dir)
	if err != nil {
		cancel()
		t.Fatalf("%v", err)
	}
	// Cleanups run last first: the fake and what outlives the agent's
	// terminal stop before the driver closes the pane and the daemon.
	t.Cleanup(func() { fake.Close(); cancel() })
	w.fake = fake
	env, err := off.Setup(parsers.OfflineHome{Home: s.Home, Work: s.Work, URL: fake.URL, Version: in.Version})
	if err != nil {
		t.Fatalf("%v", err)
	}
	s.SetEnv(env...)
	s.SetEnv(privateNet...)
	if off.Stop != nil {
		t.Cleanup(func() { off.Stop(s.Home) })
	}
	s.InstallHooks(in.Agent)
	argv := append([]string{in.Path}, off.Args...)
	w.pane = s.StartPane(driver.PaneOptions{Name: "main", Argv: argv, Wrap: true})
	if err := off.Start(w.pane, true, firstScreen*o.Step); err != nil {
		t.Fatalf("%s did not reach its prompt: %v", in.Agent, err)
	}
	return w
}

// interrupt presses the agent's interrupt key, and again once it asks for
// it again. A key the agent dropped (Copilot CLI's Ctrl+C mid-answer, once,
// in a CI-like run under the race detector: its answer streamed on and
// nothing was published for 90 s) is pressed once more, as a person would,
// when after a third of a step the answer still streams and nothing was
// published: a key alone publishes nothing, the interrupt it makes does.
// Never a third time: Copilot CLI exits on a second Ctrl+C at its prompt.
func (w *world) interrupt(streaming string) {
	if again := w.off.InterruptAgain; again != "" {
		w.pane.PressAgain(w.off.Interrupt, again, w.step)
		return
	}
	w.pane.Press(w.off.Interrupt)
	if heeded(w.s.Timeline.Pending, w.pane.Screen, w.s.Pause, streaming, w.step/3) {
		return
	}
	w.t.Logf("%q still on the screen %s after %s, nothing published: pressing it again", streaming, w.step/3, w.off.Interrupt)
	w.pane.Key(w.off.Interrupt)
}

// heeded waits up to d for a sign the interrupt key was taken: a change
// published (pending), or the streaming answer gone from the screen.
func heeded(pending func() int, screen func() string, pause func(time.Duration), streaming string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if pending() > 0 || !strings.Contains(screen(), streaming) {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		pause(100 * time.Millisecond)
	}
}

// firstScreen is how many steps an agent's first screen may take: OpenCode,
// in a fresh home on a loaded machine, showed a blank screen for over 60 s
// (twice here: at load 14, and in a CI-like run, all seven agents' selftest
// beside the live suites); the live suite allows it 90 s as well.
const firstScreen = 3

// wait is how long the next change may take: a step, or as long as the
// agent's first screen while its first turn runs, which can wait on the
// agent's lazy start (OpenCode's first prompt of a process waits 6 to 8 s
// on its init before the model is asked, 40 s and more measured on a loaded
// machine).
func (w *world) wait() time.Duration {
	if w.started && !w.warm {
		return firstScreen * w.step
	}
	return w.step
}

// next is the session's next published change. A change that repeats the
// last one's state in the tab, where the last named none, is the tab's
// late binding (the agent's report and wrap's Enter raced): not news.
func (w *world) next(want string) driver.Event {
	for {
		wait := w.wait()
		deadline := time.Now().Add(wait)
		for w.s.Timeline.Pending() == 0 {
			if time.Now().After(deadline) {
				w.t.Fatalf("nothing published within %s; want %s", wait, want)
			}
			w.s.Pause(20 * time.Millisecond)
		}
		e := w.s.Timeline.Next(anyChange, w.step) // pending: at once
		if w.lateBinding(e) {
			continue
		}
		w.record(e)
		if first := w.s.Timeline.Session(); e.Session != first {
			w.t.Fatalf("a second session %s was published (%s); want %s in session %s", short(e.Session), e, want, short(first))
		}
		// No tab yet is allowed: the late binding may follow.
		if e.Tab != "" && e.Tab != w.pane.Tab {
			w.t.Fatalf("%s was published in tab %q, want the agent's tab %q", Change{State: e.State, Reason: e.Reason}, e.Tab, w.pane.Tab)
		}
		return e
	}
}

var anyChange = driver.Step{State: driver.Any, Reason: driver.Any, Source: driver.Any, Tab: driver.Any, Detail: driver.Any, Session: driver.Any}

// lateBinding consumes e if it is the last change again, now in the tab.
func (w *world) lateBinding(e driver.Event) bool {
	l := w.last
	if l == nil || l.Tab != "" || e.Tab != w.pane.Tab || l.State != e.State || l.Reason != e.Reason || l.Session != e.Session {
		return false
	}
	w.last = &e
	w.published[len(w.published)-1].Tab = e.Tab
	return true
}

func (w *world) record(e driver.Event) {
	w.last = &e
	w.published = append(w.published, Change{State: e.State, Reason: e.Reason, Source: e.Source, Tab: e.Tab})
}

// turnStart consumes the session's announcement, if it comes first, and
// the turn's start: working.
func (w *world) turnStart() {
	e := w.next("working")
	if e.State == "ready" && e.Reason == "session_start" {
		e = w.next("working")
	}
	if e.State != "working" {
		w.t.Fatalf("published %s at the prompt; want working", Change{State: e.State, Reason: e.Reason})
	}
	w.started = true
}

// until consumes changes until state/reason (reason Any: any), allowing
// the states in between; anything else fails.
func (w *world) until(state, reason string, between ...string) {
	want := state + "/" + reason
	if reason == driver.Any {
		want = state
	}
	for {
		e := w.next(want)
		if e.State == state && (reason == driver.Any || e.Reason == reason) {
			w.warm = w.warm || w.started && state != "working" && state != "waiting"
			return
		}
		ok := false
		for _, b := range between {
			ok = ok || e.State == b
		}
		if !ok {
			w.t.Fatalf("published %s; want %s", Change{State: e.State, Reason: e.Reason}, want)
		}
	}
}

// interrupted is until ready/interrupted, but for a finished turn whose
// answer the fake streamed to its end: the agent finished before it took
// the key (on a loaded machine, Gemini CLI once, with selftest beside three
// live suites), which is no verdict on logwatch.
func (w *world) interrupted() {
	for {
		e := w.next("ready/interrupted")
		switch {
		case e.State == "ready" && e.Reason == "interrupted":
			w.warm = true
			return
		case e.State == "working":
			continue
		case e.State == "done" && e.Reason == "turn_end" && w.fake.SlowAnswered():
			w.tooLate = true
			w.t.Fatalf("published done/turn_end; want ready/interrupted: the answer was streamed to its end before the key took effect")
		}
		w.t.Fatalf("published %s; want ready/interrupted", Change{State: e.State, Reason: e.Reason})
	}
}

// quiet asserts that nothing more is published for settle, but for the
// last change's late binding to the tab.
func (w *world) quiet() {
	w.s.Pause(settle)
	for w.s.Timeline.Pending() > 0 {
		e := w.s.Timeline.Next(anyChange, w.step) // pending: at once
		if w.lateBinding(e) {
			continue
		}
		w.record(e)
		w.t.Fatalf("published %s after the scenario's last change (a flap or a repeat)", Change{State: e.State, Reason: e.Reason})
	}
	if l := w.last; l != nil && l.Tab == "" && l.State != "ended" {
		w.t.Fatalf("%s was published with no tab, and never in the agent's tab %q", Change{State: l.State, Reason: l.Reason}, w.pane.Tab)
	}
}

func short(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// published is the changes as the table shows them.
func published(cs []Change) string {
	if len(cs) == 0 {
		return "(nothing)"
	}
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.String())
	}
	return strings.Join(parts, " → ")
}
