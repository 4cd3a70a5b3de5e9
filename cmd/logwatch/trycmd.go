package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/selftest"
	"github.com/logwatch/logwatch/selftest/driver"
)

// tryReady bounds the agent's way to its prompt (first-run screens
// included), as selftest's first screen.
const tryReady = 2 * time.Minute

func newTryCmd(a *app, configFile *string) *cobra.Command {
	var agent string
	cmd := &cobra.Command{
		Use:   "try [--agent NAME]",
		Short: "Try an installed agent against a local fake model, its states in your own daemon",
		Long: `Starts an agent installed here (the first found, or --agent) under wrap, against a
local fake model server: no model account, and nothing leaves the machine. It
runs in a private home removed at the end, so your own agent settings and
sessions are not touched, and it reports to your daemon: its states show in
` + "`logwatch status --watch`" + ` like any session's. It prints what to type (a
prompt, one that asks permission where the agent asks any, a long answer to
interrupt, quitting) and what each shows. Every agent selftest drives can be
tried.

Inside tmux it opens the agent in a pane beside this one and the live view
under it; outside tmux the agent runs in this terminal (watch from another
with ` + "`logwatch status --watch`" + `). With no daemon running it starts one for the
session and says so. It needs the agent on the PATH; tmux only to split.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var names []string
			if agent != "" {
				names = []string{agent}
			}
			return a.try(cmd.Context(), names, *configFile)
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "the agent to try (default: the first installed that selftest drives)")
	return cmd
}

func (a *app) try(ctx context.Context, names []string, configFile string) error {
	w := a.stdout
	fmt.Fprintln(w, "try: looking for an installed agent")
	bin, err := os.Executable()
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("try: the logwatch binary: %w", err))
	}
	if b, err := filepath.EvalSymlinks(bin); err == nil {
		bin = b
	}
	found, err := selftest.Find(ctx, names, os.Getenv("PATH"))
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("%w\n(install one, or name another with --agent)", err))
	}
	in := found[0]
	socket := a.socketPath()
	if stop, err := a.ensureDaemon(bin, socket, configFile); err != nil {
		return withCode(exitUsage, err)
	} else if stop != nil {
		defer stop()
	}
	t, err := selftest.StartTry(bin, socket, in)
	if err != nil {
		return withCode(exitUsage, err)
	}
	defer func() {
		t.Close()
		fmt.Fprintln(w, "try: removed the private home; your own settings were not touched")
	}()
	if t.Reclaimed != 0 {
		fmt.Fprintf(w, "try: an earlier try of %s (pid %d) is gone: removed the private home it left\n", t.Agent.Agent, t.Reclaimed)
	}
	inTmux := os.Getenv("TMUX") != ""
	a.printScript(t, inTmux)
	if inTmux {
		return a.tryInTmux(ctx, t, bin, socket)
	}
	return a.tryHere(t)
}

// ensureDaemon starts a daemon for the session when none answers on
// socket; stop stops it (nil: one was running).
func (a *app) ensureDaemon(bin, socket, configFile string) (stop func(), err error) {
	if c, err := client.Dial(context.Background(), socket); err == nil {
		c.Close()
		return nil, nil
	}
	args := []string{"run", "--socket", socket}
	if configFile != "" {
		args = append(args, "--config", configFile)
	}
	d := exec.Command(bin, args...)
	d.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Ctrl+C here is not its
	logf, err := os.CreateTemp("", "logwatch-try-daemon-*.log")
	if err != nil {
		return nil, fmt.Errorf("try: %w", err)
	}
	d.Stdout, d.Stderr = logf, logf
	if err := d.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("try: starting a daemon: %w", err)
	}
	stop = func() {
		d.Process.Signal(syscall.SIGTERM)
		d.Wait()
		logf.Close()
		os.Remove(logf.Name())
		fmt.Fprintln(a.stdout, "try: stopped the daemon it started (`logwatch run`, or `logwatch service install`, keeps one)")
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := client.Dial(context.Background(), socket); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			stop()
			b, _ := os.ReadFile(logf.Name())
			return nil, fmt.Errorf("try: no daemon on %s, and the one started did not answer within 15s:\n%s", socket, tail(string(b), 2000))
		}
	}
	fmt.Fprintf(a.stdout, "try: no daemon was running: started one for this session, on\n  %s\n", socket)
	return stop, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// printScript says what runs where, what to type and what each shows.
func (a *app) printScript(t *selftest.Try, inTmux bool) {
	w := a.stdout
	bold := func(s string) string { return s }
	if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) && os.Getenv("NO_COLOR") == "" {
		bold = func(s string) string { return "\x1b[1m" + s + "\x1b[0m" }
	}
	fmt.Fprintf(w, "try: %s %s against a local fake model: nothing leaves this machine\n", t.Agent.Agent, t.Agent.Version)
	fmt.Fprintf(w, "try: in a private home, removed at the end:\n  %s\n", t.Dir)
	fmt.Fprintln(w, "\nType in the agent, one at a time:")
	for i, s := range t.Script() {
		fmt.Fprintf(w, "  %d. %s\n       %s\n", i+1, bold(s.Type), s.Then)
	}
	fmt.Fprintln(w)
	if inTmux {
		fmt.Fprintln(w, "The agent opens in a pane beside this one, the live view under it.")
	} else {
		fmt.Fprintln(w, "The agent starts here. Watch it from another terminal:")
		fmt.Fprintf(w, "  %s\n", bold("logwatch status --watch"))
	}
	fmt.Fprintln(w)
}

// tryHere runs the agent in this terminal under wrap.
func (a *app) tryHere(t *selftest.Try) error {
	t.SetEnv("TERM=" + envOr("TERM", "xterm-256color"))
	cmd := exec.Command(t.Argv[0], t.Argv[1:]...)
	cmd.Env, cmd.Dir = t.Env, t.Work
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// wrap passes Ctrl+C to the agent; a signal from elsewhere still ends
	// the agent with this process, and then the cleanup runs.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return withCode(exitUsage, fmt.Errorf("try: %w", err))
	}
	// The agent may outlive this process (kill -9): its home stays in use
	// until it ends.
	if err := t.Own(cmd.Process.Pid); err != nil {
		fmt.Fprintf(a.stdout, "try: the agent not recorded as the home's user: %v\n", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				return withCode(exitFindings, fmt.Errorf("try: %w", err))
			}
			return nil
		case s := <-sigs:
			if s != os.Interrupt {
				cmd.Process.Signal(s)
			}
		}
	}
}

// tryInTmux opens the agent in a pane beside this one, takes it through
// its first screens to its prompt, opens the live view under it, and
// waits until the agent's pane is gone.
func (a *app) tryInTmux(ctx context.Context, t *selftest.Try, bin, socket string) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	t.SetEnv("TERM="+envOr("TERM", "tmux-256color"), "TMUX="+os.Getenv("TMUX"))
	q := []string{"exec", "env", "-i", `TMUX_PANE="$TMUX_PANE"`}
	for _, e := range t.Env {
		q = append(q, driver.ShellQuote(e))
	}
	for _, arg := range t.Argv {
		q = append(q, driver.ShellQuote(arg))
	}
	out, err := tmuxOut("split-window", "-h", "-P", "-F", "#{pane_id} #{pane_pid}", "-c", t.Work, strings.Join(q, " "))
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("try: opening the agent's pane: %w", err))
	}
	pane, pidText, _ := strings.Cut(out, " ")
	if pid, err := strconv.Atoi(pidText); err == nil {
		// The agent's pane may outlive this process (kill -9): its home
		// stays in use until it ends.
		if err := t.Own(pid); err != nil {
			fmt.Fprintf(a.stdout, "try: the agent not recorded as the home's user: %v\n", err)
		}
	}
	defer func() {
		// Gone already after a quit. Otherwise the agent, hung up, may
		// still write its session on its way out: the home is removed
		// once wrap (the pane's process, which waits for the agent) ends.
		exec.Command("tmux", "kill-pane", "-t", pane).Run()
		if pid, err := strconv.Atoi(pidText); err == nil {
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end) && syscall.Kill(pid, 0) == nil; {
				time.Sleep(50 * time.Millisecond)
			}
		}
	}()
	watch, err := tmuxOut("split-window", "-v", "-d", "-l", "30%", "-t", pane, "-P", "-F", "#{pane_id}",
		"exec "+driver.ShellQuote(bin)+" status --watch --socket "+driver.ShellQuote(socket))
	if err == nil {
		defer exec.Command("tmux", "kill-pane", "-t", watch).Run()
	}
	term := &tmuxTerm{ctx: ctx, pane: pane}
	started := make(chan error, 1)
	go func() {
		err := context.Canceled // Wait ended the goroutine: a Ctrl+C
		defer func() { started <- err }()
		err = t.Off.Start(term, true, tryReady)
	}()
	if err := <-started; ctx.Err() != nil {
		fmt.Fprintln(a.stdout, "try: stopped")
		return withCode(exitInterrupted, nil)
	} else if err != nil {
		fmt.Fprintf(a.stdout, "try: %s did not show its prompt within %s (%v); the pane is yours all the same\n", t.Agent.Agent, tryReady, err)
	} else {
		fmt.Fprintf(a.stdout, "try: %s is at its prompt in pane %s: type the lines above there\n", t.Agent.Agent, pane)
	}
	for {
		if !tmuxPaneLive(pane) {
			fmt.Fprintf(a.stdout, "try: %s ended\n", t.Agent.Agent)
			return nil
		}
		select {
		case <-ctx.Done():
			fmt.Fprintln(a.stdout, "try: stopped")
			return withCode(exitInterrupted, nil)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

func tmuxOut(args ...string) (string, error) {
	out, err := exec.Command("tmux", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("tmux %s: %w: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// tmuxPaneLive reports whether pane exists and runs its command.
func tmuxPaneLive(pane string) bool {
	out, err := exec.Command("tmux", "display-message", "-p", "-t", pane, "#{pane_id} #{pane_dead}").Output()
	return err == nil && strings.TrimSpace(string(out)) == pane+" 0"
}

// tmuxTerm is a pane of the person's tmux as parsers.Terminal: what the
// agent's Start reads and types to reach its prompt.
type tmuxTerm struct {
	ctx  context.Context
	pane string
}

func (p *tmuxTerm) Screen() string {
	out, _ := exec.Command("tmux", "capture-pane", "-p", "-t", p.pane).Output()
	return string(out)
}

func (p *tmuxTerm) Key(keys ...string) {
	_ = exec.Command("tmux", append([]string{"send-keys", "-t", p.pane}, keys...)...).Run()
}

func (p *tmuxTerm) Wait(d time.Duration) {
	select {
	case <-p.ctx.Done():
		runtime.Goexit() // Start runs in a goroutine of its own
	case <-time.After(d):
	}
}
