package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/jsonc"
	"github.com/logwatch/logwatch/internal/udiff"
	"github.com/logwatch/logwatch/relay"
)

// hookTarget is one agent's settings file to edit.
type hookTarget struct {
	spec hookSpec
	path string
}

// settingsPath is where an agent reads hooks for a scope: the user's file
// or the project's (relative to the working directory).
func settingsPath(agent, scope string) (string, error) {
	switch scope {
	case "user", "":
		switch agent {
		case "claude":
			return config.ExpandPath("${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json"), nil
		case "codex":
			return config.ExpandPath("${CODEX_HOME:-~/.codex}/hooks.json"), nil
		}
	case "project":
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		switch agent {
		case "claude":
			return filepath.Join(wd, ".claude", "settings.json"), nil
		case "codex":
			return filepath.Join(wd, ".codex", "hooks.json"), nil
		}
	default:
		return "", fmt.Errorf("unknown --scope %q: want user or project", scope)
	}
	return "", fmt.Errorf("unknown --agent %q: want claude or codex", agent)
}

// hookBinary is the absolute path the hook command runs. A `go run` build
// lives in a temporary directory that is gone after the run, so it is never
// written into an agent's settings: an installed logwatch on PATH is used
// instead, or the user is asked for one.
func hookBinary(flagBin string) (string, error) {
	if flagBin != "" {
		return filepath.Abs(flagBin)
	}
	self := os.Args[0]
	if !strings.ContainsRune(self, filepath.Separator) {
		if p, err := exec.LookPath(self); err == nil {
			self = p
		}
	}
	if !filepath.IsAbs(self) {
		if p, err := os.Executable(); err == nil {
			self = p
		}
	}
	self, err := filepath.Abs(self)
	if err != nil {
		return "", err
	}
	if isTemporaryBuild(self) {
		if p, err := exec.LookPath("logwatch"); err == nil && !isTemporaryBuild(p) {
			return filepath.Abs(p)
		}
		return "", errors.New("this logwatch is a temporary `go run` build; install one first " +
			"(`go install ./cmd/logwatch` from a checkout: the module is not published) or pass --bin PATH")
	}
	return self, nil
}

func isTemporaryBuild(p string) bool {
	return strings.Contains(p, string(filepath.Separator)+"go-build")
}

func newHooksCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks install|uninstall --agent claude|codex",
		Short: "Install or remove logwatch's hook entries in an agent's settings",
		Long: `Merges "logwatch hook --agent X" entries, by absolute path, for every event logwatch
uses into Claude Code's settings.json (~/.claude/settings.json, or
.claude/settings.json with --scope project) or Codex's hooks.json (~/.codex/).

Every other key, the file's indentation, key order and comments are kept; only
logwatch's own entries (any command running a binary named logwatch with
"hook") are added, updated or removed. Running it twice changes nothing. The
previous file is kept as FILE.logwatch-bak and the new one is written
atomically. --dry-run prints the change as a diff instead.`,
	}
	var agents []string
	var dryRun, useHTTP bool
	var scope, file, bin string
	flags := func(c *cobra.Command) {
		c.Flags().StringSliceVar(&agents, "agent", nil, "claude, codex, or both (repeat or comma-separate)")
		c.Flags().BoolVar(&dryRun, "dry-run", false, "print the change as a unified diff; write nothing")
		c.Flags().StringVar(&scope, "scope", "user", "user (the agent's home settings) or project (the working directory's)")
		c.Flags().StringVar(&file, "file", "", "edit this settings file instead (one agent only)")
		_ = c.MarkFlagRequired("agent")
		_ = c.RegisterFlagCompletionFunc("agent", cobra.FixedCompletions([]string{"claude", "codex"}, cobra.ShellCompDirectiveNoFileComp))
		_ = c.RegisterFlagCompletionFunc("scope", cobra.FixedCompletions([]string{"user", "project"}, cobra.ShellCompDirectiveNoFileComp))
	}
	run := func(install bool) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			if file != "" && len(agents) > 1 {
				return withCode(exitUsage, errors.New("--file takes one --agent"))
			}
			// Uninstall also recognises this binary's own entries, whatever
			// its name.
			b, err := hookBinary(bin)
			if install {
				if err != nil {
					return withCode(exitUsage, err)
				}
				if _, err := os.Stat(b); err != nil {
					return withCode(exitUsage, fmt.Errorf("--bin: %w", err))
				}
			}
			var errs []error
			for _, ag := range agents {
				spec, ok := hookSpecs[strings.ToLower(ag)]
				if !ok {
					return withCode(exitUsage, fmt.Errorf("unknown --agent %q: want claude or codex", ag))
				}
				path := file
				if path == "" {
					p, err := settingsPath(spec.agent, scope)
					if err != nil {
						return withCode(exitUsage, err)
					}
					path = p
				}
				command := ""
				if b != "" {
					command = hookCommand(b, spec.agent)
				}
				if install && useHTTP {
					if spec, err = a.httpSpec(spec); err != nil {
						return withCode(exitUsage, err)
					}
				}
				if err := a.editHooks(hookTarget{spec, path}, command, install, dryRun); err != nil {
					errs = append(errs, err)
				}
			}
			if len(errs) > 0 {
				return withCode(exitUsage, errors.Join(errs...))
			}
			if install && !useHTTP && a.cfg.HTTP != "" {
				fmt.Fprintf(a.stdout, "the http listener is configured (%s): `logwatch hooks install --agent claude --http` "+
					"writes http hooks to it instead, for an agent that cannot run this binary\n", a.cfg.HTTP)
			}
			return nil
		}
	}
	install := &cobra.Command{
		Use:   "install --agent claude|codex [--dry-run] [--scope user|project]",
		Short: "Add logwatch's hooks to an agent's settings (idempotent)",
		Args:  cobra.NoArgs,
		RunE:  run(true),
	}
	flags(install)
	install.Flags().StringVar(&bin, "bin", "", "the logwatch binary the hooks run (default: this one, by absolute path)")
	install.Flags().BoolVar(&useHTTP, "http", false, "Claude Code only: write \"http\" hooks posting to the configured loopback listener "+
		"(the http key) with the per-user secret, instead of command hooks; the settings file is made 0600")
	uninstall := &cobra.Command{
		Use:   "uninstall --agent claude|codex [--dry-run] [--scope user|project]",
		Short: "Remove logwatch's hooks from an agent's settings, and nothing else",
		Args:  cobra.NoArgs,
		RunE:  run(false),
	}
	flags(uninstall)
	cmd.AddCommand(install, uninstall)
	return cmd
}

// httpSpec turns spec into its http-handler variant: the listener's URL and
// the secret the daemon requires (created now if the daemon has not run yet:
// it is the same file).
func (a *app) httpSpec(spec hookSpec) (hookSpec, error) {
	if a.cfg.HTTP == "" {
		return spec, errors.New("--http needs the http listener configured (the `http` key, e.g. http: 127.0.0.1:8765)")
	}
	if spec.agent != "claude" {
		return spec, fmt.Errorf("--http: %s has no http hooks; install its command hooks (without --http)", spec.agent)
	}
	secret, err := relay.LoadOrCreateSecret(relay.SecretFile(a.socketPath()))
	if err != nil {
		return spec, err
	}
	return spec.withHTTP("http://"+a.cfg.HTTP+"/hook?agent="+spec.agent, secret), nil
}

// editHooks applies install or uninstall to one settings file.
func (a *app) editHooks(t hookTarget, command string, install, dryRun bool) error {
	// Write through a symlink (dotfile managers link settings files), not
	// over it.
	path := t.path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", t.path, err)
	}
	if !exists && !install {
		fmt.Fprintf(a.stdout, "%s: %s does not exist; nothing to remove\n", t.spec.agent, t.path)
		return nil
	}
	updated, err := t.spec.planHooks(old, command, install)
	if err != nil {
		var se *jsonc.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s: cannot parse it as JSON (%v); logwatch does not rewrite a file it cannot read: fix it, or move it aside and run again", t.path, err)
		}
		return fmt.Errorf("%s: %v; edit the hooks by hand (see `logwatch hooks --help`)", t.path, err)
	}
	verb := "installed"
	if !install {
		verb = "removed"
	}
	switch {
	case bytes.Equal(old, updated):
		if install {
			fmt.Fprintf(a.stdout, "%s: %s already has logwatch's hooks; nothing to change\n", t.spec.agent, t.path)
		} else {
			fmt.Fprintf(a.stdout, "%s: %s has no logwatch hooks; nothing to change\n", t.spec.agent, t.path)
		}
	case dryRun:
		oldName := t.path
		if !exists {
			oldName = "/dev/null"
		}
		udiff.Write(a.stdout, oldName, t.path, old, updated)
	default:
		if err := writeWithBackup(path, old, updated, exists, t.spec.http != nil); err != nil {
			return fmt.Errorf("%s: %w", t.path, err)
		}
		backup := ""
		if exists {
			backup = " (previous file: " + path + backupSuffix + ")"
		}
		what := "hooks for " + fmt.Sprint(len(t.spec.events)) + " events"
		fmt.Fprintf(a.stdout, "%s: %s logwatch %s in %s%s\n", t.spec.agent, verb, what, t.path, backup)
	}
	if install && t.spec.agent == "codex" {
		fmt.Fprint(a.stdout, `codex: Codex runs new or changed hooks only once you trust them: at the next start
       answer "Trust all and continue" (or review them with /hooks); until then they
       do not run. Builds from before hooks were on by default also need
       [features] codex_hooks = true in ~/.codex/config.toml.
`)
	}
	return nil
}

const backupSuffix = ".logwatch-bak"

// writeWithBackup keeps the old content as path.logwatch-bak, then replaces
// path atomically (temp file in the same directory, fsync, rename) with the
// old file's mode.
func writeWithBackup(path string, old, updated []byte, exists, private bool) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	backupMode := mode
	if private {
		// The file now holds the listener's secret: for this user only.
		mode &^= 0o077
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if exists {
		if err := atomicWrite(path+backupSuffix, old, backupMode); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
	}
	return atomicWrite(path, updated, mode)
}

func atomicWrite(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
