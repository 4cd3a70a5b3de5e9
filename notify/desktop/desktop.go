// Package desktop is the notifier's desktop sink: on Linux (and the BSDs)
// the freedesktop notification service over D-Bus, on macOS osascript's
// display notification. Over D-Bus a session's alert replaces its previous
// one (replaces_id) and is withdrawn (CloseNotification) the moment the
// session moves on; osascript can do neither, so on macOS an alert stays
// until Notification Center lets it go.
//
// Everything shown comes from agents' logs and hooks, so it is made inert
// first: control characters neutralised, invalid UTF-8 replaced, lengths
// bounded, and markup escaped where the server would read it.
package desktop

import (
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/logwatch/logwatch/notify"
	"github.com/logwatch/logwatch/relay/session"
)

// AppName is the app_name the server shows and files alerts under.
const AppName = "logwatch"

// Bounds on what one alert shows (runes): enough for a title and a
// 200-character reason plus detail (SPEC §6), never a screenful.
const (
	maxSummary = 120
	maxBody    = 480
)

// DefaultMaxAlerts bounds the sessions whose alert the sink remembers.
const DefaultMaxAlerts = 1024

// Config is the desktop sink's part of the notify configuration.
type Config struct {
	// Address is the D-Bus address of the session bus; empty takes
	// DBUS_SESSION_BUS_ADDRESS, then $XDG_RUNTIME_DIR/bus. Unused on macOS.
	Address string
	// MaxAlerts bounds the session → notification map; 0 means
	// DefaultMaxAlerts. Past it the oldest session's alert is closed.
	MaxAlerts int
	// Activated, when set, is called with the alert the person clicked
	// (the server's default action), e.g. to jump to its session. It runs
	// on the sink's signal goroutine and must not block. Unused on macOS.
	Activated func(notify.Alert)
}

func (c Config) maxAlerts() int {
	if c.MaxAlerts > 0 {
		return c.MaxAlerts
	}
	return DefaultMaxAlerts
}

// summary is the alert's one line: whose session and what it wants, e.g.
// "fix the flaky test — needs your permission", or "claude · api — done"
// when the session has no title; a remote session names its host.
func summary(a notify.Alert) string {
	name := clean(a.Title, false)
	if name == "" {
		var parts []string
		if ag := clean(a.Agent, false); ag != "" {
			parts = append(parts, ag)
		}
		if a.Cwd != "" {
			if p := clean(filepath.Base(a.Cwd), false); p != "" && p != "." && p != "/" {
				parts = append(parts, p)
			}
		}
		name = strings.Join(parts, " · ")
	}
	if name == "" {
		name = "session"
	}
	if h := clean(a.Host, false); h != "" {
		name = h + ": " + name
	}
	what := phrase(a)
	// What the session wants is kept whole: a long title is cut, never
	// the words that say why the alert is there.
	return truncate(name, maxSummary-utf8.RuneCountInString(what)-3) + " — " + what
}

// phrase says the state and its reason in words.
func phrase(a notify.Alert) string {
	switch {
	case a.State == string(session.Waiting) && a.Reason == session.ReasonPermission:
		return "needs your permission"
	case a.State == string(session.Waiting) && a.Reason == session.ReasonQuestion:
		return "has a question"
	case a.State == string(session.Done) && a.Reason == session.ReasonError:
		return "ended with an error"
	}
	if st := clean(a.State, false); st != "" {
		return truncate(st, 20)
	}
	return "waiting"
}

// body is the alert's text: the detail (Claude's message, the command
// asked about, the file the turn ended on), and a reason the summary's
// words do not cover. markup says the server reads body markup, so & < >
// are escaped to stay text.
func body(a notify.Alert, markup bool) string {
	var lines []string
	if r := clean(a.Reason, false); r != "" && !known(a.Reason) {
		lines = append(lines, r)
	}
	if d := clean(a.Detail, true); d != "" {
		lines = append(lines, d)
	}
	b := truncate(strings.Join(lines, "\n"), maxBody)
	if markup {
		b = escapeMarkup(b)
	}
	return b
}

// known says the summary's words already carry reason.
func known(reason string) bool {
	switch reason {
	case session.ReasonPermission, session.ReasonQuestion, session.ReasonError, session.ReasonTurnEnd:
		return true
	}
	return false
}

// clean makes log text inert for a notification: invalid UTF-8 replaced
// (D-Bus refuses a message carrying it), control and format characters
// (ESC, bidi overrides, NUL) turned into spaces, runs of space collapsed,
// line breaks kept only where multiline allows them.
func clean(s string, multiline bool) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r == '\n' && multiline {
			b.WriteRune('\n')
			space = false
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		b.WriteRune(r)
		space = false
	}
	lines := strings.Split(b.String(), "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// truncate cuts s to at most n runes, marking the cut with an ellipsis.
func truncate(s string, n int) string {
	if n < 1 {
		n = 1
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// escapeMarkup escapes the characters the notification spec's body markup
// reads, so text from a log can never open a tag or an entity.
var markupEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escapeMarkup(s string) string { return markupEscaper.Replace(s) }

// osascriptArgs is the macOS command: a fixed script whose run handler takes
// the texts as arguments, so nothing from a log is ever read as AppleScript.
// "--" ends osascript's options, so a text starting with "-" stays a text.
func osascriptArgs(summary, body string) []string {
	return []string{
		"-e", "on run argv",
		"-e", "display notification (item 2 of argv) with title (item 1 of argv)",
		"-e", "end run",
		"--", summary, body,
	}
}
