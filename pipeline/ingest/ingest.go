// Package ingest connects the log watcher's output to the relay: the one
// place that knows both, used by the daemon and by replay.
package ingest

import (
	"context"
	"io"
	"os"

	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/watcher"
)

// Source is what Pump needs from the watcher.
type Source interface {
	Records() <-chan watcher.Record
	Ready() <-chan struct{}
}

// Options tune a Pump.
type Options struct {
	// Raw reads each line's bytes back from its file for the relay's
	// recorder (a recording must hold the log bytes to replay them).
	Raw bool
	// Stores, when set, is a second source (storefeed: the agents' session
	// databases) whose records go to the relay beside the watcher's. They
	// start once the watcher's first record (its saved state) is handed
	// over, and the history is complete once both are ready.
	Stores Source
	// Line, when set, may amend each line before the relay takes it (a
	// replay: the recorded Evidence.Retry).
	Line func(l *relay.LogLine)
}

// Pump hands the watcher's records (and opt.Stores') to the relay, in
// order, until the watcher closes its output or ctx ends (with
// watcher.Config.SaveState, give it a context that outlives the watcher's:
// the final checkpoint passes through it). The relay's inbox applies
// back-pressure: a busy relay slows the watcher, nothing is dropped. When
// the watcher has bootstrapped every file it found at start, the relay is
// told its history is complete.
func Pump(ctx context.Context, src Source, r *relay.Relay, opt Options) {
	ready := src.Ready()
	files := map[string]*os.File{}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	records := src.Records()
	// The stores' records and readiness, once the watcher's first record
	// (its saved state, with SaveState) is handed over or it is ready.
	var stores <-chan watcher.Record
	var storesReady <-chan struct{}
	started := opt.Stores == nil
	start := func() {
		if !started {
			started = true
			stores, storesReady = opt.Stores.Records(), opt.Stores.Ready()
		}
	}
	waiting := 1 // sources not ready yet
	if opt.Stores != nil {
		waiting++
	}
	isReady := func() {
		if waiting--; waiting == 0 {
			r.BootstrapDone()
		}
	}
	// drain hands over what a source sent before it said it was ready
	// (all of it is in the channel now: select picks at random between a
	// source's records and its readiness); false when the channel closed.
	drain := func(ch <-chan watcher.Record) bool {
		ok := true
		for n := len(ch); n > 0 && ok; n-- {
			var rec watcher.Record
			if rec, ok = <-ch; ok {
				handle(r, files, rec, opt)
			}
		}
		isReady()
		return ok
	}
	for {
		select {
		case <-ready:
			if !drain(records) {
				return
			}
			ready = nil
			start()
		case <-storesReady:
			if !drain(stores) {
				stores = nil // a feed that stopped holds nothing up
			}
			storesReady = nil
		case rec, ok := <-records:
			if !ok {
				return
			}
			handle(r, files, rec, opt)
			start()
		case rec, ok := <-stores:
			if !ok {
				// A feed that stopped holds nothing up.
				if storesReady != nil {
					isReady()
				}
				stores, storesReady = nil, nil
				continue
			}
			handle(r, files, rec, opt)
		case <-ctx.Done():
			return
		}
	}
}

// handle hands one record to the relay.
func handle(r *relay.Relay, files map[string]*os.File, rec watcher.Record, opt Options) {
	switch rec.Kind {
	case watcher.KindLine:
		l := relay.LogLine{
			Path: rec.Path, Session: rec.Session, Agent: rec.Agent, Subagent: rec.Subagent,
			Offset: rec.Offset, End: rec.End, Line: rec.Line, Evidence: rec.Evidence,
			Malformed: rec.Malformed, Bootstrap: rec.Bootstrap, BootMore: rec.BootMore, Replay: rec.Replay, Gen: rec.Gen,
		}
		if opt.Raw {
			l.Raw = rec.Raw
			if l.Raw == nil {
				l.Raw = readRaw(files, rec)
			}
		}
		if opt.Line != nil {
			opt.Line(&l)
		}
		r.Log(l)
	case watcher.KindOversized:
		r.Oversized(relay.LogLine{Path: rec.Path, Gen: rec.Gen, End: rec.End, Line: rec.Line}, rec.Count)
	case watcher.KindReset, watcher.KindDeleted:
		if f := files[rec.Path]; f != nil {
			f.Close()
			delete(files, rec.Path)
		}
	case watcher.KindState:
		r.Restore(rec.State)
	case watcher.KindCheckpoint:
		c := rec.Checkpoint
		save := r.SaveChanged
		if c.StateWanted() {
			save = r.Save
		}
		save(func(s relay.Saved) {
			marks := make(map[string]watcher.Mark, len(s.Marks))
			for p, m := range s.Marks {
				marks[p] = watcher.Mark{Gen: m.Gen, End: m.End, Line: m.Line}
			}
			c.Commit(s.State, marks, s.Changed)
		})
	}
}

// readRaw reads a line's bytes (without its newline) back from the file.
func readRaw(files map[string]*os.File, rec watcher.Record) []byte {
	f := files[rec.Path]
	if f == nil {
		var err error
		// A FIFO renamed over the log must not block the pump.
		if f, err = safeopen.Open(rec.Path); err != nil {
			return nil
		}
		files[rec.Path] = f
	}
	n := rec.End - rec.Offset - 1
	if n < 0 {
		return nil
	}
	b := make([]byte, n)
	if _, err := f.ReadAt(b, rec.Offset); err != nil && err != io.EOF {
		return nil
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}
