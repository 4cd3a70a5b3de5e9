package statusview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/logwatch/logwatch/internal/termsafe"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

// Notice says on a writer (stderr), once per outage, that a stream was
// lost and is being resumed.
type Notice struct {
	W    io.Writer
	Name string // the verb, as the lines name it
	lost bool
}

// Update reports u and whether a fresh snapshot starts with it.
func (n *Notice) Update(u client.Update) (resumed bool) {
	switch u.Kind {
	case client.UpdateLost:
		if !n.lost {
			fmt.Fprintf(n.W, "logwatch %s: lost the daemon (%s); reconnecting with backoff\n", n.Name, termsafe.Line(fmt.Sprint(u.Err)))
		}
		n.lost = true
	case client.UpdateConnected:
		if n.lost {
			fmt.Fprintf(n.W, "logwatch %s: reconnected; a fresh snapshot follows\n", n.Name)
			n.lost = false
			return true
		}
	}
	return false
}

// Events prints a change stream: with asJSON one relay Event per line (the
// socket protocol's stream), else one line per change, after saying where
// logwatch looks (roots, asked then) when the daemon has no session. The
// error is a failed JSON write.
func Events(w io.Writer, ups <-chan client.Update, notice *Notice, asJSON bool, roots func() []string) error {
	enc := json.NewEncoder(termsafe.JSON(w))
	known := map[string]bool{}
	for u := range ups {
		notice.Update(u)
		if u.Kind == client.UpdateConnected && u.Snapshot == 0 && !asJSON {
			WriteNoSession(w, roots())
			fmt.Fprintln(w, "Waiting for changes (Ctrl+C ends).")
		}
		if u.Kind != client.UpdateEvent {
			continue
		}
		ev := u.Event
		if asJSON {
			if err := enc.Encode(ev); err != nil {
				return err
			}
			continue
		}
		known[ev.Session] = true
		tag := ""
		if ev.Snapshot {
			tag = " (snapshot)"
		}
		if ev.Host != "" {
			tag += " (host " + termsafe.Line(ev.Host) + ")"
		}
		if ev.Title != "" {
			tag += ` "` + Short(cell(ev.Title), 60) + `"`
		}
		fmt.Fprintf(w, "%s %-10s %s %s %s %s %s [%s %s]%s\n", ev.Since.Format("15:04:05.000"), termsafe.Line(StateText(ev)),
			termsafe.Line(ShortIDs(keys(known))[ev.Session]), termsafe.Line(ev.Agent), orDash(termsafe.Line(ev.Tab)),
			orDash(termsafe.Line(ev.Reason))+sameState(ev), Short(termsafe.Line(ev.Detail), 60), termsafe.Line(ev.Source), termsafe.Line(ev.Rule), tag)
	}
	return nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Watch is the model of `status --watch`: every session the stream told,
// folded in order, and what the view says besides.
type Watch struct {
	all      bool
	roots    func() []string
	notice   Notice
	sessions map[string]wire.Event
	notes    Notes
}

// NewWatch starts an empty model. all keeps the history Shown leaves out;
// lost and resumed streams are said on notices; roots, asked once when the
// daemon has no session, says where logwatch looks.
func NewWatch(all bool, notices io.Writer, roots func() []string) *Watch {
	return &Watch{all: all, roots: roots, notice: Notice{W: notices, Name: "status --watch"}, sessions: map[string]wire.Event{}}
}

// Apply folds one update in; a fresh snapshot replaces what was known.
func (m *Watch) Apply(u client.Update) {
	resumed := m.notice.Update(u)
	switch u.Kind {
	case client.UpdateConnected:
		if resumed {
			clear(m.sessions)
		}
		m.notes.Note = ""
		if u.Snapshot == 0 && m.notes.Roots == nil {
			m.notes.Roots = m.roots()
		}
	case client.UpdateLost:
		m.notes.Note = fmt.Sprintf("(lost the daemon: %v; reconnecting)", u.Err)
	case client.UpdateEvent:
		m.sessions[u.Event.Host+"\x00"+u.Event.Session] = u.Event
	}
}

// Visible is what the view shows at now.
func (m *Watch) Visible(now time.Time) []wire.Event {
	var out []wire.Event
	for _, s := range m.sessions {
		if m.all || Shown(s, now) {
			out = append(out, s)
		}
	}
	return out
}

// Plain follows the stream with one plain line per change, for a stdout
// that is not a terminal.
func (m *Watch) Plain(w io.Writer, ups <-chan client.Update) {
	for u := range ups {
		m.Apply(u)
		if u.Kind == client.UpdateConnected && u.Snapshot == 0 {
			WriteNoSession(w, m.notes.Roots)
		}
		if u.Kind != client.UpdateEvent {
			continue
		}
		ev := u.Event
		title := ""
		if ev.Title != "" {
			title = ` "` + cell(ev.Title) + `"`
		}
		fmt.Fprintf(w, "%s %-10s %-6s %s %s %s %s %s%s\n", ev.Since.Format("15:04:05"), termsafe.Line(ev.State), termsafe.Line(ev.Agent),
			termsafe.Line(ShortIDs(m.ids())[ev.Session]), orDash(termsafe.Line(ev.Tab)), orDash(termsafe.Line(whereOf(ev))),
			orDash(termsafe.Line(ev.Reason))+sameState(ev), termsafe.Line(ev.Detail), title)
	}
}

// sameState marks a change that only names the session's tab (the relay's
// hook.tab: OpenCode's database announced the session before its plugin
// said where it runs), which would otherwise read as the same line twice.
func sameState(ev wire.Event) string {
	if ev.Rule == "hook.tab" {
		return " (the same state, now in its tab)"
	}
	return ""
}

// ids are the ids of the sessions known (a remote's may repeat a local one).
func (m *Watch) ids() []string {
	out := make([]string, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, s.Session)
	}
	return out
}

// Screen is the terminal the live view redraws.
type Screen struct {
	Out   io.Writer
	Width func() int // columns now; 0 when unknown (80 then)
	Color bool
	Now   func() time.Time
}

// Terminal follows the stream, redrawing the view in place (cursor home,
// each line then clear-to-end, one write per frame: no flicker), at most
// every 100 ms and once a second for the ages, until the stream ends.
func (m *Watch) Terminal(s Screen, ups <-chan client.Update) {
	fmt.Fprint(s.Out, "\x1b[?25l\x1b[H\x1b[2J") // hide the cursor, clear once
	defer fmt.Fprint(s.Out, "\x1b[?25h\n")
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var frame bytes.Buffer
	draw := func() {
		width := s.Width()
		if width <= 0 {
			width = 80
		}
		var view bytes.Buffer
		now := s.Now()
		Render(&view, m.Visible(now), now, width, s.Color, m.notes)
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
		s.Out.Write(frame.Bytes())
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
				return
			}
			m.Apply(u)
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
