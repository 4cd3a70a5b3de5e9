package tmux

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/relay/client"
)

// The tmux user options the follower sets: a window's dot, and the
// server's summary.
const (
	DotOption     = "@logwatch_dot"
	SummaryOption = "@logwatch_summary"
)

// Follower keeps a tmux server's options in step with the daemon's
// changes: it blocks on the change stream and, per batch of changes
// already queued (a burst is one batch), sets what changed in one tmux
// invocation. Nothing changed, nothing runs: no timer, no polling.
type Follower struct {
	Server    Server
	ServerPid int // the tmux server's pid: its panes' tabs carry it
	Log       zerolog.Logger
	// Flushed, if set, is called after each batch that ran tmux.
	Flushed func()

	board   *Board
	pending int               // snapshot events still to come before a batch is complete
	dots    map[string]string // window → the dot set on it
	summary *string           // the summary set, nil before the first
	calls   atomic.Int64
}

// Calls counts the tmux invocations the follower made.
func (f *Follower) Calls() int64 { return f.calls.Load() }

// Run follows ups until ctx ends, ups closes, or the tmux server is gone
// (ErrNoServer).
func (f *Follower) Run(ctx context.Context, ups <-chan client.Update) error {
	f.board = NewBoard()
	for {
		select {
		case <-ctx.Done():
			return nil
		case u, ok := <-ups:
			if !ok {
				return nil
			}
			f.take(u)
		}
	drain: // coalesce: everything already queued is one batch
		for {
			select {
			case u, ok := <-ups:
				if !ok {
					break drain
				}
				f.take(u)
			default:
				break drain
			}
		}
		if f.pending > 0 {
			continue // a snapshot half read would show sessions missing
		}
		if err := f.flush(ctx); err != nil {
			if errors.Is(err, ErrNoServer) {
				return err
			}
			if ctx.Err() != nil {
				return nil
			}
			f.Log.Warn().Err(err).Msg("tmux options not set; all set again on the next change")
			f.dots, f.summary = nil, nil
		}
	}
}

func (f *Follower) take(u client.Update) {
	switch u.Kind {
	case client.UpdateConnected:
		f.board.Reset()
		f.pending = max(u.Snapshot, 0)
	case client.UpdateLost:
		// No daemon, no dots: a dot it can no longer update would lie.
		f.board.Reset()
		f.pending = 0
		f.Log.Info().Err(u.Err).Msg("daemon stream lost; reconnecting")
	case client.UpdateEvent:
		f.board.Apply(u.Event)
		if u.Event.Snapshot && f.pending > 0 {
			f.pending--
		}
	}
}

// flush sets the options that differ from what was set last, in one tmux
// invocation (none when nothing differs).
func (f *Follower) flush(ctx context.Context) error {
	tab := TabPane(f.ServerPid)
	mapped := false
	for _, ev := range f.board.sessions {
		if tab(ev) != "" || ev.Host == "" && ev.Pid > 0 {
			mapped = true
			break
		}
	}
	windowOf := map[string]string{}
	live := map[string]bool{}
	var panes []PaneInfo
	if mapped || len(f.dots) > 0 {
		var err error
		panes, err = f.Server.Panes(ctx)
		f.calls.Add(1)
		if err != nil {
			return err
		}
		for _, p := range panes {
			windowOf[p.ID] = p.Window
			live[p.Window] = true
		}
	}
	pane := ServerPane(f.ServerPid, panes, proctree.Parent)
	want := f.board.Windows(pane, windowOf)
	var cmds [][]string
	for _, w := range slices.Sorted(maps.Keys(want)) {
		if f.dots[w] != want[w] {
			cmds = append(cmds, []string{"set-option", "-w", "-t", w, DotOption, want[w]})
		}
	}
	for _, w := range slices.Sorted(maps.Keys(f.dots)) {
		if _, ok := want[w]; !ok && live[w] {
			cmds = append(cmds, []string{"set-option", "-wu", "-t", w, DotOption})
		}
	}
	sum := f.board.Summary()
	if f.summary == nil || *f.summary != sum {
		cmds = append(cmds, []string{"set-option", "-g", SummaryOption, sum})
	}
	if len(cmds) == 0 {
		return nil
	}
	_, err := f.Server.Run(ctx, cmds...)
	f.calls.Add(1)
	if err != nil {
		return err
	}
	f.dots, f.summary = want, &sum
	f.Log.Debug().Int("commands", len(cmds)).Msg("tmux options set")
	if f.Flushed != nil {
		f.Flushed()
	}
	return nil
}
