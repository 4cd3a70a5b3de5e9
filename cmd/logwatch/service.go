package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/atomicfile"
	"github.com/logwatch/logwatch/setup/selfbin"
)

// The daemon as a per-user service: a systemd user unit on Linux (logs to
// the journal), a launchd agent on macOS (logs to ~/Library/Logs).
const (
	systemdUnitName = "logwatch.service"
	launchdLabel    = "dev.logwatch"
)

// serviceDef is everything the service files are rendered from.
type serviceDef struct {
	goos string
	bin  string
	args []string // after the binary: "run" and any --config
	home string
	env  map[string]string // launchd only: systemd user units inherit the session's
}

// path is where the service file goes.
func (d serviceDef) path() string {
	if d.goos == "darwin" {
		return filepath.Join(d.home, "Library", "LaunchAgents", launchdLabel+".plist")
	}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if cfg == "" {
		cfg = filepath.Join(d.home, ".config")
	}
	return filepath.Join(cfg, "systemd", "user", systemdUnitName)
}

func (d serviceDef) render() []byte {
	if d.goos == "darwin" {
		return launchdPlist(d)
	}
	return systemdUnit(d)
}

// systemdUnit restarts the daemon when it fails (not when it is stopped);
// its stderr goes to the journal (`journalctl --user -u logwatch`).
func systemdUnit(d serviceDef) []byte {
	var b bytes.Buffer
	line := systemdQuote(d.bin)
	for _, a := range d.args {
		line += " " + systemdQuote(a)
	}
	fmt.Fprintf(&b, `[Unit]
Description=logwatch: live state of AI coding agent sessions
# Docs: logwatch run --help; logwatch man DIR writes the manual pages (the module
# is not published: see the README of your checkout)

[Service]
Type=simple
ExecStart=%s
Restart=on-failure
RestartSec=2s
# Logs are JSON lines on stderr, kept by the journal: journalctl --user -u logwatch

[Install]
WantedBy=default.target
`, line)
	return b.Bytes()
}

// systemdQuote quotes a word for ExecStart when it needs it (% and $ are
// specifiers and variables there).
func systemdQuote(s string) string {
	s = strings.ReplaceAll(s, "%", "%%")
	s = strings.ReplaceAll(s, "$", "$$")
	if s != "" && !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// launchdPlist restarts the daemon when it exits unsuccessfully
// (KeepAlive.SuccessfulExit=false) and appends its output to
// ~/Library/Logs/logwatch.log.
func launchdPlist(d serviceDef) []byte {
	esc := func(s string) string {
		var b bytes.Buffer
		_ = xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + launchdLabel + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range append([]string{d.bin}, d.args...) {
		fmt.Fprintf(&b, "\t\t<string>%s</string>\n", esc(a))
	}
	b.WriteString("\t</array>\n")
	if len(d.env) > 0 {
		b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
		keys := make([]string, 0, len(d.env))
		for k := range d.env {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "\t\t<key>%s</key>\n\t\t<string>%s</string>\n", esc(k), esc(d.env[k]))
		}
		b.WriteString("\t</dict>\n")
	}
	logFile := esc(filepath.Join(d.home, "Library", "Logs", "logwatch.log"))
	fmt.Fprintf(&b, `	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ThrottleInterval</key>
	<integer>5</integer>
	<key>ProcessType</key>
	<string>Background</string>
	<key>StandardOutPath</key>
	<string>%s</string>
	<key>StandardErrorPath</key>
	<string>%s</string>
</dict>
</plist>
`, logFile, logFile)
	return b.Bytes()
}

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
	def := func() (serviceDef, error) {
		if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
			return serviceDef{}, fmt.Errorf("no service support on %s: run `logwatch run` from your own supervisor", runtime.GOOS)
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return serviceDef{}, err
		}
		d := serviceDef{goos: runtime.GOOS, home: home, args: []string{"run"}}
		if a.cfg.File != "" {
			// An explicitly chosen file must be the service's too; the
			// default one it finds by itself.
			if dir, err := os.UserConfigDir(); err != nil || a.cfg.File != filepath.Join(dir, "logwatch", "config.yaml") {
				f, _ := filepath.Abs(a.cfg.File)
				d.args = append(d.args, "--config", f)
			}
		}
		if d.goos == "darwin" {
			// launchd agents do not get the login shell's TMPDIR-derived
			// socket reliably: pin the one the CLI uses.
			d.env = map[string]string{"LOGWATCH_SOCKET": a.socketPath()}
		}
		return d, nil
	}
	install := &cobra.Command{
		Use:   "install [--dry-run] [--no-enable]",
		Short: "Write the service file, then enable and start the service",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := def()
			if err != nil {
				return withCode(exitUsage, err)
			}
			if d.bin, err = selfbin.Path(bin); err != nil {
				return withCode(exitUsage, err)
			}
			content := d.render()
			if dryRun {
				fmt.Fprintf(a.stdout, "# %s\n", d.path())
				a.stdout.Write(content)
				return nil
			}
			if err := os.MkdirAll(filepath.Dir(d.path()), 0o755); err != nil {
				return withCode(exitUsage, err)
			}
			if d.goos == "darwin" {
				_ = os.MkdirAll(filepath.Join(d.home, "Library", "Logs"), 0o755)
			}
			if err := atomicfile.Write(d.path(), content, 0o644); err != nil {
				return withCode(exitUsage, err)
			}
			fmt.Fprintf(a.stdout, "wrote %s\n", d.path())
			steps := enableSteps(d)
			if noEnable || !serviceManagerUp(d.goos) {
				fmt.Fprintln(a.stdout, "to start it now and at every login, run:")
				for _, s := range steps {
					fmt.Fprintln(a.stdout, "  "+strings.Join(s, " "))
				}
				return nil
			}
			return a.runSteps(steps)
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
				return withCode(exitUsage, err)
			}
			if _, err := os.Stat(d.path()); errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(a.stdout, "%s is not installed; nothing to remove\n", d.path())
				return nil
			}
			if serviceManagerUp(d.goos) {
				// Stopping a unit that is not loaded fails; removal goes on.
				_ = a.runSteps(disableSteps(d))
			}
			if err := os.Remove(d.path()); err != nil {
				return withCode(exitUsage, err)
			}
			if d.goos == "linux" && serviceManagerUp(d.goos) {
				_ = a.runSteps([][]string{{"systemctl", "--user", "daemon-reload"}})
			}
			fmt.Fprintf(a.stdout, "removed %s\n", d.path())
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
				return withCode(exitUsage, err)
			}
			st := serviceState(d)
			fmt.Fprintln(a.stdout, st.text)
			if !st.installed || !st.active {
				return withCode(exitFindings, nil)
			}
			return nil
		},
	}
	cmd.AddCommand(install, uninstall, status)
	return cmd
}

func enableSteps(d serviceDef) [][]string {
	if d.goos == "darwin" {
		return [][]string{{"launchctl", "bootstrap", "gui/" + strconv.Itoa(os.Getuid()), d.path()}}
	}
	return [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", systemdUnitName}}
}

func disableSteps(d serviceDef) [][]string {
	if d.goos == "darwin" {
		return [][]string{{"launchctl", "bootout", "gui/" + strconv.Itoa(os.Getuid()) + "/" + launchdLabel}}
	}
	return [][]string{{"systemctl", "--user", "disable", "--now", systemdUnitName}}
}

// serviceManagerUp reports whether the per-user service manager can be
// talked to (no systemd user session in containers, over plain ssh, …).
func serviceManagerUp(goos string) bool {
	if goos == "darwin" {
		_, err := exec.LookPath("launchctl")
		return err == nil
	}
	if _, err := exec.LookPath("systemctl"); err != nil {
		return false
	}
	return exec.Command("systemctl", "--user", "show-environment").Run() == nil
}

func (a *app) runSteps(steps [][]string) error {
	for _, s := range steps {
		out, err := exec.Command(s[0], s[1:]...).CombinedOutput()
		if err != nil {
			return withCode(exitFindings, fmt.Errorf("%s: %v\n%s", strings.Join(s, " "), err, bytes.TrimSpace(out)))
		}
		fmt.Fprintf(a.stdout, "ran: %s\n", strings.Join(s, " "))
	}
	return nil
}

type svcState struct {
	installed, active bool
	text              string
}

// serviceState asks the service manager about the service; without one it
// can only say whether the file is there.
func serviceState(d serviceDef) svcState {
	var st svcState
	if _, err := os.Stat(d.path()); err != nil {
		st.text = "not installed (" + d.path() + " is absent): logwatch service install"
		return st
	}
	st.installed = true
	if !serviceManagerUp(d.goos) {
		st.text = "installed (" + d.path() + "); the user service manager is not reachable from here, so whether it runs is unknown"
		return st
	}
	var out []byte
	if d.goos == "darwin" {
		out, _ = exec.Command("launchctl", "print", "gui/"+strconv.Itoa(os.Getuid())+"/"+launchdLabel).CombinedOutput()
		st.active = bytes.Contains(out, []byte("state = running"))
	} else {
		out, _ = exec.Command("systemctl", "--user", "is-active", systemdUnitName).Output()
		st.active = strings.TrimSpace(string(out)) == "active"
	}
	if st.active {
		st.text = "installed (" + d.path() + ") and running"
	} else {
		st.text = "installed (" + d.path() + ") but not running: " + strings.Join(enableSteps(d)[len(enableSteps(d))-1], " ")
	}
	return st
}
