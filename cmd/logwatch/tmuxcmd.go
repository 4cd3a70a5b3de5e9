package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/logwatch/logwatch/internal/atomicfile"
	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/internal/udiff"
	"github.com/logwatch/logwatch/keytap/proxy"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/setup/selfbin"
	"github.com/logwatch/logwatch/tmux"
)

// tmuxInstallOptions is what `logwatch tmux install|uninstall` does.
type tmuxInstallOptions struct {
	dryRun   bool
	key, bin string
	file     string // the user's tmux.conf ("" to find it)
}

func newTmuxCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tmux install|uninstall|follow|focus",
		Short: "Show every session's state in tmux: a dot per window, a summary, a jump key",
		Long: `install writes logwatch's tmux configuration (~/.config/logwatch/tmux.conf) and
adds one marked source-file line to your tmux.conf (~/.tmux.conf, else
$XDG_CONFIG_HOME/tmux/tmux.conf; created if neither exists). It puts a dot
before each window's name (the most urgent session of its panes), a summary
before status-right ("2 waiting · 1 done") and binds prefix + N (--key) to
"logwatch next --switch". A running tmux sources it at once. uninstall removes
exactly what install added; both are idempotent and --dry-run prints the change
as a diff. The sessions must run under "logwatch wrap" inside tmux: the tab is
then the pane (docs/tmux.md).`,
	}
	opts := &tmuxInstallOptions{}
	flags := func(c *cobra.Command) {
		c.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print the change as a unified diff; write nothing")
		c.Flags().StringVar(&opts.file, "file", "", "your tmux.conf (default: ~/.tmux.conf, else $XDG_CONFIG_HOME/tmux/tmux.conf)")
	}
	install := &cobra.Command{
		Use:   "install [--key N] [--dry-run]",
		Short: "Add logwatch's dots, summary and jump key to tmux",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return a.tmuxInstall(opts, true) },
	}
	flags(install)
	install.Flags().StringVar(&opts.key, "key", "N", "the key (after the prefix) that jumps to the session needing you most")
	install.Flags().StringVar(&opts.bin, "bin", "", "the logwatch binary tmux runs (default: this one)")
	uninstall := &cobra.Command{
		Use:   "uninstall [--dry-run]",
		Short: "Remove what `logwatch tmux install` added",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return a.tmuxInstall(opts, false) },
	}
	flags(uninstall)
	follow := &cobra.Command{
		Use:   "follow",
		Short: "Keep the tmux server's dots and summary in step with the daemon (run by the installed configuration)",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return a.tmuxFollow() },
	}
	focus := &cobra.Command{
		Use:   "focus PANE|none",
		Short: "Wake the follower to read which panes tmux shows (run by the hooks an earlier install wrote)",
		Args:  cobra.ExactArgs(1),
		RunE:  func(_ *cobra.Command, args []string) error { a.tmuxFocus(args[0]); return nil },
	}
	cmd.AddCommand(install, uninstall, follow, focus)
	return cmd
}

// tmuxConfPaths are logwatch's tmux.conf and the user's.
func tmuxConfPaths(file string) (ours, user string, err error) {
	cfgFile, err := config.DefaultFile()
	if err != nil {
		return "", "", err
	}
	ours = filepath.Join(filepath.Dir(cfgFile), "tmux.conf")
	if file != "" {
		return ours, file, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", "", fmt.Errorf("no home directory: %w", err)
	}
	user = filepath.Join(home, ".tmux.conf")
	if _, err := os.Lstat(user); err == nil {
		return ours, user, nil
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	if p := filepath.Join(xdg, "tmux", "tmux.conf"); fileExists(p) {
		return ours, p, nil
	}
	return ours, user, nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// tmuxKeyRE is compiled on first use: not by every hook run.
var tmuxKeyRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([CMS]-)*[A-Za-z0-9]$|^([CMS]-)*F[0-9]{1,2}$`)
})

func (a *app) tmuxInstall(opts *tmuxInstallOptions, install bool) error {
	ours, user, err := tmuxConfPaths(opts.file)
	if err != nil {
		return withCode(exitUsage, err)
	}
	if install && !tmuxKeyRE().MatchString(opts.key) {
		return withCode(exitUsage, fmt.Errorf("--key %q: want one key, as tmux names it (N, C-n, M-j, F5)", opts.key))
	}
	// A symlinked tmux.conf (dotfiles) is edited in its target, the link kept.
	if t, err := filepath.EvalSymlinks(user); err == nil {
		user = t
	}
	old, err := os.ReadFile(user)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return withCode(exitUsage, fmt.Errorf("read %s: %w", user, err))
	}
	oldConf, _ := os.ReadFile(ours)
	var newUser, newConf []byte
	remove := false
	if install {
		bin, err := selfbin.Path(opts.bin)
		if err != nil {
			return withCode(exitUsage, err)
		}
		for _, p := range []string{bin, ours} {
			if err := tmux.CheckPath(p); err != nil {
				return withCode(exitUsage, err)
			}
		}
		newConf = tmux.Conf(bin, opts.key)
		newUser, _ = tmux.AddSource(old, exists, ours)
	} else {
		newUser, remove, _ = tmux.RemoveSource(old)
	}
	if opts.dryRun {
		udiff.Write(a.stdout, ours, ours, oldConf, newConf)
		if remove {
			newUser = nil
		}
		udiff.Write(a.stdout, user, user, old, newUser)
		return nil
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(user); err == nil {
		mode = fi.Mode().Perm()
	}
	server := tmux.Server{Socket: tmux.SocketPath(os.Getenv("TMUX"))}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if install {
		if err := os.MkdirAll(filepath.Dir(ours), 0o755); err != nil {
			return withCode(exitUsage, err)
		}
		if !bytes.Equal(oldConf, newConf) {
			if err := atomicfile.Write(ours, newConf, 0o644); err != nil {
				return withCode(exitUsage, fmt.Errorf("write %s: %w", ours, err))
			}
			fmt.Fprintln(a.stdout, "wrote", ours)
		}
		if !bytes.Equal(old, newUser) || !exists {
			if err := atomicfile.Write(user, newUser, mode); err != nil {
				return withCode(exitUsage, fmt.Errorf("write %s: %w", user, err))
			}
			fmt.Fprintln(a.stdout, "added a source-file line to", user)
		}
		// A follower of an earlier install (another binary, maybe) makes
		// way: the sourced file starts this one's.
		stopFollower(ctx, server)
		// Effective now in a running server; none running is fine.
		if _, err := server.Run(ctx, []string{"source-file", ours}); err == nil {
			fmt.Fprintln(a.stdout, "tmux: sourced", ours)
		} else if !errors.Is(err, tmux.ErrNoServer) {
			return withCode(exitUsage, fmt.Errorf("the files are written, but the running tmux refused them: %w", err))
		}
		return nil
	}
	switch {
	case remove:
		if err := os.Remove(user); err != nil {
			return withCode(exitUsage, err)
		}
		fmt.Fprintln(a.stdout, "removed", user, "(install had created it)")
	case !bytes.Equal(old, newUser):
		if err := atomicfile.Write(user, newUser, mode); err != nil {
			return withCode(exitUsage, fmt.Errorf("write %s: %w", user, err))
		}
		fmt.Fprintln(a.stdout, "removed logwatch's line from", user)
	}
	if err := os.Remove(ours); err == nil {
		fmt.Fprintln(a.stdout, "removed", ours)
	}
	a.tmuxUndo(ctx, server, string(oldConf))
	return nil
}

// tmuxUndo takes logwatch's configuration out of a running tmux server:
// hooks, key, format prefixes, options, and the follower.
func (a *app) tmuxUndo(ctx context.Context, server tmux.Server, conf string) {
	key := "N"
	if m := regexp.MustCompile(`(?m)^bind-key (\S+) `).FindStringSubmatch(conf); m != nil {
		key = m[1]
	}
	cmds := tmux.UnsetCommands(key)
	for opt, prefix := range tmux.FormatPrefixes {
		out, err := server.Run(ctx, []string{"show-options", "-gv", opt})
		if errors.Is(err, tmux.ErrNoServer) {
			return
		}
		if v := strings.TrimSuffix(string(out), "\n"); err == nil && strings.Contains(v, prefix) {
			cmds = append(cmds, []string{"set-option", "-g", opt, strings.Replace(v, prefix, "", 1)})
		}
	}
	stopFollower(ctx, server)
	// Each alone: a hook or key already gone must not stop the rest.
	for _, c := range cmds {
		server.Run(ctx, c)
	}
	fmt.Fprintln(a.stdout, "tmux: logwatch's hooks, key and dots removed from the running server")
}

// stopFollower ends the running server's follower, if any, and waits
// (within ctx) until its lock is free: a follower started next must not
// find it still held, and exit.
func stopFollower(ctx context.Context, server tmux.Server) {
	out, err := server.Run(ctx, []string{"display-message", "-p", "#{socket_path}"})
	if err != nil {
		return
	}
	socket := strings.TrimSpace(string(out))
	pid := readFollowerPid(socket)
	if pid <= 0 {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	for readFollowerPid(socket) == pid {
		select {
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// followerLock is the follower's pid file, beside the tmux server's
// socket: one follower per server.
func followerLock(socket string) string { return socket + ".logwatch-follow" }

// readFollowerPid is the pid of the follower running for the server, 0
// for none. Only a held lock names one: a pid file left by a follower that
// died may name a process that reused its pid.
func readFollowerPid(socket string) int {
	f, err := os.Open(followerLock(socket))
	if err != nil {
		return 0
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB) == nil {
		return 0 // nobody holds it
	}
	b, err := io.ReadAll(io.LimitReader(f, 32))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// tmuxFollow runs the follower for the tmux server $TMUX names (run-shell
// sets it) until that server exits.
func (a *app) tmuxFollow() error {
	env := os.Getenv("TMUX")
	socket, serverPid := tmux.SocketPath(env), tmux.ServerPid(env)
	if socket == "" || serverPid == 0 {
		return withCode(exitUsage, errors.New("not inside tmux ($TMUX unset): the installed tmux configuration starts the follower"))
	}
	log := a.log.With().Str("component", "tmux").Str("tmux", socket).Logger()
	lock, err := os.OpenFile(followerLock(socket), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("follower lock: %w", err))
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		log.Debug().Msg("a follower already runs for this tmux server")
		return nil
	}
	lock.Truncate(0)
	fmt.Fprintf(lock, "%d\n", os.Getpid())
	defer os.Remove(lock.Name())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// The follower lives as long as its tmux server: told of its exit by
	// the kernel (a pidfd), not by asking.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if start, err := proctree.StartTime(serverPid); err == nil {
		if x, err := proctree.NewExits(func(int, uint64) { cancel() }); err == nil {
			defer x.Close()
			if !x.Watch(serverPid, start) {
				return nil
			}
		}
	}
	ups, err := a.followDaemon(ctx)
	if err != nil {
		return nil // ctx ended while no daemon ran
	}
	f := &tmux.Follower{Server: tmux.Server{Socket: socket}, ServerPid: serverPid, Log: log,
		Dial: a.dial, Ack: a.ackTurn}
	if err := f.Run(ctx, ups); err != nil && !errors.Is(err, tmux.ErrNoServer) {
		return withCode(exitUsage, err)
	}
	return nil
}

// followDaemon subscribes to the daemon, waiting for one to start (tmux
// may well start before it).
func (a *app) followDaemon(ctx context.Context) (<-chan client.Update, error) {
	delay := 100 * time.Millisecond
	for {
		ups, err := client.Follow(ctx, a.socketPath(), client.FollowOptions{})
		if err == nil {
			return ups, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 5*time.Second)
	}
}

// tmuxFocus wakes the follower, which asks tmux which panes the clients
// show and holds their focus: the hooks of a tmux.conf an earlier release
// wrote run it (the pane it names is the follower's to find). It prints
// nothing and fails quietly: run-shell would show any output in the pane.
func (a *app) tmuxFocus(string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = tmux.Server{Socket: tmux.SocketPath(os.Getenv("TMUX"))}.SignalFocus(ctx)
}

// wrapTab is the tab wrap runs its command in: --tab, else, in a tmux pane
// and not already inside a wrapped tab, the pane's (tmux.PaneTab: the
// follower and next find the pane from it), else a fresh one.
func wrapTab(flag string) string {
	if flag != "" || proxy.TabFromEnv() != "" {
		return flag
	}
	return tmux.PaneTab(os.Getenv("TMUX"), os.Getenv("TMUX_PANE"))
}
