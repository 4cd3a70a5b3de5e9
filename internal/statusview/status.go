// Package statusview renders the daemon's state for people: the `status`
// table, the `status --watch` live view, the `events` lines, and the short
// session ids they show (which `ack --session` resolves back). It takes the
// relay's status and change stream and a writer, and knows nothing of flags
// or exit codes. Every string from the daemon is written through
// termsafe.Line: ids, paths, tabs and commands come from files and
// payloads, and must not reach the terminal as escape sequences.
package statusview

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/relay/wire"
)

// StatusWidth is the width the status text fits in.
const StatusWidth = 80

// WriteStatus prints sessions, most urgent first, then the counters, in
// StatusWidth columns; all includes the history Shown leaves out, color
// paints the states. A session is two lines: what it is (state, agent,
// short id, tab, process, age, title), then where it runs and why it is in
// its state.
func WriteStatus(w io.Writer, st wire.Status, all bool, now time.Time, color bool) {
	sessions := st.Sessions
	sort.SliceStable(sessions, func(i, j int) bool { return sessions[i].Since.After(sessions[j].Since) })
	ids := make([]string, len(sessions))
	for i, s := range sessions {
		ids[i] = s.Session
	}
	shortID := ShortIDs(ids)
	if len(sessions) == 0 {
		WriteNoSession(w, st.Roots)
	}
	var shown []wire.Event
	hidden := 0
	for _, s := range sessions {
		if !all && !Shown(s, now) {
			hidden++
			continue
		}
		shown = append(shown, s)
	}
	// Column widths: the widest cell, capped; the title takes the rest.
	head := []string{"STATE", "AGENT", "SESSION", "TAB", "PROCESS", "AGE"}
	caps := []int{11, 8, 14, 8, 7, 4}
	rows := make([][]string, len(shown))
	widths := make([]int, len(head))
	for i, h := range head {
		widths[i] = runeLen(h)
	}
	for i, s := range shown {
		// Every cell from the daemon is escaped: a tab or newline in one
		// would also make a column or a line of its own.
		rows[i] = []string{StateText(s), s.Agent, shortID[s.Session], orDash(s.Tab), process(s), shortAge(now.Sub(s.Since))}
		for j, c := range rows[i] {
			widths[j] = max(widths[j], min(caps[j], runeLen(cell(c))))
		}
	}
	titleW := StatusWidth
	for _, wd := range widths {
		titleW -= wd + 2
	}
	if len(shown) > 0 {
		fmt.Fprintln(w, strings.TrimRight(columns(head, widths, nil, false)+"TITLE", " "))
	}
	for i, s := range shown {
		fmt.Fprintln(w, strings.TrimRight(columns(rows[i], widths, &s, color)+fit(orDash(s.Title), titleW), " "))
		var why []string
		for _, c := range []string{whereOf(s), s.Reason, s.Detail} {
			if c = cell(c); c != "" {
				why = append(why, c)
			}
		}
		if len(why) > 0 {
			fmt.Fprintln(w, "  "+fit(strings.Join(why, " · "), StatusWidth-2))
		}
	}
	if hidden > 0 {
		wrapTo(w, fmt.Sprintf("(%d sessions of the history not shown: no live process, no change in the last %s; --all shows them)",
			hidden, shortAge(RecentChange)), "")
	}
	if len(st.Remotes) > 0 {
		fmt.Fprintln(w)
		for _, r := range st.Remotes {
			wrapTo(w, fmt.Sprintf("remote %s (%s): %s", termsafe.Line(r.Name), termsafe.Line(r.Dest), termsafe.Line(RemoteLine(r, now))), "  ")
		}
	}
	c := st.Counters
	fmt.Fprintln(w)
	items := []string{fmt.Sprintf("hooks %d received", c.HooksReceived), fmt.Sprintf("lines %d", c.Lines), fmt.Sprintf("keys %d", c.Keys),
		fmt.Sprintf("requests %d/%d", c.Conns, c.ConnsMax), fmt.Sprintf("subscribers %d/%d", c.Subscribers, c.SubscribersMax)}
	if c.Focused > 0 {
		items = append(items, fmt.Sprintf("focus held by %d", c.Focused))
	}
	line := items[0]
	for _, it := range items[1:] { // broken between items, never inside one
		if runeLen(line)+len(" · ")+runeLen(it) > StatusWidth {
			fmt.Fprintln(w, line)
			line = "  " + it
			continue
		}
		line += " · " + it
	}
	fmt.Fprintln(w, line)
	// The rest only when it is not zero: each is something to look into.
	var odd []string
	for _, n := range []struct {
		n    int64
		what string
	}{
		{c.HooksDropped, "hooks dropped"}, {c.HooksUnknown, "unknown hooks"}, {c.Malformed, "malformed lines"},
		{c.Oversized, "oversized lines"}, {c.InterruptCandidates, "interrupt candidates"}, {c.InterruptsConfirmed, "confirmed"},
		{c.InterruptsUnconfirmed, "unconfirmed"}, {c.BadRequests, "bad requests"},
		{c.ConnsEvicted, "idle connections evicted"}, {c.ConnsRefused, "connections refused"}, {c.AcceptErrors, "accept errors"},
		{c.SubscriberResyncs, "subscriber resyncs"}, {c.HTTPRefused, "http requests refused (foreign Host or Origin, no secret, not JSON)"},
		{c.TranscriptsRefused, "transcript paths outside the log roots"},
	} {
		if n.n > 0 {
			odd = append(odd, fmt.Sprintf("%d %s", n.n, n.what))
		}
	}
	if c.InterruptCandidates > 0 {
		odd = append(odd, fmt.Sprintf("key→marker last %d ms, max %d ms", c.KeyToMarkerLastMs, c.KeyToMarkerMaxMs))
	}
	if len(odd) > 0 {
		wrapTo(w, "also: "+strings.Join(odd, ", ")+" (status --json has every counter)", "  ")
	}
	for _, s := range st.Notify {
		wrapTo(w, SinkLine(s, now), "  ")
	}
}

// SinkLine is one notification sink's totals since the daemon started, and
// its last error: whether the person's alerts went out, and if not why.
func SinkLine(s wire.SinkStats, now time.Time) string {
	line := fmt.Sprintf("notify %s: %d shown, %d withdrawn", termsafe.Line(s.Name), s.Shown, s.Withdrawn)
	for _, n := range []struct {
		n    int64
		what string
	}{{s.Failed, "failed"}, {s.Dropped, "dropped (queue full)"}, {s.Replaced, "replaced"}, {s.Cancelled, "cancelled"}} {
		if n.n > 0 {
			line += fmt.Sprintf(", %d %s", n.n, n.what)
		}
	}
	if s.LastError != "" && s.LastErrorAt != nil {
		line += fmt.Sprintf("; last error %s ago: %s", shortAge(now.Sub(*s.LastErrorAt)), termsafe.Line(s.LastError))
	}
	return line
}

// columns pads cells to widths, two spaces apart; the first (the state)
// painted in its colour when s is given and color is on.
func columns(cells []string, widths []int, s *wire.Event, color bool) string {
	var b strings.Builder
	for i, c := range cells {
		c = fit(c, widths[i])
		pad := strings.Repeat(" ", widths[i]-runeLen(c)+2)
		if i == 0 && s != nil {
			c = Paint(color, stateColor[s.State], c)
		}
		b.WriteString(c + pad)
	}
	return b.String()
}

// wrapTo writes s wrapped to StatusWidth, its next lines after indent.
func wrapTo(w io.Writer, s, indent string) {
	for i, line := range Wrap(s, StatusWidth-runeLen(indent)) {
		if i > 0 {
			line = indent + line
		}
		fmt.Fprintln(w, line)
	}
}

// WriteNoSession says that no session was found and where logwatch looks.
func WriteNoSession(w io.Writer, roots []string) {
	fmt.Fprintln(w, "No session found. logwatch looks for agent logs in:")
	for _, r := range roots {
		note := ""
		if _, err := os.Stat(r); err != nil {
			note = "  (does not exist yet: waited for)"
		}
		fmt.Fprintf(w, "  %s%s\n", termsafe.Line(r), note)
	}
	fmt.Fprintln(w, "and for hook events (`logwatch hooks install --agent claude` sets them up).")
}

// RecentChange is how long a session with no live process stays in the
// default views after its last change.
const RecentChange = 10 * time.Minute

// Shown says whether the default views show a session: its process runs
// (Claude Code's registry says so), or it changed recently; where nothing
// tells its process (Codex, a Claude without a registry), it has not ended
// and changed within a day.
func Shown(s wire.Event, now time.Time) bool {
	at := HiddenAt(s)
	return at.IsZero() || !now.After(at)
}

// HiddenAt is when the default views stop showing a session that does not
// change meanwhile (Shown); zero while its process runs.
func HiddenAt(s wire.Event) time.Time {
	switch {
	case s.Live:
		return time.Time{}
	case s.Pid == 0 && s.State != "ended":
		return s.Since.Add(24 * time.Hour)
	}
	return s.Since.Add(RecentChange)
}

// process is the PROCESS column: the live pid, "gone", or "-" when unknown.
func process(s wire.Event) string {
	switch {
	case s.Live:
		return strconv.Itoa(s.Pid)
	case s.Pid != 0:
		return "gone"
	}
	return "-"
}

// Short cuts s to n runes, marking the cut with an ellipsis.
func Short(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// whereOf is the session's worktree, else its cwd; a remote session's is
// prefixed with its host, as ssh and scp write it.
func whereOf(ev wire.Event) string {
	where := ev.Worktree
	if where == "" {
		where = ev.Cwd
	}
	if ev.Host != "" {
		return ev.Host + ":" + where
	}
	return where
}

// StateText is the state as the views show it: a stale remote session's
// (its link is down: the last state its host sent) with a question mark.
func StateText(ev wire.Event) string {
	if ev.Stale {
		return ev.State + "?"
	}
	return ev.State
}

// RemoteLine says how a remote's link is: up with its release and
// sessions, or since when it is not, why, and what to do.
func RemoteLine(r wire.RemoteState, now time.Time) string {
	since := now.Sub(r.Since).Round(time.Second)
	switch r.State {
	case wire.RemoteUp:
		return fmt.Sprintf("up %s, logwatch %s, %d sessions", since, r.Version, r.Sessions) + remoteLoss(r)
	case wire.RemoteConnecting:
		return fmt.Sprintf("connecting (%s)", since)
	}
	line := fmt.Sprintf("%s %s: %s", r.State, since, r.Error)
	if r.Sessions > 0 {
		line += fmt.Sprintf("; its %d sessions show their last state, marked ?", r.Sessions)
	}
	if r.Fix != "" {
		line += "; fix: " + r.Fix
	}
	return line + remoteLoss(r)
}

// remoteLoss says what of a remote is not shown: sessions past the ones
// kept, lines that were no event.
func remoteLoss(r wire.RemoteState) string {
	s := ""
	if r.Dropped > 0 {
		s += fmt.Sprintf("; %d more sessions not shown (too many)", r.Dropped)
	}
	if r.Skipped > 0 {
		s += fmt.Sprintf("; %d bad lines skipped", r.Skipped)
	}
	return s
}
