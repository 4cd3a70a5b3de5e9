package statusview

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/relay/wire"
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

// Notes is what the live view says besides the sessions.
type Notes struct {
	Roots []string // where logwatch looks, shown when there is no session
	Note  string   // a line under the header, e.g. while reconnecting
}

// Render draws the live view: sessions grouped by worktree (a
// session without one under its cwd), most urgent group and session first,
// one line each: dot, short session id (what ack accepts), state, agent,
// tab, reason, title and detail, age, fitted to width. It is pure so the view can be
// compared with a golden file.
func Render(w io.Writer, sessions []wire.Event, now time.Time, width int, color bool, notes Notes) {
	width = max(width, 40)
	groups := map[string][]wire.Event{}
	for _, s := range sessions {
		where := whereOf(s)
		if where == "" {
			where = "(unknown directory)"
		}
		groups[where] = append(groups[where], s)
	}
	for _, g := range groups {
		slices.SortFunc(g, func(a, b wire.Event) int {
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
	if notes.Note != "" {
		fmt.Fprintln(w, fit(notes.Note, width))
	}
	if len(sessions) == 0 {
		fmt.Fprintln(w)
		var b bytes.Buffer
		WriteNoSession(&b, notes.Roots)
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
	// 8) reason(17); title and detail take the rest before a right-aligned
	// age(4).
	ids := make([]string, len(sessions))
	tabW := 1
	for i, s := range sessions {
		ids[i] = s.Session
		tabW = max(tabW, min(8, runeLen(cell(s.Tab))))
	}
	shortID := ShortIDs(ids)
	idW := 0
	for _, id := range shortID {
		idW = max(idW, runeLen(cell(id)))
	}
	idW = min(idW, 14)
	const stateW, agentW, reasonW, ageW = 10, 6, 17, 4
	detailW := width - 4 - idW - 1 - stateW - 1 - agentW - 1 - tabW - 1 - reasonW - 1 - 1 - ageW
	for _, k := range keys {
		fmt.Fprintf(w, "\n%s\n", paint(ansiBold, fitLeft(k, width)))
		for _, s := range groups[k] {
			detail := about(s, detailW)
			line := fmt.Sprintf("  %s %-*s %-*s %-*s %-*s %-*s %s%*s %*s",
				paint(stateColor[s.State], "●"), idW, fit(shortID[s.Session], idW),
				stateW, fit(StateText(s), stateW), agentW, fit(s.Agent, agentW), tabW, fit(orDash(s.Tab), tabW),
				reasonW, fit(orDash(s.Reason), reasonW),
				detail, detailW-runeLen(detail), "", ageW, shortAge(now.Sub(s.Since)))
			fmt.Fprintln(w, strings.TrimRight(line, " "))
		}
	}
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// about is what a session is about and what its state says, in n runes:
// its title, then its detail after a dot, the title keeping at least half.
// Where the two do not fit (80 columns leave about 18), one is shown: a
// waiting session's detail (what it asks the person), else the title.
func about(s wire.Event, n int) string {
	title, detail := cell(s.Title), cell(s.Detail)
	switch {
	case title == "":
		return fit(detail, n)
	case detail == "":
		return fit(title, n)
	case n < 27 && s.State == "waiting":
		return fit(detail, n)
	case n < 27:
		return fit(title, n)
	}
	t := fit(title, max(n/2, n-3-runeLen(detail)))
	return t + " · " + fit(detail, n-3-runeLen(t))
}

// cell is s as the view shows it: escaped for the terminal (what a column
// measures), runs of spaces made one.
func cell(s string) string { return strings.Join(strings.Fields(termsafe.Line(s)), " ") }

// fit cuts cell(s) to n runes, marking the cut with an ellipsis.
func fit(s string, n int) string {
	s = cell(s)
	if n <= 0 {
		return ""
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// fitLeft cuts an escaped path from the left, where it is least telling.
func fitLeft(s string, n int) string {
	s = termsafe.Line(s)
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
