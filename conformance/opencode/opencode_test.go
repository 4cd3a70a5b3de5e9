package opencode_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/logwatch/logwatch/conformance"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/opencode"
	"github.com/logwatch/logwatch/parsers/opencode/store"
)

// The OpenCode 1.18.33 scenarios (../shared/formats/opencode.md,
// docs/opencode.md), with logwatch's plugin installed by the real `logwatch
// hooks install --agent opencode`: OpenCode's bus events are the only
// source until the store reader is wired. OpenCode runs offline against the
// fake chat-completions server as the provider "fake"
// (opencode.OfflineSetup). A start takes about 9 s and the first prompt of
// each process 6 to 8 s more (a lazy init), so each scenario does what it
// can in one start.

const (
	ocTab   = "T1"
	ocStart = 90 * time.Second
	ocStep  = 40 * time.Second
	ocQuiet = 3500 * time.Millisecond // past the 2 s interrupt window
	// The TUI's footer once it takes keys: keys typed before are lost.
	ocReady = "ctrl+p commands"
	// What an ASK prompt makes the bash tool run: not allowed by the
	// config's rules, so OpenCode asks.
	ocAskCommand = "touch asked.txt"
)

// ocScript: OpenCode's title request (the small model, no tools) gets a
// title; ASK runs ocAskCommand; the rest is the default script's (SLOW
// streams for 8 s, anything else one short sentence).
func ocScript(r OpenAIRequest) OpenAIReply {
	switch {
	case r.Tools == 0:
		return OpenAIReply{Text: "Fake title"}
	case r.Kind == OpenAIReqToolResult:
		return OpenAIReply{Text: "The command ran. Done."}
	case strings.Contains(r.LastUser, "ASK"):
		return OpenAIReply{Exec: ocAskCommand}
	}
	return DefaultOpenAIScript(r)
}

type ocWorld struct {
	*Scenario
	t   *testing.T
	api *OpenAI
	bin string
}

// starts bounds the scenarios that run at once: an OpenCode start is a
// Bun bundle of about 700 MB loading on its CPU, and four at once beside
// other work on 2 cores kept the TUI from drawing within 90 s.
var starts = make(chan struct{}, 2)

// newOpenCode is a scenario world; plugin: logwatch's plugin installed
// (else the database alone says everything).
func newOpenCode(t *testing.T, plugin bool) *ocWorld {
	t.Helper()
	_, bin := RequireAgent(t, "opencode")
	t.Parallel()
	select {
	case starts <- struct{}{}:
	case <-t.Context().Done():
		t.Fatal(t.Context().Err())
	}
	t.Cleanup(func() { <-starts })
	s := NewScenario(t, "opencode")
	ctx, cancel := context.WithCancel(context.Background())
	api, err := StartOpenAI(ctx, s.Dir, ocScript)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(cancel)
	env, err := opencode.OfflineSetup(parsers.OfflineHome{Home: s.Home, Work: s.Work, URL: api.URL})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEnv(env...)
	if plugin {
		s.InstallHooks("opencode")
		if _, err := os.Stat(filepath.Join(opencode.OfflineConfigDir(s.Home), "plugins", "logwatch.ts")); err != nil {
			t.Fatalf("the plugin is not where OpenCode loads it: %v", err)
		}
	}
	return &ocWorld{Scenario: s, t: t, api: api, bin: bin}
}

// start runs opencode ARGS… in a new pane under `logwatch wrap --tab TAB`
// and waits until the TUI takes keys. The plugin says nothing until a
// session does something.
func (w *ocWorld) start(name, tab string, args ...string) *Pane {
	w.t.Helper()
	return w.StartPaneReady(PaneOptions{Name: name, Argv: append([]string{w.bin}, args...), Wrap: true, Tab: tab}, ocReady, ocStart)
}

func (w *ocWorld) step(st Step) Event {
	w.t.Helper()
	return w.Timeline.Next(st, ocStep)
}

func (w *ocWorld) quiet() { w.t.Helper(); w.Timeline.Quiet(ocQuiet) }

// keep writes each root session's rows, as the store reader gives them
// (store.Row.Line), to <name>-<n>.jsonl in $LOGWATCH_OPENCODE_CAPTURE:
// the parser's goldens are recorded so (parsers/opencode/testdata/captures).
func (w *ocWorld) keep(name string) {
	dst := os.Getenv("LOGWATCH_OPENCODE_CAPTURE")
	if dst == "" {
		return
	}
	d, err := store.Open(filepath.Join(opencode.OfflineDataDir(w.Home), "opencode.db"))
	if err != nil {
		w.t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Changes(0, 1<<20)
	if err != nil {
		w.t.Fatal(err)
	}
	var order []string
	bySession := map[string][]byte{}
	for _, r := range rows {
		if r.Parent != "" {
			continue
		}
		if _, ok := bySession[r.Session]; !ok {
			order = append(order, r.Session)
		}
		bySession[r.Session] = append(append(bySession[r.Session], r.Line()...), '\n')
	}
	for i, s := range order {
		if err := os.WriteFile(filepath.Join(dst, fmt.Sprintf("%s-%d.jsonl", name, i+1)), bySession[s], 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
}

// either consumes the next change, which must be st from one of sources:
// the database and the plugin race (its row is written a few ms before
// the bus event; a spawned hook takes longer to arrive).
func (w *ocWorld) either(st Step, timeout time.Duration, sources ...string) Event {
	w.t.Helper()
	return w.Timeline.Either(st, timeout, sources...)
}

// first submits a new session's first prompt: its row announces it (the
// database's, with no tab yet: a session row names none; or the plugin's
// start), then its turn starts in the tab. A first prompt waits out
// OpenCode's lazy init.
func (w *ocWorld) first(p *Pane, tab, text string) string {
	w.t.Helper()
	p.Submit(text)
	e := w.either(Step{State: "ready", Reason: "session_start", Tab: Any, Session: Any}, ocStart, "log", "hook")
	if e.Source == "hook" && e.Tab != tab {
		w.t.Fatalf("the plugin's start %s: tab %q, want %q", e, e.Tab, tab)
	}
	w.prompted(tab, e.Session)
	return e.Session
}

// prompted consumes the turn's start in tab. The database and the plugin
// race: a session announced with no tab (its row) may first be shown again
// in its tab when the plugin names it (hook.tab), and a turn start read
// from the database before the plugin's report and before its tab was
// known is shown again in its tab when the report comes.
func (w *ocWorld) prompted(tab, session string) {
	w.t.Helper()
	e := w.either(Step{State: Any, Reason: Any, Tab: Any, Session: session}, ocStart, "log", "hook")
	if e.State == "ready" && e.Reason == "session_start" && e.Rule == "hook.tab" && e.Tab == tab {
		e = w.either(Step{State: Any, Reason: Any, Tab: Any, Session: session}, ocStart, "log", "hook")
	}
	if e.State == "working" && e.Reason == "prompt" && e.Tab == "" {
		e = w.either(Step{State: "working", Reason: "prompt", Tab: tab, Session: session}, ocStart, "log", "hook")
		if e.Rule != "hook.tab" {
			w.t.Fatalf("change %s, want its tab from the plugin (hook.tab)\ntimeline:\n%s", e, w.Timeline)
		}
	}
	if e.State != "working" || e.Reason != "prompt" || e.Tab != tab {
		w.t.Fatalf("change %s, want working/prompt in %s\ntimeline:\n%s", e, tab, w.Timeline)
	}
}

func (w *ocWorld) prompt(p *Pane, tab, session, text string) {
	w.t.Helper()
	p.Submit(text)
	w.prompted(tab, session)
}

// done consumes the turn's end, waited for as long as a start: the first
// prompt of a process waits out OpenCode's lazy init (6 to 8 s idle, 40 s
// and more under load).
func (w *ocWorld) done(tab, session string) {
	w.t.Helper()
	w.either(Step{State: "done", Reason: "turn_end", Tab: tab, Session: session}, ocStart, "log", "hook")
}

// escEsc interrupts a busy session: OpenCode wants two presses within 5 s
// (the first only shows the hint: Offline.InterruptAgain).
func (w *ocWorld) escEsc(p *Pane) {
	w.t.Helper()
	off := opencode.Offline()
	p.PressAgain(off.Interrupt, off.InterruptAgain, ocStep)
}

// escConfirmed checks the counters after one Esc Esc that interrupted: the
// interrupt confirmed its key, whichever source said it first (issue 32:
// with the plugin, every key counted unconfirmed). The second press is the
// same candidate as the first, unless the first one's window had run out
// before it (then that one is rightly unconfirmed).
func (w *ocWorld) escConfirmed() {
	w.t.Helper()
	c, err := w.Counters()
	if err != nil {
		w.t.Fatal(err)
	}
	cand, conf, unconf := c["interrupt_candidates"], c["interrupts_confirmed"], c["interrupts_unconfirmed"]
	if conf != 1 || cand < 1 || cand > 2 || unconf != cand-1 {
		w.t.Fatalf("interrupt candidates %v, confirmed %v, unconfirmed %v: want 1 confirmed, and unconfirmed only a first press whose window ran out (counters %v)\ntimeline:\n%s",
			cand, conf, unconf, c, w.Timeline)
	}
}

// One start: a prompt's turn, Esc at the idle prompt (nothing), Esc Esc
// mid-stream (interrupted, and no done after it), the next prompt.
func TestOpenCodePromptAndEsc(t *testing.T) {
	w := newOpenCode(t, true)
	p := w.start("a", ocTab)
	s := w.first(p, ocTab, "say hello")
	w.done(ocTab, s)
	p.WaitScreen("Hello from the fake model", ocStep)
	p.Key("Escape")
	w.quiet()
	// The title OpenCode generates (a side request) replaces the prompt's.
	if got := w.Title(s); got != "Fake title" {
		t.Errorf("title %q, want OpenCode's %q", got, "Fake title")
	}

	w.prompt(p, ocTab, s, OpenAISlow+" stream please")
	p.WaitScreen("streaming slowly", ocStep)
	w.escEsc(p)
	e := w.step(Step{State: "ready", Reason: "interrupted", Source: Any, Tab: ocTab, Session: s})
	if !slices.Contains([]string{"key+hook", "key+log"}, e.Source) {
		t.Fatalf("interrupt %s: source %q", e, e.Source)
	}
	// OpenCode idles twice after an abort: neither may finish the turn.
	w.quiet()
	w.escConfirmed()
	w.prompt(p, ocTab, s, "say hello again")
	w.done(ocTab, s)
	w.quiet()
	w.keep("prompt-esc")
}

// One start: bash asks (waiting, with the command), Enter approves it
// (working), the turn ends; /compact (compacting, then the relay's end of
// it); /exit ends the session once.
func TestOpenCodePermissionCompactExit(t *testing.T) {
	w := newOpenCode(t, true)
	p := w.start("a", ocTab)
	s := w.first(p, ocTab, "please ASK")
	w.either(Step{State: "working", Reason: "tool", Tab: ocTab, Session: s, Detail: ocAskCommand}, ocStart, "log", "hook")
	w.step(Step{State: "waiting", Reason: "permission", Source: "hook", Tab: ocTab, Session: s, Detail: "bash: " + ocAskCommand})
	p.WaitScreen("Permission required", ocStep)
	p.Choose("Enter", "Permission required", ocStep)
	w.either(Step{State: "working", Reason: "tool", Tab: ocTab, Session: s, Detail: ocAskCommand}, ocStep, "log", "hook")
	w.done(ocTab, s)
	p.WaitScreen("The command ran", ocStep)
	if _, err := os.Stat(filepath.Join(w.Work, "asked.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	w.quiet()

	// /compact is a prompt of its own in the database (working, from the
	// log, when its row is read before the plugin's report), then the
	// plugin's compacting; the summary's end ends it (after the plugin's
	// end of the compaction, working again inside that turn, when that
	// came first).
	p.Submit("/compact")
	e := w.either(Step{State: Any, Reason: Any, Tab: ocTab, Session: s}, ocStep, "log", "hook")
	if e.State == "working" && e.Reason == "prompt" {
		e = w.either(Step{State: Any, Reason: Any, Tab: ocTab, Session: s}, ocStep, "hook")
	}
	if e.State != "compacting" || e.Reason != "compaction" {
		t.Fatalf("after /compact: %s, want compacting\n%s", e, w.Timeline)
	}
	e = w.either(Step{State: Any, Reason: "compaction", Tab: ocTab, Session: s}, ocStep, "log", "hook")
	if e.State == "working" {
		e = w.either(Step{State: Any, Reason: "compaction", Tab: ocTab, Session: s}, ocStep, "log")
	}
	if e.State != "done" {
		t.Fatalf("the compaction's end: %s, want done\n%s", e, w.Timeline)
	}
	w.quiet()

	p.Submit("/exit")
	w.step(Step{State: "ended", Reason: "tab_closed", Source: Any, Tab: ocTab, Session: s})
	p.WaitExit(ocStep)
	w.quiet()
	w.keep("permission-compact")
}

// Killing the pane ends the session once; `opencode --continue` in a new
// tab takes it up at its next prompt, in the same session.
func TestOpenCodeKillResume(t *testing.T) {
	w := newOpenCode(t, true)
	p := w.start("a", ocTab)
	s := w.first(p, ocTab, "say hello")
	w.done(ocTab, s)
	p.WaitScreen("Hello from the fake model", ocStep)
	if err := syscall.Kill(p.PID(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	w.step(Step{State: "ended", Reason: "tab_closed", Source: Any, Tab: ocTab, Session: s})
	w.quiet()

	q := w.start("b", "T2", "--continue")
	// The ended session is taken up again at its next prompt, in T2.
	q.Submit("say hello again")
	w.either(Step{State: "ready", Reason: Any, Tab: Any, Session: s}, ocStart, "log", "hook")
	w.prompted("T2", s)
	w.done("T2", s)
	w.quiet()
	w.keep("kill-resume")
}

// Outside wrap, in a plain pane with the plugin: the session carries
// OpenCode's process (the plugin's hook client's parent), and OpenCode
// killed -9 ends it, process_gone. The database and the plugin race as in
// a tab; whichever says the turn first, the turn ends done.
func TestOpenCodeUnwrappedKilled(t *testing.T) {
	w := newOpenCode(t, true)
	p := w.StartPaneReady(PaneOptions{Name: "a", Argv: []string{w.bin}}, ocReady, ocStart)
	p.Submit("say hello")
	for {
		e := w.either(Step{State: Any, Reason: Any, Session: Any}, ocStart, "log", "hook")
		if e.State == "done" {
			break
		}
	}
	p.WaitScreen("Hello from the fake model", ocStep)
	pid := p.AgentPID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if e := w.step(Step{State: "ended", Reason: "process_gone", Source: "hook", Session: Any}); e.Pid != pid {
		t.Fatalf("ended %s: pid %d, want OpenCode's %d", e, e.Pid, pid)
	}
	w.quiet()
}

// Two tabs, two sessions, each in its own tab.
func TestOpenCodeTwoTabs(t *testing.T) {
	w := newOpenCode(t, true)
	a := w.start("a", "T1")
	b := w.start("b", "T2")
	s1 := w.first(a, "T1", "say hello")
	w.done("T1", s1)
	s2 := w.first(b, "T2", "say hello")
	if s2 == s1 {
		t.Fatalf("both tabs in session %s", s1)
	}
	w.done("T2", s2)
	w.quiet()
	w.keep("two-tabs")
}

// A loaded machine, made so: OpenCode is stopped from before the Enter
// until 15 s after it, as a starved process is (its first prompt was
// stamped 15 s after the Enter on a loaded machine, measured), past its
// 5 s window. The tab, new and with no other Enter, is still the session's
// (bind.submit_first).
func TestOpenCodeNoPluginFirstPromptLate(t *testing.T) {
	w := newOpenCode(t, false)
	p := w.start("a", ocTab)
	p.SubmitStarved("say hello", ocStep, 15*time.Second)
	e := w.either(Step{State: "ready", Reason: "session_start", Tab: Any, Session: Any}, ocStart, "log")
	s := e.Session
	w.either(Step{State: "working", Reason: "prompt", Tab: ocTab, Session: s}, ocStart, "log")
	w.either(Step{State: "done", Reason: "turn_end", Tab: ocTab, Session: s}, ocStart, "log")
	w.quiet()
}

// Without the plugin: the database alone. A turn binds to the tab whose
// Enter came just before it; Esc Esc is confirmed by the aborted answer
// the store writes; Esc at the idle prompt changes nothing.
func TestOpenCodeNoPlugin(t *testing.T) {
	w := newOpenCode(t, false)
	p := w.start("a", ocTab)
	p.Submit("say hello")
	e := w.either(Step{State: "ready", Reason: "session_start", Tab: Any, Session: Any}, ocStart, "log")
	s := e.Session
	w.either(Step{State: "working", Reason: "prompt", Tab: ocTab, Session: s}, ocStart, "log")
	w.either(Step{State: "done", Reason: "turn_end", Tab: ocTab, Session: s}, ocStart, "log")
	p.WaitScreen("Hello from the fake model", ocStep)
	p.Key("Escape")
	w.quiet()

	p.Submit(OpenAISlow + " stream please")
	w.either(Step{State: "working", Reason: "prompt", Tab: ocTab, Session: s}, ocStep, "log")
	p.WaitScreen("streaming slowly", ocStep)
	w.escEsc(p)
	w.either(Step{State: "ready", Reason: "interrupted", Tab: ocTab, Session: s}, ocStep, "key+log")
	w.quiet()
	w.escConfirmed()
	w.keep("noplugin")
}
