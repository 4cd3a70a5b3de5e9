package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/relay"
)

// Note is a per-scenario note: hook fields a peer recording lacks, and
// phases that differ from the peer by design.
type Note struct {
	Hooks       HookOverride      `json:"hooks"`
	Differences map[string]string `json:"differences"`
}

// ReadNote reads a Note file.
func ReadNote(path string) (Note, error) {
	var n Note
	b, err := safeopen.ReadFile(path, 1<<20)
	if err == nil {
		err = json.Unmarshal(b, &n)
	}
	if err != nil {
		return Note{}, fmt.Errorf("note %s: %w", path, err)
	}
	return n, nil
}

// Report is one recording's replay: its timeline and, when checked against
// an Expectation, the phases.
type Report struct {
	Recording string    `json:"recording"`
	Timeline  []Entry   `json:"timeline"`
	Phases    []Checked `json:"phases,omitempty"`
	Passed    int       `json:"passed"`
	Failed    int       `json:"failed"`
	// Recorded is what a logwatch recording says was published (a peer
	// recording has none: Peer).
	Recorded []Entry `json:"-"`
	Peer     bool    `json:"-"`
	// Diverged is, after Check, the first change the replay did not
	// reproduce.
	Diverged *Divergence `json:"diverged,omitempty"`
}

// ErrPeerCheck: a peer recording holds no published changes of ours to
// compare a replay with.
var ErrPeerCheck = errors.New("a peer recording holds no published changes to check against")

// Check compares the replayed timeline with the recorded one and returns
// the first divergence (also kept in Diverged).
func (r *Report) Check() error {
	if r.Peer {
		return ErrPeerCheck
	}
	if d := Compare(r.Recorded, r.Timeline); d != nil {
		r.Diverged = d
		return d
	}
	return nil
}

// Checked is a checked phase; ByDesign is the note's reason when a failing
// phase differs from the peer on purpose (it then does not count as failed).
type Checked struct {
	Result
	ByDesign string `json:"by_design,omitempty"`
}

// File replays rec — a `logwatch run --record` file, or a peer recording
// folder — through the real watcher and relay, and checks the timeline
// against ex when it is not nil. Entry offsets are from the recording's start.
func File(ctx context.Context, rec string, ex *Expectation, note Note, log zerolog.Logger) (Report, error) {
	out := Report{Recording: rec}
	var inputs []Input
	var start time.Time
	cfg := relay.DefaultConfig()
	timers := false
	var peer *Peer
	if st, err := os.Stat(rec); err == nil && st.IsDir() {
		if !IsPeerRecording(rec) {
			return out, fmt.Errorf("a folder must hold events.jsonl and transcript.jsonl")
		}
		var err error
		if peer, err = ReadPeer(rec, note.Hooks); err != nil {
			return out, err
		}
		inputs, start = peer.Inputs, peer.Start
		out.Peer = true
	} else {
		lines, err := relay.ReadRecording(rec)
		if err != nil {
			return out, err
		}
		inputs, cfg = FromRecording(lines)
		timers = TimersRecorded(lines)
		out.Recorded = Recorded(lines)
		if len(inputs) > 0 {
			start = inputs[0].At
		}
	}
	tl, err := Run(ctx, inputs, Options{Config: cfg, Log: log, RecordedTimers: timers})
	if err != nil {
		return out, err
	}
	for i := range tl {
		tl[i].Offset = tl[i].At.Sub(start).Milliseconds()
	}
	out.Timeline = tl
	if ex == nil {
		return out, nil
	}
	var events []PeerEvent
	if peer != nil {
		events = peer.Events
	}
	for _, r := range Check(ex, Stream(tl, events), start) {
		p := Checked{Result: r}
		switch {
		case r.Pass:
			out.Passed++
		case note.Differences[r.Phase] != "":
			p.ByDesign = note.Differences[r.Phase]
		default:
			out.Failed++
		}
		out.Phases = append(out.Phases, p)
	}
	return out, nil
}
