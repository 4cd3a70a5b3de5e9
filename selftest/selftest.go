// Package selftest runs the agents installed on this machine, at whatever
// release they are, through logwatch's core scenarios: each in a private
// temporary home, against a local fake model server (selftest/fakemodel),
// under a private daemon (selftest/driver), with logwatch's hooks installed
// there. A release that passes every scenario is recorded as known-good for
// this machine (setup/knowngood), so doctor stops warning about it.
//
// It never reads or writes the user's home, settings, logs or credentials:
// the agents run with HOME, XDG dirs and TMPDIR inside the temporary root,
// the fake's key, and proxies that lead nowhere for anything but loopback.
package selftest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/selftest/driver"
	"github.com/logwatch/logwatch/setup/knowngood"
)

// Options say what to run.
type Options struct {
	Bin    string   // the logwatch binary the scenarios run
	Agents []string // agent names; none: every agent installed
	Path   string   // where agents are looked for ("" is $PATH)
	// Step is how long each expected change may take (the agent's first
	// screen three times that); 0 is 30 s.
	Step time.Duration
	// Parallel is how many scenarios run at once; 0 is 4 (they mostly wait
	// on the agents and the clock).
	Parallel int
	// KnownGood is the record a passing release is added to; "" records
	// nothing.
	KnownGood string
	// Progress gets a line per scenario as it starts and as it ends.
	Progress io.Writer
}

// Installed is an agent found on this machine.
type Installed struct {
	Agent   string `json:"agent"`
	Version string `json:"version"`
	Path    string `json:"path"`
	spec    *parsers.Spec
}

// Change is one published change, as a scenario saw it.
type Change struct {
	State  string `json:"state"`
	Reason string `json:"reason"`
	Source string `json:"source"`
	Tab    string `json:"tab,omitempty"`
}

func (c Change) String() string { return c.State + "/" + c.Reason }

// Results.
const (
	Pass    = "pass"
	Fail    = "FAIL"
	Skipped = "n/a"     // the agent has no such thing (a permission prompt): Note says so
	Stopped = "stopped" // Ctrl+C
)

// Result is one scenario's outcome.
type Result struct {
	Agent     string   `json:"agent"`
	Version   string   `json:"version"`
	Scenario  string   `json:"scenario"`
	Result    string   `json:"result"`
	Published []Change `json:"published"`
	Error     string   `json:"error,omitempty"`
	// Note says why a scenario does not apply to the agent (n/a), or why
	// it ran twice.
	Note    string        `json:"note,omitempty"`
	Dir     string        `json:"dir,omitempty"` // kept on failure
	Took    time.Duration `json:"-"`
	Seconds float64       `json:"seconds"`
	began   time.Time     // when it started (each agent's time in the report)
}

// Gap is an agent a run does not cover, why, and what to run instead
// ("" when the reason says it).
type Gap struct {
	Agent  string `json:"agent"`
	Reason string `json:"reason"`
	Run    string `json:"run,omitempty"`
}

func (g Gap) String() string {
	if g.Run == "" {
		return g.Reason
	}
	return g.Reason + ": " + g.Run
}

// Report is a whole run.
type Report struct {
	Agents []Installed `json:"agents"`
	// NotCovered are the agents the run left out, each with its reason.
	NotCovered []Gap    `json:"not_covered,omitempty"`
	Results    []Result `json:"results"`
	// Kept is the folder kept for a failure report ("" when none).
	Kept string `json:"kept,omitempty"`
	// Recorded are the releases recorded as known-good ("claude 2.1.332").
	Recorded    []string      `json:"recorded,omitempty"`
	Interrupted bool          `json:"interrupted,omitempty"`
	Took        time.Duration `json:"-"`
	Seconds     float64       `json:"seconds"`
}

// Passed reports whether every scenario that ran passed.
func (r *Report) Passed() bool {
	if r.Interrupted {
		return false
	}
	for _, x := range r.Results {
		if x.Result != Pass && x.Result != Skipped {
			return false
		}
	}
	return true
}

// ErrMissing is a tool selftest needs that is not installed.
var ErrMissing = errors.New("selftest: missing")

// ErrNoAgent: no agent to run.
var ErrNoAgent = errors.New("selftest: no agent to run")

// Requirements checks what selftest needs besides the agents; the error
// names the command that installs it.
func Requirements(path string) error {
	if _, err := lookPath("tmux", path); err != nil {
		return fmt.Errorf("%w: tmux (the scenarios' terminal) is not on the PATH; install it with `%s`", ErrMissing, installCommand("tmux", path))
	}
	return nil
}

// installCommand is the command that installs pkg with this machine's
// package manager.
func installCommand(pkg, path string) string {
	for _, m := range []struct{ bin, cmd string }{
		{"brew", "brew install "},
		{"apt-get", "sudo apt-get install -y "},
		{"dnf", "sudo dnf install -y "},
		{"yum", "sudo yum install -y "},
		{"pacman", "sudo pacman -S "},
		{"zypper", "sudo zypper install "},
		{"apk", "sudo apk add "},
	} {
		if _, err := lookPath(m.bin, path); err == nil {
			return m.cmd + pkg
		}
	}
	if runtime.GOOS == "darwin" {
		return "brew install " + pkg
	}
	return "sudo apt-get install -y " + pkg
}

// Find returns the agents to run: those named (each must be installed and
// drivable), or every installed agent logwatch can drive. Each one's
// --version runs in a private empty home.
func Find(ctx context.Context, names []string, path string) ([]Installed, error) {
	for _, n := range names {
		s := parsers.Lookup(parsers.Agent(n))
		if s == nil {
			hint := ""
			if c := config.Closest(n, parsers.Names()); c != "" {
				hint = fmt.Sprintf(", did you mean %s?", c)
			}
			return nil, fmt.Errorf("selftest: unknown agent %q%s (known: %s)", n, hint, strings.Join(parsers.Names(), ", "))
		}
		if s.Offline == nil || s.Bin == "" {
			return nil, fmt.Errorf("selftest: logwatch cannot drive %s offline: %s", n, notOffline(s))
		}
	}
	home, err := os.MkdirTemp("", "logwatch-selftest-version-")
	if err != nil {
		return nil, fmt.Errorf("selftest: %w", err)
	}
	defer os.RemoveAll(home)
	var out []Installed
	for _, s := range parsers.All() {
		if len(names) > 0 && !slices.Contains(names, string(s.Name)) || s.Offline == nil || s.Bin == "" {
			continue
		}
		bin, err := lookPath(s.Bin, path)
		if err != nil {
			if len(names) > 0 {
				return nil, fmt.Errorf("%w: %s (`%s`) is not on the PATH", ErrNoAgent, s.Name, s.Bin)
			}
			continue
		}
		v, err := version(ctx, bin, home, path, s.Offline.VersionEnv)
		if err != nil {
			return nil, fmt.Errorf("selftest: %s at %s: %w", s.Name, bin, err)
		}
		out = append(out, Installed{Agent: string(s.Name), Version: v, Path: bin, spec: s})
	}
	if len(out) == 0 {
		var bins []string
		for _, s := range parsers.All() {
			if s.Offline != nil && s.Bin != "" {
				bins = append(bins, s.Bin)
			}
		}
		return nil, fmt.Errorf("%w: none of %s is on the PATH", ErrNoAgent, strings.Join(bins, ", "))
	}
	return out, nil
}

// NotCovered names each agent a run of names (none: every agent) leaves
// out, why, and what to run instead: selftest cannot drive it offline, or
// it is not installed.
func NotCovered(names []string, path string) []Gap { return gaps(parsers.All(), names, path) }

func gaps(specs []*parsers.Spec, names []string, path string) []Gap {
	if len(names) > 0 {
		return nil // a named agent that cannot run is Find's error
	}
	var out []Gap
	for _, s := range specs {
		if s.Offline == nil || s.Bin == "" {
			out = append(out, Gap{Agent: string(s.Name), Reason: notOffline(s)})
			continue
		}
		if _, err := lookPath(s.Bin, path); err != nil {
			install := "install it"
			if a, ok := agents.Get(string(s.Name)); ok {
				install = fmt.Sprintf("install it with `%s`", a.Install())
			}
			out = append(out, Gap{Agent: string(s.Name), Reason: fmt.Sprintf("not installed (`%s` is not on the PATH)", s.Bin),
				Run: fmt.Sprintf("%s, then run `logwatch selftest --agent %s`", install, s.Name)})
		}
	}
	return out
}

func notOffline(s *parsers.Spec) string {
	if s.NotOffline != "" {
		return s.NotOffline
	}
	return "selftest has no offline driver for it"
}

// version runs `bin --version` with home as its HOME: the release on its
// stdout, else on its stderr.
func version(ctx context.Context, bin, home, path string, extra func() []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	if path == "" {
		path = os.Getenv("PATH")
	}
	cmd.Env = []string{"HOME=" + home, "PATH=" + path, "LANG=C.UTF-8", "TMPDIR=" + home}
	if extra != nil {
		cmd.Env = append(cmd.Env, extra()...)
	}
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	v := parsers.ReleaseIn(string(out))
	if v == "" {
		// pi prints its release on stderr (doctor reads it so too).
		v = parsers.ReleaseIn(stderr.String())
		out = append(out, stderr.Bytes()...)
	}
	if v == "" {
		if err != nil {
			return "", fmt.Errorf("--version: %w", err)
		}
		return "", fmt.Errorf("--version names no release: %q", strings.TrimSpace(string(out)))
	}
	return v, nil
}

// lookPath is exec.LookPath over path (PATH's syntax; "" is $PATH).
func lookPath(bin, path string) (string, error) {
	if path == "" {
		return exec.LookPath(bin)
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, bin)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// Run runs every scenario of every agent, Parallel at a time, in a
// temporary root that is removed at the end unless a scenario failed (then
// the failed scenarios' folders stay, for a report). When ctx ends (a
// Ctrl+C) the running scenarios stop, the rest do not start, and
// everything is removed.
func Run(ctx context.Context, o Options, agents []Installed) (*Report, error) {
	if o.Step <= 0 {
		o.Step = 30 * time.Second
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	root, err := os.MkdirTemp("", "logwatch-selftest-")
	if err != nil {
		return nil, fmt.Errorf("selftest: %w", err)
	}
	begin := time.Now()
	rep := &Report{Agents: agents}
	var jobs []job
	rep.Results, jobs = plan(agents, o.Progress)
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		sem = make(chan struct{}, o.Parallel)
	)
	for _, j := range jobs {
		i := j.i
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			mu.Lock()
			rep.Results[i].Result = Stopped
			mu.Unlock()
			continue
		}
		wg.Add(1)
		mu.Lock()
		fmt.Fprintf(o.Progress, "selftest: %-8s %-9s %-10s started\n", j.in.Agent, j.in.Version, j.sc.name)
		mu.Unlock()
		go func() {
			defer func() { <-sem; wg.Done() }()
			res := runOne(ctx, o, root, j.in, j.sc)
			mu.Lock()
			rep.Results[i] = res
			fmt.Fprintf(o.Progress, "selftest: %-8s %-9s %-10s %s (%s)%s%s\n", res.Agent, res.Version, res.Scenario, res.Result,
				res.Took.Round(100*time.Millisecond), firstLine(res.Error, ": "), firstLine(res.Note, "; "))
			mu.Unlock()
		}()
	}
	wg.Wait()
	rep.Interrupted = ctx.Err() != nil
	failed := false
	for _, r := range rep.Results {
		failed = failed || r.Result == Fail
	}
	if failed {
		rep.Kept = root
	} else {
		os.RemoveAll(root)
		for i := range rep.Results {
			rep.Results[i].Dir = ""
		}
	}
	if !rep.Interrupted && o.KnownGood != "" {
		for _, in := range agents {
			if rep.agentPassed(in.Agent) {
				if err := knowngood.Add(o.KnownGood, in.Agent, in.Version, time.Now()); err != nil {
					return rep, fmt.Errorf("selftest: recording %s %s as known-good: %w", in.Agent, in.Version, err)
				}
				rep.Recorded = append(rep.Recorded, in.Agent+" "+in.Version)
			}
		}
	}
	rep.Took = time.Since(begin)
	rep.Seconds = rep.Took.Round(100 * time.Millisecond).Seconds()
	return rep, nil
}

func (r *Report) agentPassed(agent string) bool {
	for _, x := range r.Results {
		if x.Agent == agent && x.Result != Pass && x.Result != Skipped {
			return false
		}
	}
	return true
}

func firstLine(s, prefix string) string {
	if s == "" {
		return ""
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return prefix + s
}

// job is one scenario of one agent to run.
type job struct {
	in   Installed
	sc   scenario
	i, k int // its row in the results; its scenario's index
}

// plan is the results' rows, one agent after the other, and the jobs that
// fill them, run the other way round (each agent's prompt, then each one's
// esc, …): an agent's scenarios start apart, so that its heavy starts
// (OpenCode's ~700 MB bundle) do not all land at once. A scenario that does
// not apply to an agent is no job: its row says why, as progress does.
func plan(agents []Installed, progress io.Writer) ([]Result, []job) {
	var (
		rows []Result
		jobs []job
	)
	for _, in := range agents {
		for k, sc := range scenarios {
			r := Result{Agent: in.Agent, Version: in.Version, Scenario: sc.name}
			if sc.applies != nil && !sc.applies(in.spec.Offline) {
				r.Result, r.Note = Skipped, in.Agent+" "+sc.none
				fmt.Fprintf(progress, "selftest: %-8s %-9s %-10s n/a: %s\n", in.Agent, in.Version, sc.name, r.Note)
				rows = append(rows, r)
				continue
			}
			jobs = append(jobs, job{in, sc, len(rows), k})
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(jobs, func(a, b job) int { return a.k - b.k })
	return rows, jobs
}

// runOne runs one scenario in root/<agent>-<scenario>, removed unless it
// failed.
func runOne(ctx context.Context, o Options, root string, in Installed, sc scenario) Result {
	res := Result{Agent: in.Agent, Version: in.Version, Scenario: sc.name}
	dir := filepath.Join(root, driver.Sanitize(in.Agent+"-"+sc.name))
	begin := time.Now()
	var (
		t *runT
		w *world
	)
	for again := false; ; again = true {
		t, w = newRunT(ctx, in.Agent+"/"+sc.name), nil
		t.run(func() {
			w = newWorld(t, o, dir, in)
			sc.run(w)
		})
		// An answer that ended before the interrupt took effect is no
		// verdict: once more, in a world of its own.
		if again || !t.Failed() || w == nil || !w.tooLate || ctx.Err() != nil {
			break
		}
		os.RemoveAll(dir)
		res.Note = "run twice: the first answer ended before the key took effect"
	}
	res.Took = time.Since(begin)
	res.Seconds = res.Took.Round(100 * time.Millisecond).Seconds()
	if w != nil {
		res.Published = w.published
	}
	switch {
	case ctx.Err() != nil:
		res.Result = Stopped
		os.RemoveAll(dir)
	case t.Failed():
		res.Result = Fail
		res.Error = t.firstError()
		res.Dir = dir
		_ = os.MkdirAll(dir, 0o755)
		_ = os.WriteFile(filepath.Join(dir, "selftest.log"), []byte(t.logText()), 0o644)
	default:
		res.Result = Pass
		os.RemoveAll(dir)
	}
	return res
}
