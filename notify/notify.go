// Package notify tells the person (SPEC §13): it follows the relay's
// changes, decides which of them deserve an alert (waiting always; a done
// turn when asked for, once it really ended), and hands each alert to the
// configured sinks: the desktop, a command, a webhook. A sink shows one
// alert per session, replaced by the session's next and withdrawn the
// moment the session moves on, so no alert is ever stale.
package notify

import (
	"context"
	"time"
)

// Alert is what a sink shows of one session.
type Alert struct {
	// Key names the session across hosts (KeyOf: the session id here, the
	// host, a NUL and the id for a remote's): a sink keeps one alert per
	// Key, replaced by the next Show. Stable across restarts, so a sink
	// that can find an alert by it (ntfy's sequence id) withdraws one a
	// previous daemon showed.
	Key     string
	Host    string
	Session string
	Agent   string
	Title   string
	State   string // waiting or done
	Reason  string
	Detail  string
	Tab     string
	Cwd     string
	Since   time.Time
	Seq     uint64
}

// Sink shows and withdraws alerts. Show replaces the alert the sink shows
// for a.Key, if any; Withdraw removes it (a no-op when there is none). The
// notifier calls a sink from one goroutine of its own, with a deadline in
// ctx: a sink that hangs or fails never slows the daemon or another sink.
type Sink interface {
	Name() string
	Show(ctx context.Context, a Alert) error
	Withdraw(ctx context.Context, a Alert) error
}
