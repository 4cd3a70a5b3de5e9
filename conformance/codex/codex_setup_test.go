package codex_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/logwatch/logwatch/conformance"

	"github.com/logwatch/logwatch/parsers"
	codexagent "github.com/logwatch/logwatch/parsers/codex"
)

// Codex runs offline as parsers/codex sets it up (codex.Offline): its own
// CODEX_HOME naming the fake Responses server, `-a on-request -s
// read-only`, the hooks trusted at the first start. Each scenario has its
// own CODEX_HOME, so its own background server, which cleanup stops.

// Timeouts: generous, since the suite shares 2 cores with everything else.
const (
	codexStart = 60 * time.Second // TUI up, server installed and connected
	codexStep  = 30 * time.Second // one published change
	// codexQuiet is how long "no change" is watched: past the 2 s
	// interrupt confirmation window, with a margin.
	codexQuiet = 3 * time.Second
)

// codexWorld is one Codex scenario: a logwatch Scenario, a fake Responses
// server and a CODEX_HOME.
type codexWorld struct {
	*Scenario
	t     *testing.T
	api   *OpenAI
	codex string // the pinned codex executable
	home  string // CODEX_HOME
	hooks bool
	// trusted: the hooks were trusted at a start screen already (the trust
	// is kept in config.toml, later starts do not ask).
	trusted bool
	// take's bookkeeping, per session: the tab a late binding must name,
	// whether it is shown in a tab now, its last state/reason.
	late  map[string]string
	shown map[string]bool
	last  map[string]string
}

// newCodex makes the world; hooks installs logwatch's hooks with the real
// `logwatch hooks install --agent codex`.
func newCodex(t *testing.T, hooks bool) *codexWorld {
	t.Helper()
	a, bin := RequireAgent(t, "codex")
	t.Parallel()
	s := NewScenario(t, "codex")
	ctx, cancel := context.WithCancel(context.Background())
	api, err := StartOpenAI(ctx, s.Dir, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	w := &codexWorld{Scenario: s, t: t, api: api, codex: bin, home: filepath.Join(s.Home, ".codex"), hooks: hooks,
		late: map[string]string{}, shown: map[string]bool{}, last: map[string]string{}}
	// Cleanups run last-in first-out: the background server is stopped
	// before the scenario closes its panes and removes its folder.
	t.Cleanup(func() {
		w.stopServer()
		cancel()
		if t.Failed() {
			t.Logf("=== model requests (%s)\n%s", filepath.Join(s.Dir, "requests.jsonl"), w.requestSummary())
		}
	})
	t.Cleanup(func() {
		if !t.Failed() && len(w.late) > 0 {
			t.Errorf("sessions shown with no tab whose late binding never came: %v\ntimeline:\n%s", w.late, w.Timeline)
		}
	})
	env, err := codexagent.Offline().Setup(parsers.OfflineHome{Home: s.Home, Work: s.Work, URL: api.URL, Version: a.Version})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEnv(env...)
	if hooks {
		s.InstallHooks("codex")
	}
	return w
}

// codexPane is Codex running in a terminal.
type codexPane struct {
	*Pane
	w *codexWorld
}

// start runs `codex -a on-request -s read-only ARGS…` in a new pane (under
// `logwatch wrap --tab TAB` unless tab is ""), trusts the hooks at the
// first start, and waits until the prompt is connected to its server.
func (w *codexWorld) start(name, tab string, args ...string) *codexPane {
	w.t.Helper()
	argv := append([]string{w.codex, "-a", "on-request", "-s", "read-only"}, args...)
	p := &codexPane{Pane: w.StartPane(PaneOptions{Name: name, Argv: argv, Wrap: tab != "", Tab: tab}), w: w}
	// The hooks are trusted at the first start (the trust is kept in
	// config.toml, later starts do not ask).
	if err := codexagent.Offline().Start(p.Pane, w.hooks && !w.trusted, codexStart); err != nil {
		w.t.Fatal(err)
	}
	w.trusted = w.trusted || w.hooks
	return p
}

// submit types a prompt and presses Enter.
func (p *codexPane) submit(prompt string) { p.Submit(prompt) }

// waitIdle waits until the TUI shows its empty prompt again and the
// rollouts hold that many finished turns.
func (p *codexPane) waitIdle(turns int) {
	p.w.t.Helper()
	p.WaitScreen("Ask Codex to do anything", codexStep)
	p.w.waitTurnsEnded(turns)
}

// waitTurnsEnded waits until the rollouts hold that many finished turns.
// The TUI shows the answer and the empty prompt before the server has run
// the Stop hook and written task_complete, and an Esc in between still
// aborts the turn: a key meant for an idle prompt waits for this.
func (w *codexWorld) waitTurnsEnded(turns int) {
	w.t.Helper()
	deadline := time.Now().Add(codexStep)
	for n := w.turnsEnded(); n < turns; n = w.turnsEnded() {
		if time.Now().After(deadline) {
			w.t.Fatalf("the rollouts hold %d finished turns, want %d", n, turns)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var turnEndRE = regexp.MustCompile(`"type":\s*"(task_complete|turn_aborted)"`)

// turnsEnded counts the turn ends (task_complete, turn_aborted) in every
// rollout of the world.
func (w *codexWorld) turnsEnded() int {
	n := 0
	_ = filepath.WalkDir(filepath.Join(w.home, "sessions"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			b, _ := os.ReadFile(path)
			n += len(turnEndRE.FindAll(b, -1))
		}
		return nil
	})
	return n
}

// race is one expected change whose source (or tab) is decided by a race
// between two reporters (the hook and the log see the same turn start a
// few milliseconds apart): each listed alternative is correct, any other
// value fails. Fields left nil are compared exactly as in step.
type race struct {
	step    Step
	sources []string
	tabs    []string
}

// next consumes one change that must match r.
func (w *codexWorld) next(r race) Event {
	w.t.Helper()
	st := r.step
	if r.sources != nil {
		st.Source = Any
	}
	if r.tabs != nil {
		st.Tab = Any
	}
	e, _ := w.take(codexStep, st)
	if r.sources != nil && !slices.Contains(r.sources, e.Source) {
		w.t.Fatalf("change %s: source %q, want one of %q\ntimeline:\n%s", e, e.Source, r.sources, w.Timeline)
	}
	if r.tabs != nil && !slices.Contains(r.tabs, e.Tab) {
		w.t.Fatalf("change %s: tab %q, want one of %q\ntimeline:\n%s", e, e.Tab, r.tabs, w.Timeline)
	}
	return e
}

// step consumes one change that must be exactly st.
func (w *codexWorld) step(st Step) Event {
	w.t.Helper()
	e, _ := w.take(codexStep, st)
	return e
}

// quiet asserts nothing more is published for codexQuiet, once the late
// bindings take allowed for have come (each must, and is consumed).
func (w *codexWorld) quiet() {
	w.t.Helper()
	for len(w.late) > 0 {
		w.take(codexStep) // no alternative: only a late binding passes
	}
	w.Timeline.Quiet(codexQuiet)
}

// take consumes the next change, which must match one of alts (it returns
// which), allowing for the race between an Enter's report and the rollout
// (bind.submit_late): a step that names a tab also matches its
// session's change published with no tab while the session is in no tab
// (never yet, or since its tab closed); the late binding must then follow,
// repeating the last change in that tab, and is consumed here (or by
// quiet). A late binding that never comes fails the scenario.
func (w *codexWorld) take(timeout time.Duration, alts ...Step) (Event, int) {
	w.t.Helper()
	all := Step{State: Any, Reason: Any, Source: Any, Tab: Any, Detail: Any, Session: Any}
	for {
		e := w.Timeline.Next(all, timeout)
		if want := w.late[e.Session]; want != "" && e.Rule == "bind.submit_late" {
			if e.Tab != want || e.State+"/"+e.Reason != w.last[e.Session] {
				w.t.Fatalf("change %s: a late binding, want one repeating %s in tab %q\ntimeline:\n%s", e, w.last[e.Session], want, w.Timeline)
			}
			delete(w.late, e.Session)
			w.shown[e.Session] = true
			if len(alts) == 0 {
				return e, -1 // quiet's: only the late binding was due
			}
			continue
		}
		for i, st := range alts {
			got := e
			if e.Tab == "" && st.Tab != "" && st.Tab != Any && !w.shown[e.Session] {
				got.Tab = st.Tab // shown tabless, until its late binding
			}
			if !st.Match(got, w.Timeline.Session()) {
				continue
			}
			if got.Tab != e.Tab {
				w.late[e.Session] = st.Tab
			}
			switch {
			case e.State == "ended" && e.Reason == "tab_closed", e.Tab == "" && e.Rule == "bind.ambiguous":
				w.shown[e.Session] = false // its tab is gone, or its binding undone
			case e.Tab != "":
				w.shown[e.Session] = true
			}
			w.last[e.Session] = e.State + "/" + e.Reason
			return e, i
		}
		w.t.Fatalf("change %s\n  want %v\ntimeline:\n%s", e, alts, w.Timeline)
	}
}

// requestSummary is one line per model request, for a failure report.
func (w *codexWorld) requestSummary() string {
	var b strings.Builder
	for _, r := range w.api.Requests() {
		fmt.Fprintf(&b, "  %2d %s %-11s %-11s tools=%d %q\n", r.N, r.At.Format("15:04:05.000"), r.Kind, r.Outcome, r.Tools, trunc(r.LastUser, 60))
	}
	return b.String()
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// requests returns the kinds of the model requests so far.
func (w *codexWorld) requestKinds() []string {
	var out []string
	for _, r := range w.api.Requests() {
		out = append(out, r.Kind)
	}
	return out
}

// stopServer stops the scenario's Codex background server.
func (w *codexWorld) stopServer() { codexagent.StopServer(w.home) }
