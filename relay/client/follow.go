package client

import (
	"context"
	"errors"
	"time"

	"github.com/logwatch/logwatch/relay/wire"
)

// UpdateKind tells what an Update carries.
type UpdateKind int

const (
	// UpdateEvent carries one Event of the stream.
	UpdateEvent UpdateKind = iota
	// UpdateConnected starts a (re)connection: the snapshot events that
	// follow replace everything known before (sessions absent from it are
	// gone). Snapshot says how many follow.
	UpdateConnected
	// UpdateLost says the stream ended (the daemon stopped or restarted, or
	// the connection broke; a slow subscriber is never dropped, its changes
	// come coalesced with Resync set); Err says why. Follow is reconnecting
	// with backoff.
	UpdateLost
)

// Update is one item of a followed stream.
type Update struct {
	Kind     UpdateKind
	Event    wire.Event // UpdateEvent
	Snapshot int        // UpdateConnected: snapshot events that follow, -1 if the daemon did not say
	Err      error      // UpdateLost
}

// FollowOptions tune Follow's reconnection backoff.
type FollowOptions struct {
	MinBackoff time.Duration // first retry delay (default 100 ms)
	MaxBackoff time.Duration // the delay doubles up to this (default 5 s)
}

// Follow subscribes to the daemon on socket and keeps the subscription
// alive: when the stream ends for any reason other than ctx (a daemon
// restart, a stream error), it reports UpdateLost,
// retries with exponential backoff, and resumes with UpdateConnected and a
// fresh snapshot. The first connection is not retried: its error (e.g.
// ErrNoDaemon) is returned, so a command fails fast when nothing runs. The
// channel closes when ctx ends.
func Follow(ctx context.Context, socket string, opt FollowOptions) (<-chan Update, error) {
	if opt.MinBackoff <= 0 {
		opt.MinBackoff = 100 * time.Millisecond
	}
	if opt.MaxBackoff < opt.MinBackoff {
		opt.MaxBackoff = max(5*time.Second, opt.MinBackoff)
	}
	c, evs, wait, err := followDial(ctx, socket)
	if err != nil {
		return nil, err
	}
	out := make(chan Update, 64)
	go func() {
		defer close(out)
		send := func(u Update) bool {
			select {
			case out <- u:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for {
			if !send(Update{Kind: UpdateConnected, Snapshot: c.Snapshot()}) {
				c.Close()
				return
			}
			for ev := range evs {
				if !send(Update{Kind: UpdateEvent, Event: ev}) {
					break
				}
			}
			err := wait()
			c.Close()
			if ctx.Err() != nil {
				return
			}
			if err == nil {
				err = errors.New("stream ended")
			}
			if !send(Update{Kind: UpdateLost, Err: err}) {
				return
			}
			delay := opt.MinBackoff
			for {
				select {
				case <-ctx.Done():
					return
				case <-time.After(delay):
				}
				if c, evs, wait, err = followDial(ctx, socket); err == nil {
					break
				}
				delay = min(2*delay, opt.MaxBackoff)
			}
		}
	}()
	return out, nil
}

// followDial connects and subscribes, with a short bound on the handshake.
func followDial(ctx context.Context, socket string) (*Client, <-chan wire.Event, func() error, error) {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	c, err := Dial(dctx, socket)
	cancel()
	if err != nil {
		return nil, nil, nil, err
	}
	// The handshake gets a deadline (a hung daemon must not stall a
	// reconnect); the stream itself lives until ctx ends.
	c.conn.SetDeadline(time.Now().Add(5 * time.Second))
	evs, wait, err := c.Subscribe(ctx)
	if err != nil {
		c.Close()
		return nil, nil, nil, err
	}
	c.conn.SetDeadline(time.Time{})
	if ctx.Err() != nil {
		c.conn.SetReadDeadline(time.Now()) // Subscribe's own unblocking may have run before the reset
	}
	return c, evs, wait, nil
}
