package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/statusview"
	"github.com/logwatch/logwatch/setup/selfbin"
	"github.com/logwatch/logwatch/setup/service"
)

func newServiceCmd(a *app) *cobra.Command {
	var dryRun, noEnable bool
	var bin string
	cmd := &cobra.Command{
		Use:   "service install|uninstall|status",
		Short: "Run the daemon as a user service (systemd on Linux, launchd on macOS)",
		Long: `install writes a systemd user unit (~/.config/systemd/user/logwatch.service) or a
launchd agent (~/Library/LaunchAgents/dev.logwatch.plist) that runs "logwatch run",
restarts it when it fails, and logs to the journal (journalctl --user -u logwatch)
or ~/Library/Logs/logwatch.log; then it enables and starts it. --dry-run prints
the file instead.`,
	}
	def := func() (service.Def, error) {
		d, err := service.For(a.cfg.File, a.socketPath())
		if err != nil {
			return d, withCode(exitUsage, err)
		}
		return d, nil
	}
	// A service manager's command that fails is a finding, not bad usage.
	runSteps := func(steps [][]string) error {
		if err := service.RunSteps(a.stdout, steps); err != nil {
			return withCode(exitFindings, err)
		}
		return nil
	}
	install := &cobra.Command{
		Use:   "install [--dry-run] [--no-enable]",
		Short: "Write the service file, then enable and start the service",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := def()
			if err != nil {
				return err
			}
			if d.Bin, err = selfbin.Path(bin); err != nil {
				return withCode(exitUsage, err)
			}
			if dryRun {
				fmt.Fprintf(a.stdout, "# %s\n", d.Path())
				a.stdout.Write(d.Render())
				return nil
			}
			if err := service.Install(d); err != nil {
				return withCode(exitUsage, err)
			}
			fmt.Fprintf(a.stdout, "wrote %s\n", d.Path())
			steps := service.EnableSteps(d)
			if noEnable || !service.ManagerUp(d.GOOS) {
				if !noEnable {
					for _, l := range statusview.Wrap(service.NoManager(d.GOOS), 80) {
						fmt.Fprintln(a.stdout, l)
					}
				}
				fmt.Fprintln(a.stdout, "to start it now and at every login, run:")
				for _, s := range steps {
					fmt.Fprintln(a.stdout, "  "+strings.Join(s, " "))
				}
				return nil
			}
			return runSteps(steps)
		},
	}
	install.Flags().BoolVar(&dryRun, "dry-run", false, "print the service file; change nothing")
	install.Flags().BoolVar(&noEnable, "no-enable", false, "write the file only, and print the commands that start it")
	install.Flags().StringVar(&bin, "bin", "", "the logwatch binary to run (default: this one)")
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop and disable the service and remove its file",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := def()
			if err != nil {
				return err
			}
			if _, err := os.Stat(d.Path()); errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(a.stdout, "%s is not installed; nothing to remove\n", d.Path())
				return nil
			}
			if service.ManagerUp(d.GOOS) {
				// Stopping a unit that is not loaded fails; removal goes on.
				_ = runSteps(service.DisableSteps(d))
			}
			if err := os.Remove(d.Path()); err != nil {
				return withCode(exitUsage, err)
			}
			if d.GOOS == "linux" && service.ManagerUp(d.GOOS) {
				_ = runSteps([][]string{{"systemctl", "--user", "daemon-reload"}})
			}
			fmt.Fprintf(a.stdout, "removed %s\n", d.Path())
			return nil
		},
	}
	status := &cobra.Command{
		Use:   "status",
		Short: "Say whether the service is installed and running",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := def()
			if err != nil {
				return err
			}
			st := service.State(d)
			fmt.Fprintln(a.stdout, st.Text)
			if !st.Installed || !st.Active {
				return withCode(exitFindings, nil)
			}
			return nil
		},
	}
	cmd.AddCommand(install, uninstall, status)
	return cmd
}
