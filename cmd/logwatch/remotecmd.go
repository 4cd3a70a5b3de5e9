package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/statusview"
	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/remote"
)

// newRemoteCmd is `logwatch remote`: the remote hosts this daemon
// subscribes to, and the stdio end ssh runs on them.
func newRemoteCmd(a *app, configFile *string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "remote add|remove|list|serve",
		Short: "Remote hosts: their sessions in this machine's stream, through ssh",
		Long: `A remote is another host running its own logwatch daemon. This daemon
subscribes to each configured remote through the system's ssh client
(ssh -T DEST logwatch remote serve): your keys, agent, ProxyJump and
known_hosts apply, and nothing listens anywhere. Its sessions appear in
status, status --watch and the stream with their host.`,
	}
	var command string
	var sshArgs []string
	add := &cobra.Command{
		Use:   "add NAME DEST [--command CMD] [--ssh ARG]...",
		Short: "Add a remote to the configuration file (the daemon takes it at its next start)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := a.configFileToEdit(*configFile)
			if err != nil {
				return withCode(exitUsage, err)
			}
			r := config.RemoteConfig{Name: args[0], Dest: args[1], Command: command, SSH: sshArgs}
			if err := config.AddRemote(file, r); err != nil {
				return withCode(exitUsage, err)
			}
			fmt.Fprintf(a.stdout, "remote %s (%s) added to %s; restart the daemon to link it (logwatch doctor checks it)\n",
				termsafe.Text(r.Name), termsafe.Text(r.Dest), termsafe.Text(file))
			return nil
		},
	}
	add.Flags().StringVar(&command, "command", "", "logwatch on the remote, as its shell finds it (default logwatch)")
	add.Flags().StringArrayVar(&sshArgs, "ssh", nil, "an extra ssh argument (repeat: --ssh -p --ssh 2222)")
	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a remote from the configuration file",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := a.configFileToEdit(*configFile)
			if err != nil {
				return withCode(exitUsage, err)
			}
			if err := config.RemoveRemote(file, args[0]); err != nil {
				return withCode(exitUsage, err)
			}
			fmt.Fprintf(a.stdout, "remote %s removed from %s\n", termsafe.Text(args[0]), termsafe.Text(file))
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "The configured remotes, and their links as the daemon sees them",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return a.remoteList() },
	}
	serve := &cobra.Command{
		Use:   "serve",
		Short: "The remote end of a link (what ssh runs there): this host's stream on stdout",
		Long: `Writes a hello line, then this host's daemon's subscription (docs/protocol.md)
on stdout; forwards requests read on stdin (ack) to the daemon. The daemon
of the host that subscribes runs it through ssh; you do not.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			if err := remote.Serve(ctx, a.socketPath(), readBuildVersion().Version, os.Stdin, a.stdout, a.stderr); err != nil {
				return withCode(exitFindings, err)
			}
			return nil
		},
	}
	cmd.AddCommand(add, remove, list, serve)
	return cmd
}

// configFileToEdit is the file `remote add` and `remove` edit: --config,
// LOGWATCH_CONFIG, or the user's default.
func (a *app) configFileToEdit(flag string) (string, error) {
	switch {
	case flag != "":
		return flag, nil
	case os.Getenv("LOGWATCH_CONFIG") != "":
		return os.Getenv("LOGWATCH_CONFIG"), nil
	case a.cfg.File != "":
		return a.cfg.File, nil
	}
	return config.DefaultFile()
}

// remoteList prints each configured remote and, when the daemon runs, its
// link.
func (a *app) remoteList() error {
	if len(a.cfg.Remotes) == 0 {
		fmt.Fprintln(a.stdout, "no remotes configured (logwatch remote add NAME DEST)")
		return nil
	}
	links := map[string]string{}
	err := a.call(func(ctx context.Context, c *client.Client) error {
		st, err := c.Status(ctx)
		for _, r := range st.Remotes {
			links[r.Name] = statusview.RemoteLine(r, time.Now())
		}
		return err
	})
	// Aligned columns, the link wrapped under its own column in 80.
	nameW, destW := len("NAME"), len("DEST")
	for _, r := range a.cfg.Remotes {
		nameW = max(nameW, utf8.RuneCountInString(termsafe.Line(r.Name)))
		destW = max(destW, utf8.RuneCountInString(termsafe.Line(r.Dest)))
	}
	indent := strings.Repeat(" ", nameW+destW+4)
	fmt.Fprintf(a.stdout, "%-*s  %-*s  LINK\n", nameW, "NAME", destW, "DEST")
	for _, r := range a.cfg.Remotes {
		line := links[r.Name]
		switch {
		case errors.Is(err, client.ErrNoDaemon):
			line = "daemon not running"
		case err != nil:
			line = err.Error()
		case line == "":
			line = "not linked: restart the daemon to take it"
		}
		for i, l := range statusview.Wrap(termsafe.Line(line), max(80-len(indent), 30)) {
			if i == 0 {
				fmt.Fprintf(a.stdout, "%-*s  %-*s  %s\n", nameW, termsafe.Line(r.Name), destW, termsafe.Line(r.Dest), l)
			} else {
				fmt.Fprintln(a.stdout, indent+l)
			}
		}
	}
	return nil
}
