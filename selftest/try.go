package selftest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/logwatch/logwatch/internal/atomicfile"
	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/internal/safeopen"
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
	// Reclaimed is the pid of an earlier try of this agent that was gone
	// (killed with -9: nothing removed its root), whose root was removed
	// to make this one; 0 when there was none.
	Reclaimed int

	owners []owner // the processes using Dir (ownerFile)
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
	reclaimed, err := claim(dir, in.Agent, off.Stop)
	if err != nil {
		return nil, fmt.Errorf("try: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &Try{Agent: in, Off: off, Dir: dir, Home: config.TryHome(in.Agent), Reclaimed: reclaimed, cancel: cancel}
	if err := t.Own(os.Getpid()); err != nil {
		t.Close()
		return nil, fmt.Errorf("try: %w", err)
	}
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

// ownerFile, in a try's root, names the processes using it, one "pid
// start" line each (start: proctree.StartTime, so that a reused pid is not
// taken for one of them): `logwatch try`, then the agent it runs, which
// may outlive a try killed with -9 and still write in its home.
const ownerFile = "owner"

// maxOwnerFile bounds the record read: a few lines.
const maxOwnerFile = 4 << 10

type owner struct {
	pid   int
	start uint64
}

// Own adds pid to the processes using the root: while any of them runs,
// another try of this agent is refused.
func (t *Try) Own(pid int) error {
	start, _ := proctree.StartTime(pid) // 0 where unknown: the pid alone then
	t.owners = append(t.owners, owner{pid, start})
	var b strings.Builder
	for _, o := range t.owners {
		fmt.Fprintf(&b, "%d %d\n", o.pid, o.start)
	}
	return atomicfile.Write(filepath.Join(t.Dir, ownerFile), []byte(b.String()), 0o600)
}

// claim makes dir, the private root of a try of agent. A root left by a
// try whose processes are all gone is removed first (stop ends what of the
// agent outlived them, as Close does), and that try's pid returned. A root
// whose owner still runs is refused, and so is one that names no owner:
// another try is making it, or one from before owners were recorded left
// it.
func claim(dir, agent string, stop func(home string)) (reclaimed int, err error) {
	err = os.Mkdir(dir, 0o700)
	if errors.Is(err, fs.ErrExist) {
		if reclaimed, err = reclaim(dir, agent, stop); err != nil {
			return 0, err
		}
		if err = os.Mkdir(dir, 0o700); errors.Is(err, fs.ErrExist) {
			return 0, fmt.Errorf("%s exists: another try of %s has just started", dir, agent)
		}
	}
	return reclaimed, err
}

// reclaim removes dir, a try's root, if every process it names is gone.
func reclaim(dir, agent string, stop func(home string)) (int, error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return 0, err
	}
	if !fi.IsDir() {
		// A symlink is never followed, nor anything else removed.
		return 0, fmt.Errorf("%s is a %s, not a try's folder: remove it", dir, safeopen.Kind(fi.Mode()))
	}
	owners, err := readOwners(filepath.Join(dir, ownerFile))
	if err != nil {
		return 0, fmt.Errorf("%s exists and names no owner (%w): another try of %s is starting, or one was killed (then remove it)", dir, err, agent)
	}
	for _, o := range owners {
		if proctree.Alive(o.pid, o.start) {
			return 0, fmt.Errorf("%s is in use: another try of %s runs (pid %d); one agent is tried at a time", dir, agent, o.pid)
		}
	}
	if stop != nil {
		stop(filepath.Join(dir, "home"))
	}
	// RemoveAll unlinks a symlink inside without following it (unlinkat
	// under a directory opened O_NOFOLLOW): nothing outside dir goes.
	if err := os.RemoveAll(dir); err != nil {
		return 0, fmt.Errorf("removing the root of a try that is gone: %w", err)
	}
	return owners[0].pid, nil
}

// readOwners reads an ownerFile: at least one "pid start" line.
func readOwners(path string) ([]owner, error) {
	b, err := safeopen.ReadFile(path, maxOwnerFile)
	if err != nil {
		return nil, err
	}
	var out []owner
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) != 2 {
			return nil, fmt.Errorf("%s: bad line %q", path, line)
		}
		pid, err1 := strconv.Atoi(f[0])
		start, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil || pid <= 0 {
			return nil, fmt.Errorf("%s: bad line %q", path, line)
		}
		out = append(out, owner{pid, start})
	}
	return out, nil
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
