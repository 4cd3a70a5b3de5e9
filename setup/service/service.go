// Package service is the daemon as a per-user service: the systemd user
// unit or launchd agent it is rendered to, where that file goes, and the
// service manager's steps to enable, disable and ask about it.
package service

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/logwatch/logwatch/internal/atomicfile"
)

// A systemd user unit on Linux (logs to the journal), a launchd agent on
// macOS (logs to ~/Library/Logs).
const (
	systemdUnitName = "logwatch.service"
	launchdLabel    = "dev.logwatch"
)

// Def is everything the service files are rendered from.
type Def struct {
	GOOS string
	Bin  string
	Args []string // after the binary: "run" and any --config
	Home string
	Env  map[string]string // launchd only: systemd user units inherit the session's
}

// For is the service of this machine's OS that runs `logwatch run`, with
// the configuration file that was read (cfgFile, "" for none) and the
// socket the CLI uses; Bin is left for the caller.
func For(cfgFile, socket string) (Def, error) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		return Def{}, fmt.Errorf("no service support on %s: run `logwatch run` from your own supervisor", runtime.GOOS)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return Def{}, err
	}
	d := Def{GOOS: runtime.GOOS, Home: home, Args: []string{"run"}}
	if cfgFile != "" {
		// An explicitly chosen file must be the service's too; the
		// default one it finds by itself.
		if dir, err := os.UserConfigDir(); err != nil || cfgFile != filepath.Join(dir, "logwatch", "config.yaml") {
			f, _ := filepath.Abs(cfgFile)
			d.Args = append(d.Args, "--config", f)
		}
	}
	if d.GOOS == "darwin" {
		// launchd agents do not get the login shell's TMPDIR-derived
		// socket reliably: pin the one the CLI uses.
		d.Env = map[string]string{"LOGWATCH_SOCKET": socket}
	}
	return d, nil
}

// Path is where the service file goes.
func (d Def) Path() string {
	if d.GOOS == "darwin" {
		return filepath.Join(d.Home, "Library", "LaunchAgents", launchdLabel+".plist")
	}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if cfg == "" {
		cfg = filepath.Join(d.Home, ".config")
	}
	return filepath.Join(cfg, "systemd", "user", systemdUnitName)
}

// Render is the service file.
func (d Def) Render() []byte {
	if d.GOOS == "darwin" {
		return launchdPlist(d)
	}
	return systemdUnit(d)
}

// systemdUnit restarts the daemon when it fails (not when it is stopped);
// its stderr goes to the journal (`journalctl --user -u logwatch`).
func systemdUnit(d Def) []byte {
	var b bytes.Buffer
	line := systemdQuote(d.Bin)
	for _, a := range d.Args {
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
func launchdPlist(d Def) []byte {
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
	for _, a := range append([]string{d.Bin}, d.Args...) {
		fmt.Fprintf(&b, "\t\t<string>%s</string>\n", esc(a))
	}
	b.WriteString("\t</array>\n")
	if len(d.Env) > 0 {
		b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
		keys := make([]string, 0, len(d.Env))
		for k := range d.Env {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "\t\t<key>%s</key>\n\t\t<string>%s</string>\n", esc(k), esc(d.Env[k]))
		}
		b.WriteString("\t</dict>\n")
	}
	logFile := esc(filepath.Join(d.Home, "Library", "Logs", "logwatch.log"))
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

// EnableSteps are the commands that start the service now and at every
// login.
func EnableSteps(d Def) [][]string {
	if d.GOOS == "darwin" {
		return [][]string{{"launchctl", "bootstrap", "gui/" + strconv.Itoa(os.Getuid()), d.Path()}}
	}
	return [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", systemdUnitName}}
}

// DisableSteps are the commands that stop and disable the service.
func DisableSteps(d Def) [][]string {
	if d.GOOS == "darwin" {
		return [][]string{{"launchctl", "bootout", "gui/" + strconv.Itoa(os.Getuid()) + "/" + launchdLabel}}
	}
	return [][]string{{"systemctl", "--user", "disable", "--now", systemdUnitName}}
}

// ManagerUp reports whether the per-user service manager can be
// talked to (no systemd user session in containers, over plain ssh, …).
func ManagerUp(goos string) bool {
	if goos == "darwin" {
		_, err := exec.LookPath("launchctl")
		return err == nil
	}
	if _, err := exec.LookPath("systemctl"); err != nil {
		return false
	}
	return exec.Command("systemctl", "--user", "show-environment").Run() == nil
}

// NoManager says why the service was not started, with what to do: no
// per-user service manager answers (a container, or a box reached only by
// ssh, where systemd runs a user's manager only during a login session
// unless lingering is on).
func NoManager(goos string) string {
	if goos == "darwin" {
		return "launchctl is not on the PATH: the service was written but not loaded"
	}
	if _, err := exec.LookPath("systemctl"); err != nil {
		return "no systemd here (systemctl is not on the PATH): the unit was written but nothing runs it; start `logwatch run` another way (a terminal multiplexer, your init system)"
	}
	return "no systemd user manager answers (systemctl --user): on a machine reached only by ssh, " +
		"run `loginctl enable-linger $USER` once (sudo may be needed) so your manager runs without a login, then log in again"
}

// Status is what the service manager says of the service.
type Status struct {
	Installed, Active bool
	Text              string
}

// State asks the service manager about the service; without one it
// can only say whether the file is there.
func State(d Def) Status {
	var st Status
	if _, err := os.Stat(d.Path()); err != nil {
		st.Text = "not installed (" + d.Path() + " is absent): logwatch service install"
		return st
	}
	st.Installed = true
	if !ManagerUp(d.GOOS) {
		st.Text = "installed (" + d.Path() + "); the user service manager is not reachable from here, so whether it runs is unknown"
		return st
	}
	var out []byte
	if d.GOOS == "darwin" {
		out, _ = exec.Command("launchctl", "print", "gui/"+strconv.Itoa(os.Getuid())+"/"+launchdLabel).CombinedOutput()
		st.Active = bytes.Contains(out, []byte("state = running"))
	} else {
		out, _ = exec.Command("systemctl", "--user", "is-active", systemdUnitName).Output()
		st.Active = strings.TrimSpace(string(out)) == "active"
	}
	if st.Active {
		st.Text = "installed (" + d.Path() + ") and running"
	} else {
		st.Text = "installed (" + d.Path() + ") but not running: " + strings.Join(EnableSteps(d)[len(EnableSteps(d))-1], " ")
	}
	return st
}

// Install writes the service file (and, for launchd, the log directory).
func Install(d Def) error {
	if err := os.MkdirAll(filepath.Dir(d.Path()), 0o755); err != nil {
		return err
	}
	if d.GOOS == "darwin" {
		_ = os.MkdirAll(filepath.Join(d.Home, "Library", "Logs"), 0o755)
	}
	return atomicfile.Write(d.Path(), d.Render(), 0o644)
}

// RunSteps runs the service manager's commands in order, naming each on w;
// the first that fails stops it, with its output.
func RunSteps(w io.Writer, steps [][]string) error {
	for _, s := range steps {
		out, err := exec.Command(s[0], s[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(s, " "), err, bytes.TrimSpace(out))
		}
		fmt.Fprintf(w, "ran: %s\n", strings.Join(s, " "))
	}
	return nil
}
