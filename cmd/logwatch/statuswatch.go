package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"

	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/client"
)

// urgency orders states as a row shows them (SPEC §2): waiting first.
var urgency = map[string]int{"waiting": 0, "working": 1, "compacting": 2, "done": 3, "ready": 4, "ended": 5}

// stateColor is the dot's ANSI colour per state.
var stateColor = map[string]string{
	"waiting":    "\x1b[33m", // amber
	"working":    "\x1b[36m", // cyan
	"compacting": "\x1b[35m", // magenta
	"done":       "\x1b[32m", // green
	"ready":      "\x1b[2m",  // dim
	"ended":      "\x1b[2m",
}

const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
)

func urgencyOf(state string) int {
	if u, ok := urgency[state]; ok {
		return u
	}
	return len(urgency)
}

// watchNotes is what the live view says besides the sessions.
type watchNotes struct {
	roots []string // where logwatch looks, shown when there is no session
	note  string   // a line under the header, e.g. while reconnecting
}

// renderSessions draws the live view: sessions grouped by worktree (a
// session without one under its cwd), most urgent group and session first,
// one line each: dot, short session id (what ack accepts), state, agent,
// tab, reason, detail, age, fitted to width. It is pure so the view can be
// compared with a golden file.
func renderSessions(w io.Writer, sessions []relay.Event, now time.Time, width int, color bool, notes watchNotes) {
	width = max(width, 40)
	groups := map[string][]relay.Event{}
	for _, s := range sessions {
		where := whereOf(s)
		if where == "" {
			where = "(unknown directory)"
		}
		groups[where] = append(groups[where], s)
	}
	for _, g := range groups {
		slices.SortFunc(g, func(a, b relay.Event) int {
			if d := urgencyOf(a.State) - urgencyOf(b.State); d != 0 {
				return d
			}
			if c := b.Since.Compare(a.Since); c != 0 {
				return c
			}
			return strings.Compare(a.Session, b.Session)
		})
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := urgencyOf(groups[a][0].State) - urgencyOf(groups[b][0].State); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	paint := func(code, s string) string {
		if !color || code == "" {
			return s
		}
		return code + s + ansiReset
	}
	counts := map[string]int{}
	for _, s := range sessions {
		counts[s.State]++
	}
	var summary []string
	for _, st := range []string{"waiting", "working", "compacting", "done", "ready"} { // ended ones are history
		if counts[st] > 0 {
			summary = append(summary, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	head := fmt.Sprintf("%d sessions", len(sessions))
	if len(summary) > 0 {
		head += ": " + strings.Join(summary, ", ")
	}
	live := 0
	for _, s := range sessions {
		if s.Live {
			live++
		}
	}
	if live > 0 {
		head += fmt.Sprintf("; %d live", live)
	}
	clock := now.Format("15:04:05")
	fmt.Fprintf(w, "%s%*s\n", paint(ansiBold, fit(head, width-len(clock)-1)), width-runeLen(fit(head, width-len(clock)-1)), clock)
	if notes.note != "" {
		fmt.Fprintln(w, fit(notes.note, width))
	}
	if len(sessions) == 0 {
		fmt.Fprintln(w)
		var b bytes.Buffer
		writeNoSession(&b, notes.roots)
		for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			line = "  " + line
			if r := []rune(line); len(r) > width {
				line = string(r[:width-1]) + "…"
			}
			fmt.Fprintln(w, line)
		}
		return
	}
	// Columns: "  ● " id(the longest short id) state(10) agent(6) tab(up to
	// 8) reason(17); detail takes the rest before a right-aligned age(4).
	ids := make([]string, len(sessions))
	tabW := 1
	for i, s := range sessions {
		ids[i] = s.Session
		tabW = max(tabW, min(8, runeLen(s.Tab)))
	}
	shortID := shortIDs(ids)
	idW := 0
	for _, id := range shortID {
		idW = max(idW, runeLen(id))
	}
	idW = min(idW, 14)
	const stateW, agentW, reasonW, ageW = 10, 6, 17, 4
	detailW := width - 4 - idW - 1 - stateW - 1 - agentW - 1 - tabW - 1 - reasonW - 1 - 1 - ageW
	for _, k := range keys {
		fmt.Fprintf(w, "\n%s\n", paint(ansiBold, fitLeft(k, width)))
		for _, s := range groups[k] {
			detail := fit(s.Detail, detailW)
			line := fmt.Sprintf("  %s %-*s %-*s %-*s %-*s %-*s %s%*s %*s",
				paint(stateColor[s.State], "●"), idW, fit(shortID[s.Session], idW),
				stateW, fit(s.State, stateW), agentW, fit(s.Agent, agentW), tabW, fit(orDash(s.Tab), tabW),
				reasonW, fit(orDash(s.Reason), reasonW),
				detail, detailW-runeLen(detail), "", ageW, shortAge(now.Sub(s.Since)))
			fmt.Fprintln(w, strings.TrimRight(line, " "))
		}
	}
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// fit cuts s to n runes, marking the cut with an ellipsis.
func fit(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ") // one line, whatever the detail holds
	if n <= 0 {
		return ""
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// fitLeft cuts a path from the left, where it is least telling.
func fitLeft(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return "…" + string(r[len(r)-n+1:])
	}
	return s
}

// shortAge is an age in at most four characters: 45s, 12m, 3h, 9d.
func shortAge(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// watchStatus follows the change stream. On a terminal it redraws the view
// in place (cursor home, each line then clear-to-end, one write per frame:
// no flicker), at most every 100 ms and once a second for the ages; elsewhere
// it prints one plain line per change. A lost daemon is said once on stderr
// (and in the view); the stream resumes with a fresh snapshot.
func (a *app) watchStatus(all bool) error {
	ups, done, err := a.follow()
	if err != nil {
		return err
	}
	defer done()
	f, isFile := a.stdout.(*os.File)
	tty := isFile && isatty.IsTerminal(f.Fd())
	color := tty && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	notice := reconnectNotice{w: a.stderr, name: "status --watch"}
	sessions := map[string]relay.Event{}
	var notes watchNotes
	// apply folds one update in; a fresh snapshot replaces what was known.
	apply := func(u client.Update) {
		resumed := notice.update(u)
		switch u.Kind {
		case client.UpdateConnected:
			if resumed {
				clear(sessions)
			}
			notes.note = ""
			if u.Snapshot == 0 && notes.roots == nil {
				notes.roots = a.daemonRoots()
			}
		case client.UpdateLost:
			notes.note = fmt.Sprintf("(lost the daemon: %v; reconnecting)", u.Err)
		case client.UpdateEvent:
			sessions[u.Event.Session] = u.Event
		}
	}
	visible := func(now time.Time) []relay.Event {
		var out []relay.Event
		for _, s := range sessions {
			if all || shown(s, now) {
				out = append(out, s)
			}
		}
		return out
	}
	if !tty {
		for u := range ups {
			apply(u)
			if u.Kind == client.UpdateConnected && u.Snapshot == 0 {
				writeNoSession(a.stdout, notes.roots)
			}
			if u.Kind != client.UpdateEvent {
				continue
			}
			ev := u.Event
			fmt.Fprintf(a.stdout, "%s %-10s %-6s %s %s %s %s %s\n", ev.Since.Format("15:04:05"), ev.State, ev.Agent,
				shortIDs(keys(sessions))[ev.Session], orDash(ev.Tab), orDash(whereOf(ev)), orDash(ev.Reason), ev.Detail)
		}
		return nil
	}
	fmt.Fprint(a.stdout, "\x1b[?25l\x1b[H\x1b[2J") // hide the cursor, clear once
	defer fmt.Fprint(a.stdout, "\x1b[?25h\n")
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var frame bytes.Buffer
	draw := func() {
		width, _, err := term.GetSize(int(f.Fd()))
		if err != nil || width <= 0 {
			width = 80
		}
		var view bytes.Buffer
		now := time.Now()
		renderSessions(&view, visible(now), now, width, color, notes)
		frame.Reset()
		frame.WriteString("\x1b[H")
		for _, line := range strings.SplitAfter(view.String(), "\n") {
			frame.WriteString(strings.TrimSuffix(line, "\n"))
			frame.WriteString("\x1b[K")
			if strings.HasSuffix(line, "\n") {
				frame.WriteString("\r\n")
			}
		}
		frame.WriteString("\x1b[J")
		a.stdout.Write(frame.Bytes())
	}
	draw()
	dirty := false
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	for {
		select {
		case u, ok := <-ups:
			if !ok {
				draw()
				return nil
			}
			apply(u)
			if !dirty {
				dirty = true
				debounce.Reset(100 * time.Millisecond)
			}
		case <-debounce.C:
			dirty = false
			draw()
		case <-tick.C:
			draw()
		}
	}
}

// whereOf is the session's worktree, else its cwd.
func whereOf(ev relay.Event) string {
	if ev.Worktree != "" {
		return ev.Worktree
	}
	return ev.Cwd
}
