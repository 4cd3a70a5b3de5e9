//go:build darwin

package desktop

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/notify"
)

// Sink shows alerts through osascript's display notification. Notification
// Center gives a script no handle on what it showed: an alert can be neither
// replaced nor withdrawn, so Withdraw does nothing and a waiting alert stays
// in Notification Center after the session moved on.
type Sink struct {
	log zerolog.Logger
}

// New returns the desktop sink; cfg's D-Bus settings do not apply here.
func New(_ Config, log zerolog.Logger) *Sink {
	return &Sink{log: log.With().Str("component", "notify-desktop").Logger()}
}

// Name is the sink's name in logs and doctor.
func (s *Sink) Name() string { return "desktop" }

// Show runs osascript with a's texts as arguments, within ctx.
func (s *Sink) Show(ctx context.Context, a notify.Alert) error {
	// Notification Center shows plain text: nothing to escape.
	out, err := exec.CommandContext(ctx, "osascript", osascriptArgs(summary(a), body(a, false))...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("desktop: osascript: %w: %s", err, truncate(clean(string(out), false), 200))
	}
	return nil
}

// Withdraw cannot take back what osascript showed.
func (s *Sink) Withdraw(context.Context, notify.Alert) error { return nil }

// Probe says which tool shows the alerts; Notification Center has no
// capabilities to ask for.
func (s *Sink) Probe(ctx context.Context) (server string, caps []string, err error) {
	p, err := exec.LookPath("osascript")
	if err != nil {
		return "", nil, fmt.Errorf("desktop: probe: %w", err)
	}
	return "osascript (" + p + ")", nil, ctx.Err()
}

// Close has nothing to release.
func (s *Sink) Close() error { return nil }

var _ notify.Sink = (*Sink)(nil)
