package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/setup/agentsettings"
	"github.com/logwatch/logwatch/setup/selfbin"
)

// hooksOptions is what `logwatch hooks install|uninstall` was asked to do,
// and the configuration it needs.
type hooksOptions struct {
	install, dryRun, http bool
	force                 bool
	agents                []string
	scope, file, bin      string
	httpAddr, socket      string // the http key and the daemon's socket
	out                   io.Writer
}

func newHooksCmd(a *app) *cobra.Command {
	names := agentsettings.Agents()
	agentsArg := strings.Join(names, "|")
	// One list of every agent and where its hooks go (the project's with
	// --scope project), then what install does with each kind.
	var where strings.Builder
	var settings, modules []string
	for _, s := range parsers.All() {
		if s.Hooks.Settings != "" {
			fmt.Fprintf(&where, "\n  %-8s %s\n  %-8s (project: %s)", s.Name, s.Hooks.Settings, "", s.Hooks.ProjectSettings)
			settings = append(settings, string(s.Name))
		}
		if x := s.Hooks.Extension; x != nil {
			fmt.Fprintf(&where, "\n  %-8s %s\n  %-8s (project: %s)", s.Name,
				filepath.Join(x.Dir, x.File), "", filepath.Join(x.ProjectDir, x.File))
			modules = append(modules, string(s.Name))
		}
	}
	cmd := &cobra.Command{
		Use:   "hooks install|uninstall --agent " + agentsArg,
		Short: "Install or remove logwatch's hook entries in an agent's settings",
		Long: `Installs "logwatch hook --agent X", by absolute path, for every event logwatch
uses, where each agent reads its hooks (--scope project: the second path):` + where.String() + `

Settings files (` + strings.Join(settings, ", ") + `): every other key, the file's indentation,
key order and comments are kept; only logwatch's own entries (any command
running a binary named logwatch with "hook") are added, updated or removed.
Running it twice changes nothing. The previous file is kept as
FILE.logwatch-bak and the new one is written atomically. --dry-run prints the
change as a diff instead.

Hook modules (` + strings.Join(modules, ", ") + `), which these agents load rather than read a
settings file: install writes logwatch's module whole (it forwards the agent's
events to "logwatch hook") and uninstall removes exactly that file; a file
there that logwatch did not write is left alone and reported. A module changed
since logwatch wrote it (its second line holds the sum of what was written) is
refused both ways, the changes shown as a diff: --force replaces or removes
it, keeping it as FILE.logwatch-bak. A module path that is a symlink is
followed: the target is rewritten, the link kept.`,
	}
	opts := &hooksOptions{}
	flags := func(c *cobra.Command) {
		c.Flags().StringSliceVar(&opts.agents, "agent", nil, strings.Join(names, ", ")+" (repeat or comma-separate)")
		c.Flags().BoolVar(&opts.dryRun, "dry-run", false, "print the change as a unified diff; write nothing")
		c.Flags().StringVar(&opts.scope, "scope", "user", "user (the agent's home settings) or project (the working directory's)")
		c.Flags().StringVar(&opts.file, "file", "", "edit this settings file instead (one agent only)")
		c.Flags().BoolVar(&opts.force, "force", false, "a hook module changed since logwatch wrote it: replace or remove it all the same, keeping it as FILE.logwatch-bak")
		_ = c.MarkFlagRequired("agent")
		_ = c.RegisterFlagCompletionFunc("agent", cobra.FixedCompletions(names, cobra.ShellCompDirectiveNoFileComp))
		_ = c.RegisterFlagCompletionFunc("scope", cobra.FixedCompletions([]string{"user", "project"}, cobra.ShellCompDirectiveNoFileComp))
	}
	run := func(install bool) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			opts.install = install
			// The diff quotes the settings file, a repository's own with
			// --scope project: escaped for the terminal.
			opts.httpAddr, opts.socket, opts.out = a.cfg.HTTP, a.socketPath(), termsafe.Writer{W: a.stdout}
			return hooksRun(opts)
		}
	}
	install := &cobra.Command{
		Use:   "install --agent " + agentsArg + " [--dry-run] [--scope user|project] [--force]",
		Short: "Add logwatch's hooks to an agent's settings (idempotent)",
		Args:  cobra.NoArgs,
		RunE:  run(true),
	}
	flags(install)
	install.Flags().StringVar(&opts.bin, "bin", "", "the logwatch binary the hooks run (default: this one, by absolute path)")
	install.Flags().BoolVar(&opts.http, "http", false, "agents with http hooks only: write \"http\" hooks posting to the configured loopback listener "+
		"(the http key) with the per-user secret, instead of command hooks; the settings file is made 0600")
	uninstall := &cobra.Command{
		Use:   "uninstall --agent " + agentsArg + " [--dry-run] [--scope user|project] [--force]",
		Short: "Remove logwatch's hooks from an agent's settings, and nothing else",
		Args:  cobra.NoArgs,
		RunE:  run(false),
	}
	flags(uninstall)
	cmd.AddCommand(install, uninstall)
	return cmd
}

// hooksRun edits each agent's settings file; every failure is a usage
// error.
func hooksRun(opts *hooksOptions) error {
	if opts.file != "" && len(opts.agents) > 1 {
		return withCode(exitUsage, errors.New("--file takes one --agent"))
	}
	// Uninstall also recognises this binary's own entries, whatever its
	// name.
	b, err := selfbin.Path(opts.bin)
	if opts.install {
		if err != nil {
			return withCode(exitUsage, err)
		}
		if _, err := os.Stat(b); err != nil {
			return withCode(exitUsage, fmt.Errorf("--bin: %w", err))
		}
	}
	var errs []error
	for _, ag := range opts.agents {
		spec, ok := agentsettings.Lookup(strings.ToLower(ag))
		if !ok {
			hint := ""
			if c := config.Closest(ag, agentsettings.Agents()); c != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", c)
			}
			return withCode(exitUsage, fmt.Errorf("unknown --agent %q%s: want %s", ag, hint, strings.Join(agentsettings.Agents(), " or ")))
		}
		path := opts.file
		if path == "" {
			p, err := agentsettings.SettingsPath(spec.Agent, opts.scope)
			if err != nil {
				return withCode(exitUsage, err)
			}
			path = p
		}
		command := ""
		if b != "" {
			command = agentsettings.Command(b, spec.Agent)
		}
		if opts.install && opts.http {
			if spec, err = agentsettings.HTTPSpec(spec, opts.httpAddr, opts.socket); err != nil {
				return withCode(exitUsage, err)
			}
		}
		if err := agentsettings.Edit(opts.out, agentsettings.Target{Spec: spec, Path: path, Bin: b, Force: opts.force}, command, opts.install, opts.dryRun); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return withCode(exitUsage, errors.Join(errs...))
	}
	if opts.install && !opts.http && opts.httpAddr != "" {
		fmt.Fprintf(opts.out, "the http listener is configured (%s): `logwatch hooks install --agent claude --http` "+
			"writes http hooks to it instead, for an agent that cannot run this binary\n", opts.httpAddr)
	}
	return nil
}
