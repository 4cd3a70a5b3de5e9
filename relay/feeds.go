package relay

import (
	"encoding/json"
	"runtime"
	"time"

	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/relay/wire"
)

// The edge's feeds: what the watcher, the registry reader and the pidfds
// deliver, and the checkpoint's save and restore, each recorded where it
// enters and run as one step of the machine.

// Log delivers one log line from the watcher. It blocks while the relay is
// busy: the watcher slows down instead of losing lines.
func (r *Relay) Log(l LogLine) {
	l.Session = wire.BoundID(l.Session) // where a feed's id enters: OpenCode's are not bounded
	r.enqueue(func() {
		if r.rec != nil { // the hot path: build nothing unless recording
			r.record(RecordLine{Kind: RecLog, Path: l.Path, Session: l.Session, Agent: string(l.Agent), Subagent: l.Subagent,
				Offset: l.Offset, End: l.End, Line: l.Line, Raw: string(l.Raw), Bootstrap: l.Bootstrap, BootMore: l.BootMore, Replay: l.Replay && r.m.store.restored,
				Retry: l.Evidence.Retry})
		}
		r.m.logLine(l)
	})
}

// Oversized counts lines the watcher skipped for their length; the file's
// position moves past them (l.Gen, l.End, l.Line).
func (r *Relay) Oversized(l LogLine, n int) {
	r.enqueue(func() {
		if r.rec != nil {
			r.record(RecordLine{Kind: RecOversized, Path: l.Path, Gen: l.Gen, End: l.End, Line: l.Line, N: n})
		}
		r.m.oversized(l, n)
	})
}

// BootstrapDone tells the relay the watcher has read every existing log's
// recent history: the folded states are published once, flagged bootstrap,
// and evidence from now on is live.
func (r *Relay) BootstrapDone() {
	r.enqueue(func() {
		r.record(RecordLine{Kind: RecBootstrapDone})
		r.m.bootstrapDone()
		select {
		case <-r.loop.bootDone:
		default:
			close(r.loop.bootDone)
		}
	})
}

// Booted is closed once BootstrapDone has been applied: every existing
// log's history is folded and published, and start-up's garbage is behind.
func (r *Relay) Booted() <-chan struct{} { return r.loop.bootDone }

// RegistryEntry takes a registry file created or rewritten.
func (r *Relay) RegistryEntry(e RegistryProcess) {
	// The process's identity is read here, off the relay goroutine.
	start := e.ProcStart
	if runtime.GOOS != "linux" || start == 0 {
		// Claude's procStart is /proc's starttime on Linux (measured);
		// elsewhere its unit is unknown: the start seen now identifies it.
		start, _ = proctree.StartTime(e.Pid)
	} else if cur, err := proctree.StartTime(e.Pid); err == nil && cur != start && startedWhenSaid(e) {
		// Another procStart, but the process started when the file says it
		// did (startedAt): the unit changed, not the process. A reused pid
		// starts long after the entry's own start.
		start = cur
	}
	r.RegistryEntryStarted(e, start)
}

// RegistryEntryStarted is RegistryEntry with the process's start time read
// already (a replay feeds the recorded entries).
func (r *Relay) RegistryEntryStarted(e RegistryProcess, start uint64) {
	e.SessionID = wire.BoundID(e.SessionID)
	r.enqueue(func() {
		if r.rec != nil {
			r.record(RecordLine{Kind: RecRegistry, Registry: &e, Start: start})
		}
		r.m.regEntry(e, start)
	})
}

// startSlack is how far the agent's own startedAt may lag its process's
// start (Claude Code stamps it once Node is up: under a second, measured).
const startSlack = 10 * time.Second

// startedWhenSaid reports whether the process with e's pid started when e
// says the agent did.
func startedWhenSaid(e RegistryProcess) bool {
	t, err := proctree.Started(e.Pid)
	if err != nil || e.StartedAt <= 0 {
		return false
	}
	d := time.UnixMilli(e.StartedAt).Sub(t)
	return d > -time.Second && d < startSlack
}

// RegistryRemoved takes a registry file's removal: a goodbye once its
// process exits (regRemoved).
func (r *Relay) RegistryRemoved(path string) {
	r.enqueue(func() {
		r.record(RecordLine{Kind: RecRegistryRemoved, Path: path})
		r.m.regRemoved(path)
	})
}

// RegistryListed tells the relay that every registry file present at
// start-up has been delivered: a process restored from the checkpoint whose
// file is not among them removed it while the daemon was down.
func (r *Relay) RegistryListed() {
	r.enqueue(func() {
		r.record(RecordLine{Kind: RecRegistryListed})
		r.m.regListed()
	})
}

// ProcessExited tells the relay that a watched process exited, as its pidfd
// does live (a replay feeds the recorded exits).
func (r *Relay) ProcessExited(pid int, start uint64) {
	r.enqueue(func() {
		r.record(RecordLine{Kind: RecExit, Pid: pid, Start: start})
		r.m.regExited(pid, start)
	})
}

// Save hands the relay's state, once it has processed everything enqueued
// before the call, to done (on the relay goroutine: done must not block).
func (r *Relay) Save(done func(Saved)) { r.save(true, done) }

// SaveChanged is Save that hands over no state and no marks (nil) when
// nothing changed since the last Save: an idle daemon's periodic
// checkpoint is not rewritten then, and encoding 10 000 sessions every 5 s
// anyway grew its RSS from 25 to 45 MiB within a minute.
func (r *Relay) SaveChanged(done func(Saved)) { r.save(false, done) }

func (r *Relay) save(always bool, done func(Saved)) {
	r.enqueue(func() {
		// Checkpoints come every few seconds: the sessions nothing touched
		// since the last one are at rest.
		defer r.m.freezeIdle(false)
		done(r.m.checkpoint(always))
	})
}

// Restore loads a state Save produced, before any log line of this run.
// Replay lines that follow are then already part of it and skipped. A state
// it cannot read is reported and ignored: the logs are folded afresh.
func (r *Relay) Restore(state []byte) {
	r.enqueue(func() {
		defer r.loop.restoreOnce.Do(func() { close(r.loop.restoredCh) })
		if len(state) == 0 {
			return
		}
		r.record(RecordLine{Kind: RecRestore, State: append(json.RawMessage(nil), state...)})
		if err := r.m.restore(state); err != nil {
			r.log.Warn().Err(err).Msg("saved state unreadable; rebuilding it from the logs")
			return
		}
		r.log.Info().Int("sessions", r.m.store.count()).Int("tabs", len(r.m.bind.tabs)).Msg("state restored")
	})
}

// Restored is closed once Restore has run: requests served before it would
// be overwritten by the older saved state.
func (r *Relay) Restored() <-chan struct{} { return r.loop.restoredCh }

// Remote takes what a remote's link reports (package remote): its state,
// the remote daemon's snapshot and its changes (remote.go). It returns
// once they are folded: a remote that sends faster than the relay folds
// waits at its link (and its ssh), and what it sent is never queued here
// beyond one update.
func (r *Relay) Remote(u RemoteUpdate) {
	folded := make(chan struct{})
	r.enqueue(func() {
		defer close(folded)
		if r.rec != nil {
			r.record(RecordLine{Kind: RecRemote, Remote: &u})
		}
		r.m.remote(u)
	})
	select {
	case <-folded:
	case <-r.loop.done:
	}
}
