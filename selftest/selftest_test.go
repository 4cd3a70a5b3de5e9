package selftest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/parsers"
	_ "github.com/logwatch/logwatch/parsers/all"
	"github.com/logwatch/logwatch/selftest/driver"
	"github.com/logwatch/logwatch/selftest/fakemodel"
)

var _ driver.TB = (*runT)(nil)

// TestRunTFatal: Fatalf ends the scenario where it is called, as testing's
// does; the cleanups run last first, a Fatal in one ends only that one,
// and a panic is a failure.
func TestRunTFatal(t *testing.T) {
	rt := newRunT(context.Background(), "x")
	var order []string
	rt.run(func() {
		rt.Cleanup(func() { order = append(order, "first") })
		rt.Cleanup(func() { rt.Fatalf("cleanup failed"); order = append(order, "never") })
		rt.Cleanup(func() { order = append(order, "last") })
		rt.Fatalf("stop %d", 1)
		order = append(order, "after fatal")
	})
	if got := strings.Join(order, ","); got != "last,first" {
		t.Errorf("ran %q, want last,first", got)
	}
	if !rt.Failed() || rt.firstError() != "stop 1" {
		t.Errorf("failed %v, first error %q", rt.Failed(), rt.firstError())
	}
	p := newRunT(context.Background(), "p")
	p.run(func() { panic("boom") })
	if !p.Failed() || !strings.Contains(p.firstError(), "boom") {
		t.Errorf("a panic: failed %v %q", p.Failed(), p.firstError())
	}
}

// TestEveryAgentHasAFake: each agent selftest can drive speaks an API a
// fake serves, and names its screens and keys.
func TestEveryAgentHasAFake(t *testing.T) {
	n := 0
	for _, s := range parsers.All() {
		o := s.Offline
		if o == nil {
			continue
		}
		n++
		if s.Bin == "" || o.Setup == nil || o.Start == nil || o.Interrupt == "" || o.Quit == "" || (o.Permission != "") != (o.Approve != "") {
			t.Errorf("%s: incomplete Offline %+v", s.Name, o)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		f, err := fakemodel.Start(ctx, o.Model, t.TempDir())
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
		} else {
			f.Close()
		}
		cancel()
	}
	if n < 2 {
		t.Errorf("%d agents selftest can drive", n)
	}
}

// TestWriteText: a failure's reason is under its row, escaped; the folder
// to attach is named; a scenario that does not apply says why; the agents'
// table lists each agent with its result, or why it was not covered and what
// to run instead, within 80 columns.
func TestWriteText(t *testing.T) {
	r := &Report{
		Agents: []Installed{{Agent: "claude", Version: "9.9.9"}, {Agent: "pi", Version: "0.73.1"}},
		Results: []Result{
			{Agent: "claude", Version: "9.9.9\x1b[2J", Scenario: "esc", Result: Fail, Error: "want ready/interrupted\nmore",
				Published: []Change{{State: "working", Reason: "prompt"}}, Took: time.Second},
			{Agent: "pi", Version: "0.73.1", Scenario: "prompt", Result: Pass, Took: 4 * time.Second},
			{Agent: "pi", Version: "0.73.1", Scenario: "permission", Result: Skipped, Note: "pi asks no permission"},
		},
		NotCovered: []Gap{
			{Agent: "gemini", Reason: "not installed (`gemini` is not on the PATH)",
				Run: "install it with `npm install -g @google/gemini-cli@0.61.0`, then run `logwatch selftest --agent gemini`"},
			{Agent: "toy", Reason: "it needs a browser; run `go test ./conformance/toy/` from the source"},
		},
		Kept: "/tmp/x"}
	var b strings.Builder
	r.WriteText(&b)
	out := b.String()
	for _, want := range []string{"↳ want ready/interrupted", "working/prompt", "attach the folder /tmp/x", "1 of 2 scenarios failed",
		"(pi asks no permission)",
		"\nAGENT         RESULT\n",
		"\nclaude 9.9.9  FAIL: 1 of 1 scenario failed\n",
		"\npi 0.73.1     pass: 1 scenario; permission n/a: pi asks no permission\n",
		"\ngemini        not installed (`gemini` is not on the PATH): install it with\n              `npm install -g @google/gemini-cli@0.61.0`, then run\n              `logwatch selftest --agent gemini`\n",
		"\ntoy           it needs a browser; run `go test ./conformance/toy/` from the\n              source\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, "more") {
		t.Errorf("unescaped or multi-line:\n%q", out)
	}
	agentsTable := out[strings.Index(out, "\nAGENT  "):strings.Index(out, "\n\nselftest:")]
	for _, l := range strings.Split(agentsTable, "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	if r.Passed() {
		t.Error("a failed report passed")
	}
}

// TestGaps: every agent logwatch reads is named when a run leaves it out:
// one selftest cannot drive with its NotOffline (or, without one, that no
// driver exists), one not on the PATH with the command that installs its
// pinned release; an installed one is not, nor any when agents are named.
func TestGaps(t *testing.T) {
	path := t.TempDir()
	if err := os.WriteFile(filepath.Join(path, "toy-installed"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	off := &parsers.Offline{}
	specs := []*parsers.Spec{
		{Name: "toy-browser", Bin: "toy-browser", NotOffline: "it needs a browser; run `go test ./conformance/toy/` from the source"},
		{Name: "toy-nodriver", Bin: "toy-nodriver"},
		{Name: "toy-installed", Bin: "toy-installed", Offline: off},
		{Name: "omp", Bin: "omp-not-here", Offline: off},
		{Name: "toy-unpinned", Bin: "toy-unpinned", Offline: off},
	}
	var got []string
	for _, g := range gaps(specs, nil, path) {
		got = append(got, g.Agent+": "+g.String())
	}
	want := []string{
		"toy-browser: it needs a browser; run `go test ./conformance/toy/` from the source",
		"toy-nodriver: selftest has no offline driver for it",
		"omp: not installed (`omp-not-here` is not on the PATH): install it with `npm install -g @oh-my-pi/pi-coding-agent@18.2.3 bun@1.4.5`, then run `logwatch selftest --agent omp`",
		"toy-unpinned: not installed (`toy-unpinned` is not on the PATH): install it, then run `logwatch selftest --agent toy-unpinned`",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if g := gaps(specs, []string{"toy-installed"}, path); g != nil {
		t.Errorf("named agents: %v", g)
	}
}

// TestTryScript: what try tells a person to type follows the agent's
// Offline: a permission step only where it asks, the interrupt key twice
// where it wants it twice.
func TestTryScript(t *testing.T) {
	fake := &fakemodel.Server{SlowPrompt: "SLOW stream please", ToolPrompt: "run TOOL please"}
	for _, c := range []struct {
		off  *parsers.Offline
		want string
	}{
		{&parsers.Offline{Interrupt: "Escape", Quit: "/quit"},
			"hello | SLOW stream please: working; Esc while it streams: ready (interrupted) | /quit"},
		{&parsers.Offline{Interrupt: "Escape", InterruptAgain: "esc again", Permission: "Permission required", Approve: "Enter", Quit: "/exit"},
			"hello | run TOOL please | SLOW stream please: working; Esc Esc while it streams: ready (interrupted) | /exit"},
	} {
		var got []string
		for _, s := range (&Try{Off: c.off, Fake: fake}).Script() {
			if strings.HasPrefix(s.Type, "SLOW") {
				got = append(got, s.Type+": "+s.Then)
			} else {
				got = append(got, s.Type)
			}
		}
		if strings.Join(got, " | ") != c.want {
			t.Errorf("got  %s\nwant %s", strings.Join(got, " | "), c.want)
		}
	}
}

// TestFindUnknownAgent: a misspelt agent is refused with the one meant.
func TestFindUnknownAgent(t *testing.T) {
	_, err := Find(context.Background(), []string{"cluade"}, "")
	if err == nil || !strings.Contains(err.Error(), `unknown agent "cluade", did you mean claude?`) {
		t.Fatalf("got %v", err)
	}
}

// TestVersion: the release is read from --version's stdout, else from its
// stderr, where pi 0.73.1 prints it.
func TestVersion(t *testing.T) {
	dir := t.TempDir()
	for name, script := range map[string]string{
		"stdout": `echo "warning 1.2.3" >&2; echo "omp/18.2.3"`,
		"stderr": `echo 0.73.1 >&2`,
		"none":   `echo hello`,
		"env":    `echo "$AGENT_RELEASE"`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{"stdout": "18.2.3", "stderr": "0.73.1"} {
		if v, err := version(context.Background(), filepath.Join(dir, name), dir, "", nil); v != want || err != nil {
			t.Errorf("%s: %q %v, want %s", name, v, err, want)
		}
	}
	if v, err := version(context.Background(), filepath.Join(dir, "none"), dir, "", nil); err == nil {
		t.Errorf("none: %q", v)
	}
	// An agent's VersionEnv reaches it (Copilot CLI's payload cache).
	env := func() []string { return []string{"AGENT_RELEASE=1.0.102"} }
	if v, err := version(context.Background(), filepath.Join(dir, "env"), dir, "", env); v != "1.0.102" || err != nil {
		t.Errorf("env: %q %v", v, err)
	}
}

// TestPlan: the table lists one agent after the other, a scenario that does
// not apply with why; they run each agent's prompt first, then each one's
// esc, and so on.
func TestPlan(t *testing.T) {
	withPerm := &parsers.Spec{Offline: &parsers.Offline{Permission: "Allow?", Approve: "Enter"}}
	without := &parsers.Spec{Offline: &parsers.Offline{}}
	var progress strings.Builder
	rows, jobs := plan([]Installed{{Agent: "a", Version: "1", spec: withPerm}, {Agent: "b", Version: "2", spec: without}}, &progress)
	var table, order []string
	for _, r := range rows {
		table = append(table, r.Agent+"/"+r.Scenario+"/"+r.Result+r.Note)
	}
	for _, j := range jobs {
		order = append(order, j.in.Agent+"/"+j.sc.name)
		if rows[j.i].Agent != j.in.Agent || rows[j.i].Scenario != j.sc.name {
			t.Errorf("job %s/%s fills row %+v", j.in.Agent, j.sc.name, rows[j.i])
		}
	}
	if got, want := strings.Join(table, " "), "a/prompt/ a/esc/ a/permission/ a/quit/ b/prompt/ b/esc/ b/permission/n/ab asks no permission b/quit/"; got != want {
		t.Errorf("table %s\nwant  %s", got, want)
	}
	if got, want := strings.Join(order, " "), "a/prompt b/prompt a/esc b/esc a/permission a/quit b/quit"; got != want {
		t.Errorf("order %s\nwant  %s", got, want)
	}
	if !strings.Contains(progress.String(), "permission n/a: b asks no permission") {
		t.Errorf("progress %q", progress.String())
	}
}

// TestHeeded: an interrupt key counts as taken once a change is published
// or the streaming answer leaves the screen; a key the agent dropped (the
// answer still streams, nothing published) is not, and interrupt presses
// it again.
func TestHeeded(t *testing.T) {
	for _, c := range []struct {
		name    string
		screens []string // what each look at the screen shows, the last one from then on
		pending int
		want    bool
	}{
		{"published", []string{"Working"}, 1, true},
		{"answer gone at once", []string{"> "}, 0, true},
		{"answer gone later", []string{"Working", "Working", "> "}, 0, true},
		{"dropped", []string{"Working"}, 0, false},
	} {
		looks := 0
		screen := func() string {
			looks++
			return c.screens[min(looks, len(c.screens))-1]
		}
		got := heeded(func() int { return c.pending }, screen, func(time.Duration) {}, "Working", 20*time.Millisecond)
		if got != c.want {
			t.Errorf("%s: heeded %v, want %v", c.name, got, c.want)
		}
	}
}
