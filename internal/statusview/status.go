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
	"text/tabwriter"
	"time"

	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/relay/wire"
)

// WriteStatus prints sessions, most urgent first, then the counters; all
// includes the history Shown leaves out.
func WriteStatus(w io.Writer, st wire.Status, all bool, now time.Time) {
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
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(sessions) > 0 {
		fmt.Fprintln(tw, "STATE\tAGENT\tSESSION\tTITLE\tTAB\tPROCESS\tWHERE\tREASON\tDETAIL\tAGE")
	}
	hidden := 0
	for _, s := range sessions {
		age := now.Sub(s.Since)
		if !all && !Shown(s, now) {
			hidden++
			continue
		}
		where := whereOf(s)
		// Every cell from the daemon is escaped: a tab or newline in one
		// would also make a column or a line of its own.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", termsafe.Line(StateText(s)), termsafe.Line(s.Agent),
			termsafe.Line(shortID[s.Session]), orDash(Short(termsafe.Line(s.Title), 30)), orDash(termsafe.Line(s.Tab)), process(s), orDash(termsafe.Line(where)),
			orDash(termsafe.Line(s.Reason)), orDash(Short(termsafe.Line(s.Detail), 40)), age.Round(time.Second))
	}
	tw.Flush()
	if hidden > 0 {
		fmt.Fprintf(w, "(%d sessions of the history not shown: no live process, no change in the last %s; --all shows them)\n",
			hidden, shortAge(RecentChange))
	}
	if len(st.Remotes) > 0 {
		fmt.Fprintln(w)
		for _, r := range st.Remotes {
			fmt.Fprintf(w, "remote %s (%s): %s\n", termsafe.Line(r.Name), termsafe.Line(r.Dest), termsafe.Line(RemoteLine(r, now)))
		}
	}
	c := st.Counters
	fmt.Fprintf(w, "\nhooks %d received, %d dropped, %d unknown; lines %d, %d malformed, %d oversized\n",
		c.HooksReceived, c.HooksDropped, c.HooksUnknown, c.Lines, c.Malformed, c.Oversized)
	fmt.Fprintf(w, "keys %d: %d interrupt candidates, %d confirmed, %d unconfirmed (key→marker last %d ms, max %d ms); %d bad requests\n",
		c.Keys, c.InterruptCandidates, c.InterruptsConfirmed, c.InterruptsUnconfirmed, c.KeyToMarkerLastMs, c.KeyToMarkerMaxMs, c.BadRequests)
	fmt.Fprintf(w, "connections %d/%d requests, %d/%d subscribers; %d evicted idle, %d refused, %d accept errors; %d subscriber resyncs\n",
		c.Conns, c.ConnsMax, c.Subscribers, c.SubscribersMax, c.ConnsEvicted, c.ConnsRefused, c.AcceptErrors, c.SubscriberResyncs)
	if c.HTTPRefused > 0 || c.TranscriptsRefused > 0 {
		fmt.Fprintf(w, "refused: %d http requests (foreign Host or Origin, no secret, not JSON), %d transcript paths outside the log roots\n",
			c.HTTPRefused, c.TranscriptsRefused)
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
	age := now.Sub(s.Since)
	switch {
	case s.Live || age <= RecentChange:
		return true
	case s.Pid == 0:
		return s.State != "ended" && age <= 24*time.Hour
	}
	return false
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
