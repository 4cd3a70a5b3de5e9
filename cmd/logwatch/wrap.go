package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/keytap/proxy"
)

// Exit statuses of a command that could not run, as shells report them.
const (
	exitCannotRun = 126
	exitNotFound  = 127
)

func newWrapCmd(a *app) *cobra.Command {
	var tab string
	cmd := &cobra.Command{
		Use:   "wrap [--tab T] -- CMD [ARGS...]",
		Short: "Run an agent under a pty that reports Esc and Ctrl+C to the daemon",
		Long: `Runs CMD under a pseudo-terminal, with LOGWATCH_TAB set (a fresh id unless
--tab), and reports every Esc and Ctrl+C typed into it to the daemon as a
candidate interrupt. Keystrokes reach CMD unchanged and undelayed; a missing
daemon changes nothing. The exit status is CMD's (128+N if signal N killed it).`,
		Args: cobra.MinimumNArgs(1),
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
				Tab:        tab,
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
	cmd.Flags().StringVar(&tab, "tab", "", "the tab id to set as LOGWATCH_TAB (default: a fresh random id)")
	return cmd
}
