package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay"
)

// FromRecording turns a logwatch recording into inputs and the relay
// configuration it ran with.
func FromRecording(lines []relay.RecordLine) ([]Input, relay.Config) {
	cfg := relay.DefaultConfig()
	var out []Input
	for _, l := range lines {
		if l.Kind == relay.RecLog && l.Replay {
			continue // part of the restored state: the recorded daemon skipped it too
		}
		switch l.Kind {
		case relay.RecRestore:
			out = append(out, Input{At: l.T, Kind: relay.RecRestore, Payload: l.State})
		case relay.RecStart:
			if l.Config != nil {
				cfg = *l.Config
			}
		case relay.RecLog:
			agent := parsers.Agent(l.Agent)
			if isStore(agent) {
				// A database's row: no file to write, the line as the feed
				// handed it over.
				out = append(out, Input{At: l.T, Kind: relay.RecLog, Agent: agent, Rel: filepath.Base(l.Path),
					Data: []byte(l.Raw), Bootstrap: l.Bootstrap, BootMore: l.BootMore, Session: l.Session, Subagent: l.Subagent,
					Offset: l.Offset, End: l.End, Retry: l.Retry})
				continue
			}
			out = append(out, Input{At: l.T, Kind: relay.RecLog, Agent: agent, Rel: LayoutPath(agent, l.Path),
				Data: []byte(l.Raw + "\n"), Bootstrap: l.Bootstrap, Retry: l.Retry})
		case relay.RecHook:
			out = append(out, Input{At: l.T, Kind: relay.RecHook, HookAgent: l.Agent, Tab: l.Tab, Pid: l.Pid, Start: l.Start, Payload: l.Payload})
		case relay.RecKey:
			// Applied where its report arrived, stamped when pressed: a
			// report can come after lines the agent wrote since the press,
			// and the relay took those first.
			in := Input{At: l.T, Kind: relay.RecKey, Tab: l.Tab, Key: l.Key}
			if l.At != nil {
				in.Pressed = *l.At
			}
			out = append(out, in)
		case relay.RecAck:
			out = append(out, Input{At: l.T, Kind: relay.RecAck, Session: l.Session, Host: l.Host})
		case relay.RecRemote:
			if l.Remote != nil {
				out = append(out, Input{At: l.T, Kind: relay.RecRemote, Remote: l.Remote})
			}
		case relay.RecTabClosed:
			out = append(out, Input{At: l.T, Kind: relay.RecTabClosed, Tab: l.Tab})
		case relay.RecGone:
			out = append(out, Input{At: l.T, Kind: relay.RecGone, Session: l.Session})
		case relay.RecBootstrapDone, relay.RecRegistryListed:
			out = append(out, Input{At: l.T, Kind: l.Kind})
		case relay.RecTabProcess, relay.RecExit:
			out = append(out, Input{At: l.T, Kind: l.Kind, Tab: l.Tab, Pid: l.Pid, Start: l.Start})
		case relay.RecRegistry:
			out = append(out, Input{At: l.T, Kind: l.Kind, Registry: l.Registry, Start: l.Start})
		case relay.RecRegistryRemoved:
			out = append(out, Input{At: l.T, Kind: l.Kind, Path: l.Path})
		case relay.RecOversized:
			out = append(out, Input{At: l.T, Kind: l.Kind, Path: l.Path, Gen: int64(l.Gen), End: l.End, Line: l.Line, N: l.N})
		case relay.RecProc:
			out = append(out, Input{At: l.T, Kind: l.Kind, Op: l.Op, Pid: l.Pid, Start: l.Start, Ancestor: l.Ancestor, OK: l.OK})
		case relay.RecTimer:
			out = append(out, Input{At: l.T, Kind: l.Kind, Timer: l.Timer, TimerName: l.Name})
		}
	}
	return out, cfg
}

// TimersRecorded reports whether the recording holds every run of the
// relay's timers (RecTimer lines; Options.RecordedTimers).
func TimersRecorded(lines []relay.RecordLine) bool {
	for _, l := range lines {
		if l.Kind == relay.RecStart {
			return l.Timers
		}
	}
	return false
}

// PeerEvent is one line of a peer (Irrlicht) recording's events.jsonl.
type PeerEvent struct {
	Seq            int64     `json:"seq"`
	TS             time.Time `json:"ts"`
	Kind           string    `json:"kind"`
	SessionID      string    `json:"session_id"`
	FileSize       int64     `json:"file_size"`
	TranscriptPath string    `json:"transcript_path"`
	CWD            string    `json:"cwd"`
	HookName       string    `json:"hook_name"`
	NewState       string    `json:"new_state"`
	PrevState      string    `json:"prev_state"`
	Adapter        string    `json:"adapter"`
}

// Peer is a peer recording folder read for replay: the inputs, and the
// recorded events the expected phases refer to.
type Peer struct {
	Agent  parsers.Agent
	Inputs []Input
	Events []PeerEvent // every recorded event, in order
	Start  time.Time   // the first recorded event
}

// IsPeerRecording reports whether dir holds a peer recording
// (events.jsonl and transcript.jsonl).
func IsPeerRecording(dir string) bool {
	for _, f := range []string{"events.jsonl", "transcript.jsonl"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// NormalizeSession maps a peer session id to ours: Codex rollout stems
// (rollout-<ts>-<uuid>) are their uuid.
func NormalizeSession(id string) string {
	if strings.HasPrefix(id, "rollout-") && len(id) >= 36 {
		return id[len(id)-36:]
	}
	return id
}

// realSession reports peer rows that are agent sessions with a transcript
// (not pre-session or subagent rows).
func realSession(id string) bool {
	return id != "" && !strings.HasPrefix(id, "proc-") && !strings.HasPrefix(id, "agent-")
}

// HookOverride adds payload fields a peer recording did not keep (only hook
// names are recorded), per hook name: e.g. tool_name for PermissionRequest.
type HookOverride map[string]map[string]any

// ReadPeer reads a peer recording folder: the transcript is split into one
// file per real session (their parts are concatenated in order of first
// appearance, each as long as the largest file_size recorded for it), grown
// on the recorded write schedule; recorded hooks become minimal payloads.
func ReadPeer(dir string, hooks HookOverride) (*Peer, error) {
	events, err := readPeerEvents(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("%s: no events", dir)
	}
	transcript, err := safeopen.ReadFile(filepath.Join(dir, "transcript.jsonl"), maxInput)
	if err != nil {
		return nil, err
	}
	p := &Peer{Events: events, Start: events[0].TS, Agent: peerAgent(events)}
	// Sessions in order of first appearance, with their final sizes and
	// file names.
	var order []string
	size := map[string]int64{}
	name := map[string]string{}
	cwd := map[string]string{}
	for _, ev := range events {
		id := NormalizeSession(ev.SessionID)
		if !realSession(ev.SessionID) {
			continue
		}
		if _, seen := size[id]; !seen && (ev.Kind == "transcript_new" || ev.Kind == "transcript_activity") {
			order = append(order, id)
			size[id] = 0
		}
		if ev.FileSize > size[id] {
			size[id] = ev.FileSize
		}
		if ev.TranscriptPath != "" && name[id] == "" {
			name[id] = ev.TranscriptPath
		}
		if ev.CWD != "" && cwd[id] == "" {
			cwd[id] = ev.CWD
		}
	}
	parts := map[string][]byte{}
	var off int64
	for _, id := range order {
		end := off + size[id]
		if end > int64(len(transcript)) {
			// A resumed session can point its lifetimes at one file that
			// the recording holds twice; its first copy is the file.
			if size[id] <= int64(len(transcript)) && seenBefore(parts, transcript[:size[id]]) {
				continue
			}
			return nil, fmt.Errorf("%s: transcript is %d bytes, sessions need %d", dir, len(transcript), end)
		}
		parts[id] = transcript[off:end]
		off = end
	}
	rel := map[string]string{}
	for id, path := range name {
		rel[id] = LayoutPath(p.Agent, path)
	}
	grown := map[string]int64{}
	for _, ev := range events {
		id := NormalizeSession(ev.SessionID)
		switch ev.Kind {
		case "transcript_new", "transcript_activity":
			buf, ok := parts[id]
			if !ok || !realSession(ev.SessionID) || ev.FileSize <= grown[id] || rel[id] == "" {
				continue
			}
			n := ev.FileSize
			if n > int64(len(buf)) {
				n = int64(len(buf))
			}
			p.Inputs = append(p.Inputs, Input{At: ev.TS, Kind: relay.RecLog, Agent: p.Agent, Rel: rel[id],
				Data: buf[grown[id]:n]})
			grown[id] = n
		case "process_exited":
			// What the host app reports when the agent's tab or process
			// goes away: the session ends.
			if realSession(ev.SessionID) && rel[id] != "" {
				p.Inputs = append(p.Inputs, Input{At: ev.TS, Kind: relay.RecGone, Session: id})
			}
		case "hook_received":
			payload := map[string]any{"hook_event_name": ev.HookName, "session_id": id}
			if c := cwd[id]; c != "" {
				payload["cwd"] = c
			}
			for k, v := range hooks[ev.HookName] {
				payload[k] = v
			}
			b, _ := json.Marshal(payload)
			p.Inputs = append(p.Inputs, Input{At: ev.TS, Kind: relay.RecHook, HookAgent: string(p.Agent), Payload: b})
		}
	}
	return p, nil
}

func seenBefore(parts map[string][]byte, b []byte) bool {
	for _, p := range parts {
		if string(p) == string(b) {
			return true
		}
	}
	return false
}

// maxInput bounds each file of a recording read whole.
const maxInput = 1 << 30

func readPeerEvents(path string) ([]PeerEvent, error) {
	b, err := safeopen.ReadFile(path, maxInput)
	if err != nil {
		return nil, err
	}
	var out []PeerEvent
	for i, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var ev PeerEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		out = append(out, ev)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].TS.Equal(out[j].TS) {
			return out[i].TS.Before(out[j].TS)
		}
		return out[i].Seq < out[j].Seq
	})
	return out, nil
}

// peerAgent is the agent a peer's recording is of: the adapter it names,
// else the one whose layout claims a transcript (or a session named like
// one of its files), else the agent unnamed hooks are taken for.
func peerAgent(events []PeerEvent) parsers.Agent {
	for _, ev := range events {
		if parsers.Lookup(parsers.Agent(ev.Adapter)) != nil {
			return parsers.Agent(ev.Adapter)
		}
	}
	for _, ev := range events {
		for _, s := range parsers.All() {
			if c := s.Layout.Claims; c != nil && (ev.TranscriptPath != "" && c(ev.TranscriptPath) || ev.SessionID != "" && c(ev.SessionID)) {
				return s.Name
			}
		}
	}
	return parsers.HookAgent(&parsers.Hook{})
}
