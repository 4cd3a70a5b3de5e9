package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/notify"
	"github.com/logwatch/logwatch/notify/command"
	"github.com/logwatch/logwatch/notify/desktop"
	"github.com/logwatch/logwatch/notify/webhook"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/session"
	"github.com/logwatch/logwatch/setup/doctor"
	"github.com/logwatch/logwatch/tmux"
)

// desktopSink is the desktop sink as doctor probes it: which
// notification server answers, and whether it does.
type desktopSink struct{ *desktop.Sink }

func (d desktopSink) Probe(ctx context.Context) (string, error) {
	server, _, err := d.Sink.Probe(ctx)
	return server, err
}

// buildSink makes one configured sink; clicked (nil: none) is what a click
// on a desktop alert does.
func buildSink(s config.SinkConfig, log zerolog.Logger, clicked func(notify.Alert)) (notify.Sink, error) {
	switch s.Type {
	case config.SinkDesktop:
		return desktopSink{desktop.New(desktop.Config{Activated: clicked}, log)}, nil
	case config.SinkCommand:
		argv := make([]string, len(s.Command))
		copy(argv, s.Command)
		argv[0] = config.ExpandPath(argv[0])
		return command.New(argv, s.Withdraw)
	case config.SinkWebhook:
		tok, err := webhook.Token(s.TokenEnv, config.ExpandPath(s.TokenFile))
		if err != nil {
			return nil, err
		}
		return webhook.New(webhook.Config{URL: s.URL, Format: s.Format, Token: tok, Click: s.Click})
	}
	return nil, fmt.Errorf("sink type %q", s.Type)
}

// buildSinks makes every configured sink; one that cannot be made is
// returned as an error beside the others (the daemon logs it and runs
// without it: its states matter more than an alert).
func buildSinks(cfg config.NotifyConfig, log zerolog.Logger, clicked func(notify.Alert)) ([]notify.Sink, []error) {
	var sinks []notify.Sink
	var errs []error
	for i, s := range cfg.Sinks {
		sink, err := buildSink(s, log, clicked)
		if err != nil {
			errs = append(errs, fmt.Errorf("notify.sinks[%d] (%s): %w", i, s.Type, err))
			continue
		}
		sinks = append(sinks, sink)
	}
	return sinks, errs
}

// newNotifier is the daemon's notifier, or nil when no sink is configured
// (or none could be made). A click on a desktop alert goes to r's session.
func (a *app) newNotifier(r *relay.Relay) *notify.Notifier {
	sinks, errs := buildSinks(a.cfg.Notify, a.log, a.clicked(r))
	for _, err := range errs {
		a.log.Error().Err(err).Str("component", "notify").Msg("sink not started (logwatch doctor says how to fix it)")
	}
	if len(sinks) == 0 {
		return nil
	}
	return notify.New(notify.Rules{Done: a.cfg.Notify.Done, Rate: a.cfg.Notify.Rate}, sinks,
		notify.Options{MarksFile: notify.MarksFile(a.cfg.Checkpoint), Timeout: a.cfg.Notify.Timeout}, a.log)
}

func newNotifyCmd(a *app, configFile *string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notify install|test",
		Short: "The daemon's own alerts: a wait (and, if asked, a finished turn) on the desktop, a command or a webhook",
		Long: `The daemon alerts when a session waits for you (with its reason and title),
replaces the alert with the session's next and withdraws it the moment the
session moves on. Off until a sink is configured under notify: in config.yaml
(docs/notify.md).`,
	}
	var desktop, dryRun, withdraw bool
	var argv []string
	var ntfy, hook, tokenEnv, tokenFile string
	install := &cobra.Command{
		Use:   "install (--desktop | --command ARG... | --ntfy URL | --webhook URL) [--dry-run]",
		Short: "Add a sink to the configuration file (the daemon takes it at its next start)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var s config.SinkConfig
			n := 0
			if desktop {
				n++
				s = config.SinkConfig{Type: config.SinkDesktop}
			}
			if len(argv) > 0 {
				n++
				s = config.SinkConfig{Type: config.SinkCommand, Command: argv, Withdraw: withdraw}
			}
			if ntfy != "" {
				n++
				s = config.SinkConfig{Type: config.SinkWebhook, URL: ntfy, Format: webhook.FormatNtfy, TokenEnv: tokenEnv, TokenFile: tokenFile}
			}
			if hook != "" {
				n++
				s = config.SinkConfig{Type: config.SinkWebhook, URL: hook, Format: webhook.FormatJSON, TokenEnv: tokenEnv, TokenFile: tokenFile}
			}
			if n != 1 {
				return withCode(exitUsage, errors.New("name one sink: --desktop, --command ARG..., --ntfy URL or --webhook URL"))
			}
			if err := config.CheckSink(s); err != nil {
				return withCode(exitUsage, err)
			}
			file, err := a.configFileToEdit(*configFile)
			if err != nil {
				return withCode(exitUsage, err)
			}
			what := termsafe.Text(config.MaskURL(sinkLine(s)))
			if dryRun {
				fmt.Fprintf(a.stdout, "would add %s to %s\n", what, termsafe.Text(file))
				return nil
			}
			if err := config.AddSink(file, s); err != nil {
				return withCode(exitUsage, err)
			}
			fmt.Fprintf(a.stdout, "%s added to %s; restart the daemon to take it (logwatch notify test sends a test alert, logwatch doctor checks it)\n",
				what, termsafe.Text(file))
			return nil
		},
	}
	install.Flags().BoolVar(&desktop, "desktop", false, "alert on the desktop (its notification service)")
	install.Flags().StringArrayVar(&argv, "command", nil, "run this command (repeat for each argument: --command paplay --command bell.oga)")
	install.Flags().BoolVar(&withdraw, "withdraw", false, "with --command: run it when an alert is withdrawn too")
	install.Flags().StringVar(&ntfy, "ntfy", "", "publish to this ntfy topic `URL` (https://ntfy.sh/your-secret-topic)")
	install.Flags().StringVar(&hook, "webhook", "", "POST each alert as JSON to this `URL`")
	install.Flags().StringVar(&tokenEnv, "token-env", "", "with --ntfy or --webhook: the bearer token's environment variable")
	install.Flags().StringVar(&tokenFile, "token-file", "", "with --ntfy or --webhook: the file holding the bearer token")
	install.Flags().BoolVar(&dryRun, "dry-run", false, "say what would be added, change nothing")
	var timeout time.Duration
	test := &cobra.Command{
		Use:   "test",
		Short: "Send a test alert through every configured sink, now, and say what each did",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(a.cfg.Notify.Sinks) == 0 {
				fmt.Fprintln(a.stdout, "no sink configured (logwatch notify install --desktop | --command ... | --ntfy URL)")
				return withCode(exitFindings, nil)
			}
			failed := false
			for i, s := range a.cfg.Notify.Sinks {
				sink, err := buildSink(s, zerolog.Nop(), nil)
				if err == nil {
					err = notify.Test(cmd.Context(), []notify.Sink{sink}, timeout)[sink.Name()]
				}
				line := termsafe.Text(config.MaskURL(sinkLine(s)))
				if err != nil {
					failed = true
					fmt.Fprintf(a.stdout, "sinks[%d] %s: %s\n", i, line, termsafe.Text(config.MaskURL(err.Error())))
					continue
				}
				fmt.Fprintf(a.stdout, "sinks[%d] %s: sent\n", i, line)
			}
			if failed {
				return withCode(exitFindings, nil)
			}
			return nil
		},
	}
	test.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "bound of each sink's call")
	cmd.AddCommand(install, test)
	return cmd
}

// clicked is what a click on a session's desktop alert does: it takes
// the person to the session, as `logwatch next` does (the tmux pane `logwatch
// wrap` runs it in), and a finished turn clicked is seen, acknowledged as
// entering its pane acknowledges it. It runs aside from the sink's signal
// reader, one click at a time: a click while one is handled is dropped.
func (a *app) clicked(r *relay.Relay) func(notify.Alert) {
	log := a.log.With().Str("component", "notify-click").Logger()
	var busy atomic.Bool
	return func(al notify.Alert) {
		if !busy.CompareAndSwap(false, true) {
			return
		}
		go func() {
			defer busy.Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if al.Host == "" { // a remote's tab is a pane of another machine
				if err := tmux.Jump(ctx, al.Tab); err != nil {
					log.Info().Err(err).Str("session", al.Session).Str("tab", al.Tab).Msg("clicked alert: no pane to show")
				}
			}
			if al.State == string(session.Done) {
				if err := r.AckHost(ctx, al.Host, al.Session); err != nil {
					log.Warn().Err(err).Str("session", al.Session).Msg("clicked alert: not acknowledged")
				}
			}
		}()
	}
}

func sinkLine(s config.SinkConfig) string {
	switch s.Type {
	case config.SinkCommand:
		return fmt.Sprintf("command %q", s.Command)
	case config.SinkWebhook:
		f := s.Format
		if f == "" {
			f = webhook.FormatNtfy
		}
		return "webhook (" + f + ") " + s.URL
	}
	return s.Type
}

// sinkProber builds a configured sink for doctor's probe.
func sinkProber(s config.SinkConfig) (doctor.Prober, error) {
	sink, err := buildSink(s, zerolog.Nop(), nil)
	if err != nil {
		return nil, err
	}
	p, ok := sink.(doctor.Prober)
	if !ok {
		return nil, fmt.Errorf("the %s sink cannot be checked without alerting (logwatch notify test sends a test alert)", s.Type)
	}
	return p, nil
}
