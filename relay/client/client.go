// Package client talks to a running logwatch daemon over its unix socket:
// the Go API for a host app, and what the logwatch CLI verbs use.
//
// The protocol is one JSON object per line each way (wire.Request in,
// wire.Response out); a subscription answers one Response and then streams
// wire.Event lines.
package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/logwatch/logwatch/relay/peercred"
	"github.com/logwatch/logwatch/relay/wire"
)

// ErrNoDaemon means nothing is listening on the socket.
var ErrNoDaemon = errors.New("the daemon is not running")

// Client is one connection to the daemon. It is not safe for concurrent use.
type Client struct {
	conn     net.Conn
	rd       *bufio.Reader
	broken   error         // set once an exchange failed; the connection is closed
	snapshot int           // after Subscribe: snapshot lines announced, -1 if not said
	first    time.Duration // SetAnswerTimeouts
	stall    time.Duration
}

// MaxAnswer bounds one answer line read from the daemon (a status answer is
// about 0.4 KB a session).
const MaxAnswer = 256 << 20

// ErrBusy marks the daemon's refusal of a request for load (every request
// connection busy, or the status answers' memory budget taken by clients
// that do not read): the request was not served, and may be sent again on
// a new connection.
var ErrBusy = errors.New("the daemon is busy")

// SetAnswerTimeouts bounds each exchange by the answer's progress rather
// than only by the context: its first bytes must come within first of
// sending the request, and then at least 64 KiB every stall, however long
// the whole takes (on a loaded machine a status answer of thousands of
// sessions can take longer than any fixed total while it keeps arriving).
// The context still bounds the whole. Zero durations (the default) leave the
// context alone to bound it.
func (c *Client) SetAnswerTimeouts(first, stall time.Duration) { c.first, c.stall = first, stall }

// ErrForeignServer means the socket is served by another user's process:
// nothing is sent to it (hook payloads carry prompts).
var ErrForeignServer = errors.New("the socket is served by another user")

// Dial connects to the daemon's socket and checks, before anything is sent,
// that the server runs as this user (SO_PEERCRED / LOCAL_PEERCRED): another
// user who squatted the socket's directory gets nothing.
func Dial(ctx context.Context, socket string) (*Client, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		var oe *net.OpError
		if errors.As(err, &oe) && !oe.Timeout() {
			return nil, fmt.Errorf("%w (%s): %v", ErrNoDaemon, socket, err)
		}
		return nil, err
	}
	uid, err := peercred.UID(c.(*net.UnixConn))
	switch {
	case err != nil:
		err = fmt.Errorf("%s: cannot check who serves it: %w", socket, err)
	case uid != os.Getuid():
		err = fmt.Errorf("%w: %s is served by %s, not by you (%s); refusing to talk to it",
			ErrForeignServer, socket, peercred.Describe(uid), peercred.Describe(os.Getuid()))
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return &Client{conn: c, rd: bufio.NewReaderSize(c, 64<<10)}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Do sends one request and reads its response. The context bounds the whole
// exchange. After a failed exchange the connection is closed: a late answer
// must never be taken for the next request's.
func (c *Client) Do(ctx context.Context, req wire.Request) (wire.Response, error) {
	if c.broken != nil {
		return wire.Response{}, c.broken
	}
	dl, hasDL := ctx.Deadline()
	if hasDL {
		c.conn.SetDeadline(dl)
	}
	// progress moves the deadline on while the answer arrives; never past
	// the context's deadline, and never once the context ended.
	var mu sync.Mutex
	ended := false
	progress := func(d time.Duration) {
		if d <= 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return
		}
		next := time.Now().Add(d)
		if hasDL && dl.Before(next) {
			next = dl
		}
		c.conn.SetDeadline(next)
	}
	defer c.conn.SetDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		ended = true
		c.conn.SetDeadline(time.Now())
		mu.Unlock()
	})
	defer stop()
	resp, err := c.exchange(req, progress)
	if err != nil {
		var app *appError
		if !errors.As(err, &app) {
			c.broken = fmt.Errorf("connection closed after an earlier failure: %w", err)
			c.conn.Close()
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
	}
	return resp, err
}

// appError is the daemon's answer to a request it refused: the connection
// is still in step.
type appError struct {
	msg  string
	busy bool
}

func (e *appError) Error() string { return e.msg }

func (e *appError) Unwrap() error {
	if e.busy {
		return ErrBusy
	}
	return nil
}

// busyPrefixes start the daemon's refusals for load (docs/protocol.md).
var busyPrefixes = []string{"busy:", "too many connections"}

// exchange sends req and reads its answer, calling progress with the time
// allowed for what comes next: the first bytes, then each 64 KiB.
func (c *Client) exchange(req wire.Request, progress func(time.Duration)) (wire.Response, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return wire.Response{}, &appError{msg: err.Error()}
	}
	progress(c.first)
	if _, err := c.conn.Write(append(b, '\n')); err != nil {
		return wire.Response{}, fmt.Errorf("send: %w", err)
	}
	line, err := c.readLine(progress)
	if err != nil {
		return wire.Response{}, fmt.Errorf("receive: %w", err)
	}
	var resp wire.Response
	if err := json.Unmarshal(line, &resp); err != nil {
		return wire.Response{}, fmt.Errorf("bad response: %w", err)
	}
	if !resp.OK {
		e := &appError{msg: resp.Error}
		for _, p := range busyPrefixes {
			e.busy = e.busy || strings.HasPrefix(resp.Error, p)
		}
		return resp, e
	}
	return resp, nil
}

// readLine reads one answer line of at most MaxAnswer bytes.
func (c *Client) readLine(progress func(time.Duration)) ([]byte, error) {
	var line []byte
	late := false // the last read timed out with nothing
	for {
		part, err := c.rd.ReadSlice('\n')
		if len(line)+len(part) > MaxAnswer {
			return nil, fmt.Errorf("answer longer than %d bytes", MaxAnswer)
		}
		switch {
		case err == nil && line == nil:
			return part, nil // the common case: a line within the buffer, used before the next read
		case err == nil:
			return append(line, part...), nil
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, os.ErrDeadlineExceeded) && c.stall > 0 && (len(part) > 0 || !late):
			// Some came before the deadline; or, with nothing, this
			// process may have been the one not running (a loaded
			// machine): one more look, as what came meanwhile counts.
		default:
			return nil, err
		}
		line = append(line, part...)
		late = len(part) == 0
		if late {
			progress(10 * time.Millisecond)
		} else {
			progress(c.stall)
		}
	}
}

// Hook relays a hook payload.
func (c *Client) Hook(ctx context.Context, agent, tab string, payload []byte) error {
	return c.HookFrom(ctx, agent, tab, 0, 0, payload)
}

// HookFrom relays a hook payload, naming the agent's process: its pid and
// start time (0, 0: not known).
func (c *Client) HookFrom(ctx context.Context, agent, tab string, pid int, start uint64, payload []byte) error {
	_, err := c.Do(ctx, wire.Request{Op: wire.OpHook, Agent: agent, Tab: tab, Pid: pid, Start: start, Payload: payload})
	return err
}

// Key reports a key press (wire.KeyEsc, wire.KeyCtrlC or wire.KeyEnter) in a tab.
func (c *Client) Key(ctx context.Context, tab, key string, at time.Time) error {
	return c.KeyPid(ctx, tab, 0, key, at)
}

// KeyPid is Key also naming the tab's child process (0: not known), as
// TabOpened does.
func (c *Client) KeyPid(ctx context.Context, tab string, pid int, key string, at time.Time) error {
	req := wire.Request{Op: wire.OpKey, Tab: tab, Pid: pid, Key: key}
	if !at.IsZero() {
		req.At = &at
	}
	_, err := c.Do(ctx, req)
	return err
}

// Ack acknowledges a session's finished turn (done → ready).
func (c *Client) Ack(ctx context.Context, session string) error {
	_, err := c.Do(ctx, wire.Request{Op: wire.OpAck, Session: session})
	return err
}

// TabOpened reports that tab runs process pid (the tab's child: the agent
// or a shell above it), which binds the tab to the session of an agent
// process at or under pid.
func (c *Client) TabOpened(ctx context.Context, tab string, pid int) error {
	_, err := c.Do(ctx, wire.Request{Op: wire.OpTabOpened, Tab: tab, Pid: pid})
	return err
}

// TabClosed ends the sessions of a tab; it returns how many.
func (c *Client) TabClosed(ctx context.Context, tab string) (int, error) {
	return c.TabClosedPid(ctx, tab, 0)
}

// TabClosedPid is TabClosed also naming the tab's child process (0: not
// known), as TabOpened does.
func (c *Client) TabClosedPid(ctx context.Context, tab string, pid int) (int, error) {
	resp, err := c.Do(ctx, wire.Request{Op: wire.OpTabClosed, Tab: tab, Pid: pid})
	return resp.Ended, err
}

// Status returns the daemon's sessions and counters.
func (c *Client) Status(ctx context.Context) (wire.Status, error) {
	resp, err := c.Do(ctx, wire.Request{Op: wire.OpStatus})
	if err != nil {
		return wire.Status{}, err
	}
	if resp.Status == nil {
		return wire.Status{}, errors.New("status missing from response")
	}
	return *resp.Status, nil
}

// Subscribe turns the connection into a stream: first one event per existing
// session (Snapshot set), then every change. The channel closes when the
// stream ends; the returned func reports why (nil when ctx ended it).
func (c *Client) Subscribe(ctx context.Context) (<-chan wire.Event, func() error, error) {
	resp, err := c.Do(ctx, wire.Request{Op: wire.OpSubscribe})
	if err != nil {
		return nil, nil, err
	}
	c.snapshot = -1
	if resp.Snapshot != nil {
		c.snapshot = *resp.Snapshot
	}
	out := make(chan wire.Event, 64)
	var streamErr error
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			c.conn.SetReadDeadline(time.Now()) // unblock the reader
		case <-done:
		}
	}()
	go func() {
		defer close(done)
		defer close(out)
		for {
			line, err := c.rd.ReadBytes('\n')
			if err != nil {
				if ctx.Err() == nil {
					streamErr = fmt.Errorf("stream: %w", err)
				}
				return
			}
			var probe struct {
				Error string `json:"error"`
			}
			if json.Unmarshal(line, &probe) == nil && probe.Error != "" {
				streamErr = errors.New(probe.Error)
				return
			}
			var ev wire.Event
			if err := json.Unmarshal(line, &ev); err != nil {
				streamErr = fmt.Errorf("bad event: %w", err)
				return
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, func() error { <-done; return streamErr }, nil
}

// Snapshot is, after Subscribe, how many snapshot events the daemon said it
// starts the stream with (0: no session yet), or -1 when it did not say.
func (c *Client) Snapshot() int { return c.snapshot }
