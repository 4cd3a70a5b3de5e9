package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// Phase is one line of an expected.jsonl phase file (the peer's format, see
// shared/realworld/irrlicht-scenarios/README.md).
type Phase struct {
	Phase           string   `json:"phase"`
	ExpectedState   string   `json:"expected_state"`
	Kind            string   `json:"kind"`
	RelativeTo      string   `json:"relative_to"`
	MaxDelayMs      *int64   `json:"max_delay_ms"`
	MinDelayMs      int64    `json:"min_delay_ms"`
	DurationAtLeast int64    `json:"duration_at_least_ms"`
	Invariants      []string `json:"invariants"`
	SameSessionAs   string   `json:"same_session_as"`
	NewSession      bool     `json:"new_session"`
	SessionPrefix   string   `json:"session_id_prefix"`
	Text            string   `json:"text"`
}

// Expectation is a parsed phase file.
type Expectation struct {
	Meta struct {
		ScenarioID   string `json:"scenario_id"`
		KnownFailing bool   `json:"known_failing"`
	}
	Phases []Phase
}

// ReadExpectation parses an expected.jsonl file: a meta line, then phases.
func ReadExpectation(path string) (*Expectation, error) {
	f, err := safeopen.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ex := &Expectation{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		n++
		if n == 1 {
			if err := json.Unmarshal(sc.Bytes(), &ex.Meta); err != nil {
				return nil, fmt.Errorf("%s: meta line: %w", path, err)
			}
			continue
		}
		var p Phase
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if (p.ExpectedState == "") == (p.Kind == "") {
			return nil, fmt.Errorf("%s:%d: phase %q needs exactly one of expected_state and kind", path, n, p.Phase)
		}
		ex.Phases = append(ex.Phases, p)
	}
	return ex, sc.Err()
}

// StreamEvent is one event the phases are matched against: our state
// changes in the peer's vocabulary, plus the peer's recorded lifecycle
// events that we do not produce ourselves.
type StreamEvent struct {
	TS      time.Time
	Kind    string // "state_transition" or a recorded kind
	Session string
	State   string // new_state, for state_transition
}

// PeerState maps our states into the peer's vocabulary: their ready is our
// ready or done, their working our working or compacting. ended has no
// counterpart ("" drops it).
func PeerState(s string) string {
	switch s {
	case "done":
		return "ready"
	case "compacting":
		return "working"
	case "ended":
		return ""
	}
	return s
}

// lifecycleKinds are the peer's recorded non-state events phases refer to.
var lifecycleKinds = map[string]bool{"pid_discovered": true, "process_exited": true, "transcript_new": true,
	"parent_linked": true, "transcript_removed": true}

// Stream builds the event stream for matching: each of our published
// changes as a state_transition in the peer's vocabulary (ended has no
// counterpart and is left out), the peer's recorded lifecycle events, and its
// pre-session births.
func Stream(timeline []Entry, peer []PeerEvent) []StreamEvent {
	var out []StreamEvent
	for _, e := range timeline {
		if st := PeerState(e.State); st != "" {
			out = append(out, StreamEvent{TS: e.At, Kind: "state_transition", Session: e.Session, State: st})
		}
	}
	for _, ev := range peer {
		switch {
		case lifecycleKinds[ev.Kind]:
			out = append(out, StreamEvent{TS: ev.TS, Kind: ev.Kind, Session: NormalizeSession(ev.SessionID)})
		case ev.Kind == "state_transition" && strings.HasPrefix(ev.SessionID, "proc-") && ev.PrevState == "":
			out = append(out, StreamEvent{TS: ev.TS, Kind: ev.Kind, Session: ev.SessionID, State: ev.NewState})
		}
	}
	sortStream(out)
	return out
}

func sortStream(s []StreamEvent) {
	// Stable insertion by time keeps our order for equal times.
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].TS.Before(s[j-1].TS); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Result is one phase's outcome.
type Result struct {
	Phase  string    `json:"phase"`
	Pass   bool      `json:"pass"`
	At     time.Time `json:"at,omitempty"`
	Reason string    `json:"reason,omitempty"` // why it failed
}

// Check matches the phases against the stream, as the peer's validator does:
// each phase takes the first event at or after its anchor (plus
// min_delay_ms) that fits, then checks max_delay_ms, duration_at_least_ms and
// invariants. A failed phase is no anchor for later ones.
func Check(ex *Expectation, stream []StreamEvent, start time.Time) []Result {
	anchors := map[string]time.Time{}
	sessionOf := map[string]string{}
	matched := map[string]bool{}
	var end time.Time
	for _, ev := range stream {
		if ev.TS.After(end) {
			end = ev.TS
		}
	}
	var out []Result
	for _, ph := range ex.Phases {
		res := Result{Phase: ph.Phase}
		anchor := start
		if ph.RelativeTo != "" && ph.RelativeTo != "start" {
			a, ok := anchors[ph.RelativeTo]
			if !ok {
				res.Reason = fmt.Sprintf("anchor phase %q did not pass", ph.RelativeTo)
				out = append(out, res)
				continue
			}
			anchor = a
		}
		floor := anchor.Add(time.Duration(ph.MinDelayMs) * time.Millisecond)
		var match *StreamEvent
		for i := range stream {
			ev := &stream[i]
			if ev.TS.Before(floor) || !fits(ph, ev, sessionOf, matched) {
				continue
			}
			match = ev
			break
		}
		if match == nil {
			res.Reason = fmt.Sprintf("no %s after %s", want(ph), floor.Sub(start))
			out = append(out, res)
			continue
		}
		res.At = match.TS
		if ph.MaxDelayMs != nil {
			if d := match.TS.Sub(anchor); d > time.Duration(*ph.MaxDelayMs)*time.Millisecond {
				res.Reason = fmt.Sprintf("%s came %dms after its anchor, max %dms", want(ph), d.Milliseconds(), *ph.MaxDelayMs)
				out = append(out, res)
				continue
			}
		}
		windowEnd := end
		if ph.DurationAtLeast > 0 {
			windowEnd = match.TS.Add(time.Duration(ph.DurationAtLeast) * time.Millisecond)
			for _, ev := range stream {
				if ev.Session == match.Session && ev.Kind == "state_transition" && ev.TS.After(match.TS) &&
					!ev.TS.After(windowEnd) && ev.State != match.State {
					res.Reason = fmt.Sprintf("left %s for %s after %dms, hold %dms", match.State, ev.State,
						ev.TS.Sub(match.TS).Milliseconds(), ph.DurationAtLeast)
					break
				}
			}
		}
		if res.Reason == "" {
			res.Reason = invariants(ph, stream, match, windowEnd)
		}
		if res.Reason == "" {
			res.Pass = true
			anchors[ph.Phase] = match.TS
			sessionOf[ph.Phase] = match.Session
			matched[match.Session] = true
		}
		out = append(out, res)
	}
	return out
}

func want(ph Phase) string {
	if ph.Kind != "" {
		return ph.Kind
	}
	return "transition to " + ph.ExpectedState
}

func fits(ph Phase, ev *StreamEvent, sessionOf map[string]string, matched map[string]bool) bool {
	if ph.Kind != "" && ev.Kind != ph.Kind {
		return false
	}
	if ph.ExpectedState != "" && (ev.Kind != "state_transition" || ev.State != ph.ExpectedState) {
		return false
	}
	if ph.SameSessionAs != "" && sessionOf[ph.SameSessionAs] != ev.Session {
		return false
	}
	if ph.NewSession && matched[ev.Session] {
		return false
	}
	if ph.SessionPrefix != "" && !strings.HasPrefix(ev.Session, ph.SessionPrefix) {
		return false
	}
	return true
}

// invariants checks the two understood forms over (match, windowEnd]; any
// other form is skipped, as the peer's validator does.
func invariants(ph Phase, stream []StreamEvent, match *StreamEvent, windowEnd time.Time) string {
	for _, inv := range ph.Invariants {
		var state, kind string
		if s, ok := strings.CutPrefix(inv, "no state_transition to "); ok {
			state = strings.TrimSpace(s)
		} else if s, ok := strings.CutPrefix(inv, "no "); ok {
			kind, _, _ = strings.Cut(s, " for ")
			kind = strings.TrimSpace(kind)
		} else {
			continue
		}
		for _, ev := range stream {
			if ev.Session != match.Session || !ev.TS.After(match.TS) || ev.TS.After(windowEnd) {
				continue
			}
			if (state != "" && ev.Kind == "state_transition" && ev.State == state) || (kind != "" && ev.Kind == kind) {
				return fmt.Sprintf("invariant %q broken %dms after the match", inv, ev.TS.Sub(match.TS).Milliseconds())
			}
		}
	}
	return ""
}
