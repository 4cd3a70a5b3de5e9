// Command logwatch tells, for every AI coding agent session on the machine,
// what it is doing right now: it tails the agents' logs, receives their
// hooks and reconciles both into one state per session.
//
// This package only wires: one file per verb or group of verbs parses the
// flags, reads the configuration once, calls the packages that implement
// (internal/, setup/, pipeline/, relay/ and below; the README's Layout maps
// them) and turns their errors into exit codes.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/statusview"
	"github.com/logwatch/logwatch/internal/termsafe"
)

// version is set at build time with -ldflags "-X main.version=…"; when it
// is not, `logwatch version` reports the module version Go embedded.
var version = "dev"

// Exit codes.
const (
	exitOK       = 0
	exitFindings = 1 // the command ran and found problems (verify mismatches)
	exitUsage    = 2 // bad usage, bad configuration, unreadable input
)

// exitError carries an exit code from a command to main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// app is what every command gets: the configuration, read once, a logger,
// and the streams to write to.
type app struct {
	cfg    config.Config
	cfgErr error // why the configuration file was not used (doctor only)
	log    zerolog.Logger
	stdout io.Writer
	stderr io.Writer
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "hook" && !hookHelp(os.Args[2:]) {
		// The hook client runs outside cobra: it must exit 0 and print
		// nothing whatever happens, and start fast.
		os.Exit(runHook(os.Args[2:], os.Stdin))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr, log: zerolog.Nop()}
	root := newRoot(a)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	// Errors quote ids, paths and names from files and payloads: escaped
	// (SPEC §12), their own line breaks kept.
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, "logwatch:", termsafe.Text(ee.err.Error()))
		}
		return ee.code
	}
	// Cobra's own errors (unknown flag, wrong arguments) are usage errors.
	fmt.Fprintln(stderr, "logwatch:", termsafe.Text(err.Error()))
	return exitUsage
}

func newRoot(a *app) *cobra.Command {
	var configFile string
	root := &cobra.Command{
		Use:           "logwatch",
		Short:         "Live state of every AI coding agent session on this machine",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(configFile, cmd.Flags())
			if err != nil && cmd.Name() == "doctor" {
				// doctor reports it as a finding and checks the rest on
				// the defaults.
				a.cfgErr = err
				cfg, _ = config.Defaults(cmd.Flags())
			} else if err != nil {
				return withCode(exitUsage, err)
			}
			a.cfg = cfg
			a.log = newLogger(a.stderr, cfg.Log)
			return nil
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&configFile, "config", "", "configuration file (default $LOGWATCH_CONFIG, then ~/.config/logwatch/config.yaml)")
	pf.String("log-level", "info", "log level: trace, debug, info, warn, error")
	pf.String("log-format", "auto", "log format: auto, console, json")
	pf.String("socket", "", "daemon socket (default $XDG_RUNTIME_DIR/logwatch/logwatch.sock)")
	root.AddCommand(newVerifyCmd(a), newHookCmd(), newKeyCmd(a, nil), newAckCmd(a, nil), newTabClosedCmd(a, nil),
		newStatusCmd(a, nil), newEventsCmd(a, nil), newRunCmd(a), newWrapCmd(a, &configFile), newHooksCmd(a),
		newServiceCmd(a), newConfigCmd(a, &configFile), newDoctorCmd(a), newReplayCmd(a), newVersionCmd(a),
		newSelftestCmd(a), newTryCmd(a, &configFile), newRemoteCmd(a, &configFile), newNotifyCmd(a, &configFile),
		newTmuxCmd(a), newNextCmd(a), newManCmd(root))
	// --version prints what `logwatch version` does.
	root.SetVersionTemplate(readBuildVersion().text())
	return root
}

// newLogger logs as text on a terminal and as JSON lines otherwise.
func newLogger(w io.Writer, c config.LogConfig) zerolog.Logger {
	level, err := zerolog.ParseLevel(c.Level)
	if err != nil || c.Level == "" {
		level = zerolog.InfoLevel
	}
	console := c.Format == "console"
	if c.Format == "auto" {
		if f, ok := w.(*os.File); ok {
			console = isatty.IsTerminal(f.Fd())
		}
	}
	// Timestamps to the millisecond (the default format stops at the
	// second: the console showed .000), durations with their unit
	// (retry_in=4s, not 4000).
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00"
	zerolog.DurationFieldFormat = zerolog.DurationFormatString
	if console {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: "15:04:05.000", NoColor: !statusview.ColorOn(w)}
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger()
}
