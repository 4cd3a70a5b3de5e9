package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/keytap/proxy"
)

// Exit statuses of a command that could not run, as shells report them.
const (
	exitCannotRun = 126
	exitNotFound  = 127
)

func newWrapCmd(a *app, configFile *string) *cobra.Command {
	var tab string
	cmd := &cobra.Command{
		Use:   "wrap [--tab T] -- CMD [ARGS...]",
		Short: "Run an agent under a pty that reports Esc and Ctrl+C to the daemon",
		Long: `Runs CMD under a pseudo-terminal, with LOGWATCH_TAB set (--tab, else the
tmux pane's, else a fresh id), and reports every Esc and Ctrl+C typed into it
to the daemon as a candidate interrupt. Keystrokes reach CMD unchanged and
undelayed; a missing daemon changes nothing, and so does a configuration that
does not load: wrap says so in one line on stderr and runs CMD with the
defaults. The exit status is CMD's (128+N if signal N killed it).`,
		Args: cobra.MinimumNArgs(1),
		// In place of the root's: a bad configuration must not stop CMD.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			a.wrapConfig(*configFile, cmd.Flags())
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			child := exec.Command(args[0], args[1:]...)
			if child.Err != nil {
				return withCode(exitNotFound, child.Err)
			}
			child.Env = os.Environ()
			if cmd.Flags().Changed("socket") {
				// The agent's hooks must reach the daemon the keys go to.
				child.Env = append(child.Env, "LOGWATCH_SOCKET="+a.socketPath())
			}
			rep := proxy.NewClientReporter(a.socketPath())
			defer rep.Close()
			res, err := proxy.Run(child, proxy.Config{
				Tab:        wrapTab(tab),
				EscTimeout: a.cfg.Interrupt.EscTimeout,
				Reporter:   rep,
			})
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return withCode(exitNotFound, err)
			case err != nil:
				return withCode(exitCannotRun, fmt.Errorf("wrap %s: %w", args[0], err))
			case res.ExitCode != 0:
				// No message: the status is the command's, not ours.
				return withCode(res.ExitCode, nil)
			}
			return nil
		},
	}
	// Everything after CMD is CMD's, flags included.
	cmd.Flags().SetInterspersed(false)
	cmd.Flags().StringVar(&tab, "tab", "", "the tab id to set as LOGWATCH_TAB (default: the tmux pane's, else a fresh random id)")
	return cmd
}

// wrapConfig loads the configuration for wrap, which runs its command
// whatever the configuration says: `alias claude='logwatch wrap -- claude'`
// must survive a typo in it. A configuration that does not load is said in
// one line, and wrap goes on with the defaults, but for what was read:
// keys are still reported, to the socket the hook client picks in the same
// case (flag, then $LOGWATCH_SOCKET, then the file's, then the default), so
// keys and hooks still meet at one daemon. Reporting is safe with defaults:
// a key is only a candidate the daemon confirms from the agent's log, and
// the Esc timeout only tells a lone Esc from a sequence (<= 0: keytap's).
func (a *app) wrapConfig(file string, flags *pflag.FlagSet) {
	cfg, err := config.Load(file, flags)
	if err != nil {
		if f := flags.Lookup("socket"); f != nil && f.Changed {
			cfg.Socket = config.ExpandPath(f.Value.String())
		} else {
			cfg.Socket = fallbackSocket(cfg.Socket)
		}
		cfg.Log = config.LogConfig{Level: "info", Format: "auto"}
		a.cfg = cfg
		// errors.Join's lines as one line, escaped: names and values in
		// it come from the file.
		msg := fmt.Sprintf("%s (the command runs all the same; keys go to %s)",
			strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; "), a.socketPath())
		fmt.Fprintln(a.stderr, "logwatch wrap: warning:", termsafe.Line(msg))
	}
	a.cfg = cfg
	a.log = newLogger(a.stderr, cfg.Log)
}
