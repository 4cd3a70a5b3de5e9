package tmux

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
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
// invocation. Nothing changed, nothing runs: no timer, no polling. With
// Dial, it also holds the daemon's focus on the panes the clients show.
type Follower struct {
	Server    Server
	ServerPid int // the tmux server's pid: its panes' tabs carry it
	Log       zerolog.Logger
	// Flushed, if set, is called after each batch that ran tmux.
	Flushed func()
	// Dial, if set, connects to the daemon: the follower then holds a
	// focus on the tab of each pane an attached client shows, one
	// connection each (a focus holds while its connection stays open, and
	// takes one tab), sent again whenever the change stream reconnects.
	Dial func(ctx context.Context) (*client.Client, error)
	// Ack, if set, acknowledges a finished turn (on its host for a remote
	// session): the follower calls it for each done session in a pane a
	// client comes to.
	Ack func(ctx context.Context, ev wire.Event) error

	board   *Board
	pending int               // snapshot events still to come before a batch is complete
	dots    map[string]string // window → the dot set on it
	summary *string           // the summary set, nil before the first
	calls   atomic.Int64

	shown   []string                    // the panes attached clients show, sorted
	listed  bool                        // shown holds a listing
	refocus bool                        // the change stream (re)connected or was lost
	focus   map[focusKey]*client.Client // the connection holding each focus
}

// focusKey is a focus the follower holds: a shown pane's tab (host ""),
// or a remote session's bound to one (the notifier keys a remote's tab by
// its host: a focus on the local tab alone leaves it alerting).
type focusKey struct{ host, tab string }

// Calls counts the tmux invocations the follower made.
func (f *Follower) Calls() int64 { return f.calls.Load() }

// Run follows ups until ctx ends, ups closes, or the tmux server is gone
// (ErrNoServer). With Dial set it also follows which panes the clients
// show (Server.WatchShown).
func (f *Follower) Run(ctx context.Context, ups <-chan client.Update) error {
	f.board = NewBoard()
	f.focus = map[focusKey]*client.Client{}
	defer f.dropFocus()
	shown := make(chan []string, 1)
	watchErr := make(chan error, 1)
	if f.Dial != nil {
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() { watchErr <- f.watch(wctx, shown) }()
	}
	// recount wakes the follower when the summary changes with no event:
	// a session leaving status's default view (Board.Recount).
	var recount <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-recount:
			recount = nil
		case panes := <-shown:
			f.enter(ctx, panes)
			continue
		case err := <-watchErr:
			if errors.Is(err, ErrNoServer) {
				return err
			}
			continue
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
		if f.refocus {
			// A new connection to the daemon: the old focuses died with
			// the old one (or the daemon restarted without them).
			f.refocus = false
			f.dropFocus()
		}
		f.holdFocus(ctx) // again, and a remote session may have come to a shown pane
		if f.pending > 0 {
			continue // a snapshot half read would show sessions missing
		}
		now := time.Now()
		if at := f.board.Recount(now); !at.IsZero() {
			recount = time.After(at.Sub(now) + time.Second)
		}
		if err := f.flush(ctx, now); err != nil {
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

// watch runs Server.WatchShown until ctx ends or the server is gone,
// again after any other failure (with backoff: 1 s doubling to a minute),
// handing on only the latest list.
func (f *Follower) watch(ctx context.Context, shown chan []string) error {
	delay := time.Second
	for {
		err := f.Server.WatchShown(ctx, func(panes []string) {
			select { // a list not yet taken is stale now
			case <-shown:
			default:
			}
			shown <- panes
		})
		if err == nil || errors.Is(err, ErrNoServer) || ctx.Err() != nil {
			return err
		}
		f.Log.Warn().Err(err).Dur("retry_in", delay).Msg("cannot follow which panes tmux shows")
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Minute)
	}
}

// enter takes a new list of the panes the clients show: it holds their
// focus and acknowledges the finished turns in the panes just come to. The
// first list, the follower's start, is taken as it is: the configuration
// was sourced (tmux started, install ran), nobody came to a pane, and an
// acknowledgement says the person saw the turn.
func (f *Follower) enter(ctx context.Context, panes []string) {
	prev, first := f.shown, !f.listed
	f.shown, f.listed = panes, true
	f.holdFocus(ctx)
	if entered := Entered(prev, panes); !first && f.Ack != nil && len(entered) > 0 {
		sessions := f.board.Sessions()
		pane := TabPane(f.ServerPid)
		if f.mapsProcesses() {
			list, err := f.Server.Panes(ctx)
			f.calls.Add(1)
			if err != nil {
				f.Log.Warn().Err(err).Msg("panes not listed; finished turns found by tab only")
			}
			pane = ServerPane(f.ServerPid, list, proctree.Parent)
		}
		for _, ev := range FinishedIn(sessions, pane, entered) {
			if err := f.Ack(ctx, ev); err != nil {
				f.Log.Warn().Err(err).Str("session", ev.Session).Str("host", ev.Host).Msg("finished turn not acknowledged")
			}
		}
	}
}

// mapsProcesses says whether a session may be in a pane through its
// process rather than its tab (ServerPane needs the pane list then).
func (f *Follower) mapsProcesses() bool {
	tab := TabPane(f.ServerPid)
	for _, ev := range f.board.sessions {
		if tab(ev) == "" && ev.Host == "" && ev.Pid > 0 && ev.Live {
			return true
		}
	}
	return false
}

// focusTimeout bounds the dial and the exchange of one focus.
const focusTimeout = 5 * time.Second

// holdFocus holds a focus on the tab of each shown pane, and on each
// remote session's bound to one, and lets go of the others: the new ones
// first, so no moment is without one. Nothing changed, nothing is sent.
func (f *Follower) holdFocus(ctx context.Context) {
	if f.Dial == nil {
		return
	}
	want := map[focusKey]bool{}
	for _, p := range f.shown {
		want[focusKey{"", ServerTab(f.ServerPid, p)}] = true
	}
	tabPane := TabPane(f.ServerPid)
	for _, ev := range f.board.sessions {
		if p := tabPane(ev); ev.Host != "" && p != "" {
			if _, shown := slices.BinarySearch(f.shown, p); shown {
				want[focusKey{ev.Host, ev.Tab}] = true
			}
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(want), func(a, b focusKey) int {
		return strings.Compare(a.host+"\x00"+a.tab, b.host+"\x00"+b.tab)
	}) {
		if f.focus[k] != nil {
			continue
		}
		c, err := f.sendFocus(ctx, k)
		if err != nil {
			// No daemon: the stream's reconnection brings the focus back.
			f.Log.Debug().Err(err).Str("tab", k.tab).Str("host", k.host).Msg("focus not held")
			continue
		}
		f.focus[k] = c
	}
	for k, c := range f.focus {
		if !want[k] {
			c.Close()
			delete(f.focus, k)
		}
	}
}

func (f *Follower) sendFocus(ctx context.Context, k focusKey) (*client.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, focusTimeout)
	defer cancel()
	c, err := f.Dial(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := c.Do(ctx, wire.Request{Op: wire.OpFocus, Host: k.host, Tab: k.tab}); err != nil {
		c.Close()
		return nil, fmt.Errorf("focus %s %s: %w", k.host, k.tab, err)
	}
	return c, nil
}

// dropFocus closes every focus connection: the daemon forgets them.
func (f *Follower) dropFocus() {
	for k, c := range f.focus {
		c.Close()
		delete(f.focus, k)
	}
}

func (f *Follower) take(u client.Update) {
	switch u.Kind {
	case client.UpdateConnected:
		f.refocus = true
		f.board.Reset()
		f.pending = max(u.Snapshot, 0)
	case client.UpdateLost:
		// No daemon, no dots: a dot it can no longer update would lie.
		f.refocus = true
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
func (f *Follower) flush(ctx context.Context, now time.Time) error {
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
	sum := f.board.Summary(now)
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
