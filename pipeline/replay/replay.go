// Package replay feeds a recording back through the real watcher, parsers
// and relay on a virtual clock and returns the state timeline. Log bytes are
// written to files under temporary roots on the recorded schedule, so the
// real file watcher and parsers run; hooks and keys are injected at their
// recorded times. After each input the replay waits until the relay has
// processed it, which makes the timeline the same, byte for byte, run after
// run.
package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/pipeline/ingest"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/vclock"
	"github.com/logwatch/logwatch/watcher"
	"github.com/logwatch/logwatch/watcher/storefeed"
)

// Input is one thing that happened to the relay, at its recorded time.
type Input struct {
	At   time.Time
	Kind string // relay.RecLog, RecHook, RecKey, RecAck, RecTabClosed, RecBootstrapDone

	// log: Data is appended to the file at Rel under the Agent's root. An
	// agent whose log is a database (parsers.Store) has no file to append
	// to: Data is the row's line, handed to the relay as the feed would,
	// with the recorded Session, Subagent, Offset and End.
	Agent     parsers.Agent
	Rel       string
	Data      []byte
	Bootstrap bool // history present before the relay started
	BootMore  bool // more of the session's history follows (relay.LogLine.BootMore)
	Retry     bool // the recorded Evidence.Retry (the agent's settings decided it)
	Subagent  bool
	Offset    int64

	// hook, key, ack, tab_closed
	HookAgent string
	Tab       string
	Payload   []byte
	Key       string
	Pressed   time.Time // a key's press (zero: when applied)
	Session   string
	Host      string // ack: the remote named

	// remote: what a remote's link reported
	Remote *relay.RemoteUpdate

	// registry, registry_removed, registry_listed, exit, tab_process,
	// oversized, proc: the relay.RecordLine fields of the same names.
	Registry *relay.RegistryProcess
	Path     string
	Pid      int
	Start    uint64
	Gen, End int64
	Line, N  int
	Op       string
	Ancestor int
	OK       bool
	Timer    uint64 // timer: the arming that ran
	// TimerName is the timer's name, when the recording gives it.
	TimerName string
}

// Entry is one published change on the replayed timeline.
type Entry struct {
	Seq     uint64    `json:"seq"`
	At      time.Time `json:"at"`
	Offset  int64     `json:"offset_ms"` // since the first input
	Session string    `json:"session"`
	Agent   string    `json:"agent"`
	Tab     string    `json:"tab,omitempty"`
	State   string    `json:"state"`
	Reason  string    `json:"reason"`
	Detail  string    `json:"detail,omitempty"`
	Title   string    `json:"title,omitempty"`
	Source  string    `json:"source"`
	Rule    string    `json:"rule"`
}

// Options tune a replay.
type Options struct {
	Config relay.Config
	// Tail is how long the clock runs on after the last input, so quiet
	// periods and windows can expire.
	Tail time.Duration
	// Wait bounds how long the replay waits (wall time) for the watcher to
	// deliver one write.
	Wait time.Duration
	// RecordedTimers runs the relay's timers where the recording's timer
	// inputs say, not when the clock passes their deadlines.
	RecordedTimers bool
	Log            zerolog.Logger
}

// ErrStalled is returned when the watcher did not deliver a write in time.
var ErrStalled = errors.New("replay: the watcher did not deliver a write")

// Run replays inputs (ordered by time; ties keep their order) and returns
// the timeline of published changes.
func Run(ctx context.Context, inputs []Input, opt Options) ([]Entry, error) {
	if len(inputs) == 0 {
		return nil, errors.New("replay: empty recording")
	}
	if opt.Tail == 0 {
		opt.Tail = 10 * time.Second
	}
	if opt.Wait == 0 {
		opt.Wait = 10 * time.Second
	}
	sort.SliceStable(inputs, func(i, j int) bool { return inputs[i].At.Before(inputs[j].At) })
	dir, err := os.MkdirTemp("", "logwatch-replay")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	roots := map[parsers.Agent]string{}
	var rootList []string
	for _, s := range parsers.All() {
		// <agent>/<its default root's name> (claude/projects): a hook's
		// path there still looks like the agent's own.
		r := filepath.Join(dir, string(s.Name))
		if len(s.Roots) > 0 {
			r = filepath.Join(r, filepath.Base(s.Roots[0]))
		}
		if err := os.MkdirAll(r, 0o700); err != nil {
			return nil, err
		}
		roots[s.Name] = r
		rootList = append(rootList, r)
	}
	// History the recording started with is on disk before the watcher
	// starts, to be bootstrapped like at a real start. History read later
	// is written where it was read: a new log that a hook named before the
	// watcher found it in a directory it lists, which earlier releases
	// read as history and this one reads live (watcher.Follow).
	rest := inputs[:0:0]
	var storeBoot []Input
	started := false
	for _, in := range inputs {
		if in.Kind == relay.RecLog && in.Bootstrap && isStore(in.Agent) {
			storeBoot = append(storeBoot, in)
			continue
		}
		if in.Kind == relay.RecLog && in.Bootstrap && !started {
			if err := appendTo(roots, in); err != nil {
				return nil, err
			}
			continue
		}
		started = started || in.Kind == relay.RecBootstrapDone
		if in.Kind != relay.RecBootstrapDone && in.Kind != relay.RecRestore && in.Kind != relay.RecProc {
			rest = append(rest, in)
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := inputs[0].At
	clock := vclock.New(start)
	logRoots, _ := storefeed.Split(watcherRoots(roots))
	w, err := watcher.New(watcher.Config{
		Roots:        logRoots,
		PollInterval: 20 * time.Millisecond,
	}, opt.Log)
	if err != nil {
		return nil, err
	}
	cfg := opt.Config
	cfg.Roots = rootList
	r := relay.New(cfg, clock, w, opt.Log)
	if opt.RecordedTimers {
		r.ReplayTimers()
	}
	// What the recorded relay learnt of processes, not this machine's /proc.
	r.SetProcFacts(newFacts(inputs))
	for _, in := range inputs {
		if in.Kind == relay.RecRestore {
			r.Restore(in.Payload) // before any line, as when it was recorded
		}
	}
	clock.Settle = func() { r.Status(ctx) }
	runErr := make(chan error, 2)
	go func() { runErr <- r.Run(ctx) }()
	go func() { runErr <- w.Run(ctx) }()
	stores := storeLines{roots: roots, parsers: map[string]parsers.Parser{}}
	for _, in := range storeBoot {
		r.Log(stores.line(in)) // before the pump can say the history is complete
	}
	go ingest.Pump(ctx, w, r, ingest.Options{Raw: true, Line: retried(roots, inputs)})
	sub, err := r.Subscribe(ctx)
	if err != nil {
		return nil, err
	}
	select {
	case <-w.Ready():
	case <-time.After(opt.Wait):
		return nil, fmt.Errorf("%w: bootstrap", ErrStalled)
	}
	// The pump tells the relay; wait until it has.
	if _, err := r.Status(ctx); err != nil {
		return nil, err
	}

	var timeline []Entry
	drain := func() error {
		if _, err := r.Status(ctx); err != nil {
			return err
		}
		for {
			select {
			case ev, ok := <-sub.C():
				if !ok {
					return fmt.Errorf("replay: subscription ended: %s", sub.Err())
				}
				if ev.Snapshot {
					continue
				}
				timeline = append(timeline, Entry{Seq: ev.Seq, At: ev.Since, Offset: ev.Since.Sub(start).Milliseconds(),
					Session: ev.Session, Agent: ev.Agent, Tab: ev.Tab, State: ev.State, Reason: ev.Reason,
					Detail: ev.Detail, Title: ev.Title, Source: ev.Source, Rule: ev.Rule})
			default:
				if lost := sub.Resync(); len(lost) > 0 {
					// A timeline must have every change, not the latest of each.
					return fmt.Errorf("replay: subscriber fell behind (%d changes coalesced); raise the backlog", len(lost))
				}
				return nil
			}
		}
	}
	if err := drain(); err != nil {
		return nil, err
	}
	for _, in := range rest {
		clock.AdvanceTo(in.At)
		if err := drain(); err != nil {
			return nil, err
		}
		if err := apply(ctx, r, w, &stores, in, opt.Wait); err != nil {
			return nil, err
		}
		if err := drain(); err != nil {
			return nil, err
		}
	}
	clock.AdvanceTo(clock.Now().Add(opt.Tail))
	if err := drain(); err != nil {
		return nil, err
	}
	return timeline, nil
}

func apply(ctx context.Context, r *relay.Relay, w *watcher.Watcher, stores *storeLines, in Input, wait time.Duration) error {
	roots := stores.roots
	switch in.Kind {
	case relay.RecLog:
		if isStore(in.Agent) {
			l := stores.line(in)
			r.Log(l)
			if _, err := r.LogOffset(ctx, l.Path); err != nil { // the relay took it
				return err
			}
			return nil
		}
		if err := appendTo(roots, in); err != nil {
			return err
		}
		path := filepath.Join(roots[in.Agent], in.Rel)
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		deadline := time.Now().Add(wait)
		for {
			// Hurry a file the watcher already follows; a new one is left to
			// discovery (poking an unknown file would follow it as history).
			if _, known := w.Position(path); known {
				w.Poke(path)
			}
			off, err := r.LogOffset(ctx, path)
			if err != nil {
				return err
			}
			if off >= st.Size() {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%w: %s up to byte %d (got %d)", ErrStalled, in.Rel, st.Size(), off)
			}
			time.Sleep(2 * time.Millisecond)
		}
	case relay.RecHook:
		// A hook the live daemon rejected is rejected again; that is part
		// of the recording, not a replay failure.
		_ = r.HookFrom(ctx, in.HookAgent, in.Tab, relay.AgentProcess{Pid: in.Pid, Start: in.Start}, relocate(in.Payload, in.HookAgent, roots))
	case relay.RecKey:
		_ = r.Key(ctx, in.Tab, in.Key, in.Pressed)
	case relay.RecAck:
		_ = r.AckHost(ctx, in.Host, in.Session)
	case relay.RecRemote:
		if in.Remote != nil {
			r.Remote(*in.Remote)
		}
	case relay.RecTabClosed:
		_, _ = r.TabClosed(ctx, in.Tab)
	case relay.RecGone:
		_ = r.Gone(ctx, in.Session)
	case relay.RecTabProcess:
		_ = r.TabProcessStarted(ctx, in.Tab, in.Pid, in.Start)
	case relay.RecRegistry:
		if in.Registry != nil {
			r.RegistryEntryStarted(*in.Registry, in.Start)
		}
	case relay.RecRegistryRemoved:
		r.RegistryRemoved(in.Path)
	case relay.RecRegistryListed:
		r.RegistryListed()
	case relay.RecExit:
		r.ProcessExited(in.Pid, in.Start)
	case relay.RecTimer:
		r.RunTimer(in.Timer, in.TimerName)
	case relay.RecOversized:
		a := agentOf(in.Path)
		r.Oversized(relay.LogLine{Path: filepath.Join(roots[a], LayoutPath(a, in.Path)), Gen: int(in.Gen),
			End: in.End, Line: in.Line}, in.N)
	}
	return nil
}

// isStore reports whether the agent's log is a database (parsers.Store).
func isStore(a parsers.Agent) bool {
	s := parsers.Lookup(a)
	return s != nil && s.Store != nil
}

// storeLines hands a database agent's recorded rows to the relay as its
// feed would (watcher/storefeed): parsed by the agent's parser, one per
// database, in the order they were recorded.
type storeLines struct {
	roots   map[parsers.Agent]string
	parsers map[string]parsers.Parser
}

func (s *storeLines) line(in Input) relay.LogLine {
	path := filepath.Join(s.roots[in.Agent], filepath.Base(in.Rel))
	p := s.parsers[path]
	if p == nil {
		p = parsers.New(in.Agent)
		s.parsers[path] = p
	}
	ev, err := p.Parse(in.Data)
	ev.SetRetry(in.Retry)
	return relay.LogLine{Path: path, Session: in.Session, Agent: in.Agent, Subagent: in.Subagent,
		Offset: in.Offset, End: in.End, Evidence: ev, Malformed: err != nil, Bootstrap: in.Bootstrap, BootMore: in.BootMore}
}

// relocate points a hook's transcript_path at the replayed copy of the file,
// so the relay follows the replay's log, not the original.
func relocate(payload []byte, agent string, roots map[parsers.Agent]string) []byte {
	var m map[string]any
	if json.Unmarshal(payload, &m) != nil {
		return payload
	}
	path, _ := m["transcript_path"].(string)
	if path == "" {
		return payload
	}
	a := parsers.Agent(agent)
	if parsers.Lookup(a) == nil {
		a = agentOf(path)
	}
	m["transcript_path"] = filepath.Join(roots[a], LayoutPath(a, path))
	b, err := json.Marshal(m)
	if err != nil {
		return payload
	}
	return b
}

// agentOf is the agent a log's path belongs to: the one whose layout claims
// it, else the one a hook naming it would be taken for.
func agentOf(path string) parsers.Agent {
	for _, s := range parsers.All() {
		if s.Layout.Claims != nil && s.Layout.Claims(path) {
			return s.Name
		}
	}
	return parsers.HookAgent(&parsers.Hook{TranscriptPath: path})
}

// watcherRoots is one root per agent, as the watcher takes them.
func watcherRoots(roots map[parsers.Agent]string) map[parsers.Agent][]string {
	out := map[parsers.Agent][]string{}
	for a, r := range roots {
		out[a] = []string{r}
	}
	return out
}

func appendTo(roots map[parsers.Agent]string, in Input) error {
	root, ok := roots[in.Agent]
	if !ok || in.Rel == "" || strings.Contains(in.Rel, "..") {
		return fmt.Errorf("replay: log input for agent %q at %q cannot be placed", in.Agent, in.Rel)
	}
	path := filepath.Join(root, in.Rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(in.Data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// LayoutPath is where a log belongs under its agent's root: the most last
// path components that its agent's Layout takes for a log (Claude
// <slug>/<id>.jsonl or <slug>/<id>/subagents/agent-*.jsonl, Codex
// YYYY/MM/DD/rollout-*.jsonl); a path too short for any is placed in
// directories named "replay" where the layout has them.
func LayoutPath(agent parsers.Agent, path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	base := parts[len(parts)-1]
	s := parsers.Lookup(agent)
	if s == nil || s.Layout.WantFile == nil || s.Layout.WantDir == nil {
		return filepath.Join(parts[max(0, len(parts)-2):]...)
	}
	l := s.Layout
	const deepest = 8
	for keep := min(len(parts), deepest); keep >= 1; keep-- {
		ok := l.WantFile(keep, base)
		for i := 1; ok && i < keep; i++ {
			ok = l.WantDir(i, parts[len(parts)-keep+i-1])
		}
		if ok {
			return filepath.Join(parts[len(parts)-keep:]...)
		}
	}
	for keep := 1; keep <= deepest; keep++ {
		if l.WantFile(keep, base) {
			dirs := make([]string, 0, keep)
			for i := 1; i < keep; i++ {
				dirs = append(dirs, "replay")
			}
			return filepath.Join(append(dirs, base)...)
		}
	}
	return base
}

// retried gives each replayed line the retry decision the recording holds
// (Evidence.Retry): the agent's settings made it where it was recorded,
// and this machine's may say otherwise. Lines are told by file and bytes.
func retried(roots map[parsers.Agent]string, inputs []Input) func(l *relay.LogLine) {
	yes := map[string]bool{}
	for _, in := range inputs {
		if in.Kind == relay.RecLog && in.Retry {
			yes[filepath.Join(roots[in.Agent], in.Rel)+"\x00"+strings.TrimSuffix(string(in.Data), "\n")] = true
		}
	}
	return func(l *relay.LogLine) {
		if l.Evidence.Retry || l.Evidence.End == parsers.EndAPIError {
			l.Evidence.SetRetry(yes[l.Path+"\x00"+strings.TrimRight(string(l.Raw), "\r\n")])
		}
	}
}
