package replay

import (
	"fmt"

	"github.com/logwatch/logwatch/relay"
)

// Recorded is the changes the recorded relay published, in their order.
func Recorded(lines []relay.RecordLine) []Entry {
	var out []Entry
	for _, l := range lines {
		if l.Kind != relay.RecChange || l.Event == nil {
			continue
		}
		ev := l.Event
		out = append(out, Entry{Seq: ev.Seq, At: ev.Since, Session: ev.Session, Agent: ev.Agent, Tab: ev.Tab,
			State: ev.State, Reason: ev.Reason, Detail: ev.Detail, Title: ev.Title, Source: ev.Source, Rule: ev.Rule})
	}
	return out
}

// Divergence is the first change where a replay differs from its
// recording; Recorded or Replayed is nil where that side has no change.
type Divergence struct {
	Index    int    `json:"index"` // 0-based, among the published changes
	Recorded *Entry `json:"recorded"`
	Replayed *Entry `json:"replayed"`
}

func (d *Divergence) Error() string {
	side := func(e *Entry) string {
		if e == nil {
			return "(none)"
		}
		return e.key()
	}
	return fmt.Sprintf("change %d differs:\n  recorded: %s\n  replayed: %s", d.Index, side(d.Recorded), side(d.Replayed))
}

// key is what a replay must reproduce of a change: everything but its
// time (the replay's clock is virtual) and the process facts of the
// moment (pid, live).
func (e *Entry) key() string {
	return fmt.Sprintf("seq=%d session=%s agent=%s tab=%q %s/%s source=%s rule=%s detail=%q title=%q",
		e.Seq, e.Session, e.Agent, e.Tab, e.State, e.Reason, e.Source, e.Rule, e.Detail, e.Title)
}

// Compare returns the first change where replayed differs from recorded,
// or nil when the two sequences are the same.
func Compare(recorded, replayed []Entry) *Divergence {
	for i := 0; i < len(recorded) || i < len(replayed); i++ {
		var a, b *Entry
		if i < len(recorded) {
			a = &recorded[i]
		}
		if i < len(replayed) {
			b = &replayed[i]
		}
		if a == nil || b == nil || a.key() != b.key() {
			return &Divergence{Index: i, Recorded: a, Replayed: b}
		}
	}
	return nil
}
