package selftest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/selftest/driver"
	"github.com/logwatch/logwatch/selftest/fakemodel"
)

// Try is an installed agent made ready for a person to try (`logwatch
// try`): selftest's world without its daemon or its scenarios. The agent
// runs in a private home against the local fake model, with logwatch's
// hooks installed there, and reports to the daemon on the socket given:
// the person's own. Close removes everything it made.
type Try struct {
	Agent Installed
	Off   *parsers.Offline
	Dir   string // the private root: home, runtime dir, the fake's requests
	Home  string
	Work  string   // the agent's cwd
	Env   []string // the agent's whole environment
	Argv  []string // `logwatch wrap -- AGENT ARGS…`
	Fake  *fakemodel.Server

	cancel context.CancelFunc
}

// StartTry sets in up in its private root (config.TryHome), reporting to the
// daemon on socket; bin is the logwatch binary (its hooks and wrap).
func StartTry(bin, socket string, in Installed) (*Try, error) {
	off := in.spec.Offline
	// Where the daemon looks for it (config.TryRoots): its logs are read as
	// any session's.
	dir := filepath.Dir(config.TryHome(in.Agent))
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, fmt.Errorf("try: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("try: %s exists: another try of %s runs, or one was killed (then remove it)", dir, in.Agent)
	} else if err != nil {
		return nil, fmt.Errorf("try: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &Try{Agent: in, Off: off, Dir: dir, Home: config.TryHome(in.Agent), cancel: cancel}
	t.Work = filepath.Join(t.Home, "work")
	if w, err := filepath.EvalSymlinks(filepath.Dir(dir)); err == nil {
		// The work dir's real path: agents key their project settings by it.
		t.Work = filepath.Join(w, in.Agent, "home", "work")
	}
	fail := func(err error) (*Try, error) { t.Close(); return nil, fmt.Errorf("try: %w", err) }
	for _, d := range []string{t.Work, filepath.Join(t.Home, ".config"), filepath.Join(t.Home, ".state"), filepath.Join(dir, "run", "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fail(err)
		}
	}
	var err error
	if t.Fake, err = fakemodel.Start(ctx, off.Model, dir); err != nil {
		return fail(err)
	}
	env, err := off.Setup(parsers.OfflineHome{Home: t.Home, Work: t.Work, URL: t.Fake.URL, Version: in.Version})
	if err != nil {
		return fail(err)
	}
	t.Env = driver.PrivateEnv(t.Home, filepath.Join(dir, "run"), socket)
	t.Env = append(append(t.Env, env...), privateNet...)
	install := exec.Command(bin, "hooks", "install", "--agent", in.Agent, "--bin", bin)
	install.Env, install.Dir = t.Env, t.Work
	if out, err := install.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("hooks install --agent %s in the private home: %w\n%s", in.Agent, err, out))
	}
	t.Argv = append([]string{bin, "wrap", "--", in.Path}, off.Args...)
	return t, nil
}

// SetEnv adds or replaces KEY=VALUE entries of the agent's environment.
func (t *Try) SetEnv(kv ...string) { t.Env = driver.WithEnv(t.Env, kv...) }

// Step is one thing to type and what it shows.
type Step struct{ Type, Then string }

// Script is what to type in the agent, in order, and the states each
// brings: a prompt, a prompt that asks permission (when the agent asks
// any), a long answer to interrupt, and quitting.
func (t *Try) Script() []Step {
	key := t.Off.Interrupt
	if key == "Escape" {
		key = "Esc"
	}
	steps := []Step{{"hello", "working, then done"}}
	if t.Off.Permission != "" {
		approve := t.Off.Approve
		steps = append(steps, Step{t.Fake.ToolPrompt, "working, then waiting (permission); " + approve + " approves: done"})
	}
	if t.Off.InterruptAgain != "" {
		key += " " + key // once more when it asks
	}
	return append(steps,
		Step{t.Fake.SlowPrompt, "working; " + key + " while it streams: ready (interrupted)"},
		Step{t.Off.Quit, "ended"})
}

// Close stops what outlived the agent and the fake, and removes the root.
func (t *Try) Close() {
	if t.Off != nil && t.Off.Stop != nil {
		t.Off.Stop(t.Home)
	}
	if t.Fake != nil {
		t.Fake.Close()
	}
	t.cancel()
	os.RemoveAll(t.Dir)
}
