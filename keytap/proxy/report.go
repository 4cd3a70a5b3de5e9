package proxy

import (
	"context"
	"sync"
	"time"

	"github.com/logwatch/logwatch/keytap"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

// Per-report caps of ClientReporter: a key is only worth reporting while
// its confirmation window can still open.
const (
	keyTimeout    = 250 * time.Millisecond
	openedTimeout = 500 * time.Millisecond
	closedTimeout = 500 * time.Millisecond
)

// ClientReporter reports to the logwatch daemon over its socket. It connects
// on first use and again after any failure, so a daemon started or restarted
// later is picked up; while none runs, reports are dropped silently (a
// missing daemon must change nothing for the user, not even a message on
// the terminal).
type ClientReporter struct {
	socket string

	mu sync.Mutex
	c  *client.Client
	// Failures counts reports that did not reach the daemon.
	failures int
}

// NewClientReporter returns a reporter for the daemon at socket.
func NewClientReporter(socket string) *ClientReporter {
	return &ClientReporter{socket: socket}
}

// TabOpened reports the tab's command as process pid.
func (r *ClientReporter) TabOpened(tab string, pid int) {
	r.do(openedTimeout, func(ctx context.Context, c *client.Client) error { return c.TabOpened(ctx, tab, pid) })
}

// Key reports a press as wire.KeyEsc, wire.KeyCtrlC or wire.KeyEnter,
// with the tab's process (a daemon started after the tab opened learns it
// here).
func (r *ClientReporter) Key(tab string, pid int, p keytap.Press) {
	key := wire.KeyEsc
	switch p.Key {
	case keytap.CtrlC:
		key = wire.KeyCtrlC
	case keytap.Enter:
		key = wire.KeyEnter
	}
	r.do(keyTimeout, func(ctx context.Context, c *client.Client) error { return c.KeyPid(ctx, tab, pid, key, p.At) })
}

// TabClosed reports that the tab's command exited: its sessions end.
func (r *ClientReporter) TabClosed(tab string, pid int) {
	r.do(closedTimeout, func(ctx context.Context, c *client.Client) error {
		_, err := c.TabClosedPid(ctx, tab, pid)
		return err
	})
}

// Failures returns how many reports did not reach the daemon.
func (r *ClientReporter) Failures() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures
}

// Close closes the connection, if any.
func (r *ClientReporter) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.c == nil {
		return nil
	}
	err := r.c.Close()
	r.c = nil
	return err
}

// do runs one request within timeout. A failure drops the connection (after
// a timeout a late answer would be read as the next request's), and a failure
// on a reused connection is retried once on a fresh one: the daemon may have
// restarted since.
func (r *ClientReporter) do(timeout time.Duration, f func(context.Context, *client.Client) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		fresh := r.c == nil
		if fresh {
			c, err := client.Dial(ctx, r.socket)
			if err != nil {
				r.failures++
				return
			}
			r.c = c
		}
		err := f(ctx, r.c)
		if err == nil {
			return
		}
		r.c.Close()
		r.c = nil
		if fresh || ctx.Err() != nil {
			r.failures++
			return
		}
	}
}
