package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/logwatch/logwatch/internal/statusview"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

// socketPath is the configured socket or the default one.
func (a *app) socketPath() string {
	if a.cfg.Socket != "" {
		return a.cfg.Socket
	}
	return relay.DefaultSocket()
}

// dial connects to the daemon; a missing daemon is a usage-class error with
// a hint.
func (a *app) dial(ctx context.Context) (*client.Client, error) {
	c, err := client.Dial(ctx, a.socketPath())
	if err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("%w\n(start it with `logwatch run`, or check --socket / LOGWATCH_SOCKET)", err))
	}
	return c, nil
}

// Bounds of a CLI request: connecting; the answer's start (longer for
// status, which waits for the answer being built before its own: 300 at
// once on a loaded two-core machine saw 7.6 s); then its progress, not a
// total (the whole of one status answer of 5 000 sessions took 12 s
// there, while it kept arriving); and a cap on the call, retries included.
const (
	dialTimeout         = 5 * time.Second
	answerTimeout       = 5 * time.Second
	statusAnswerTimeout = 30 * time.Second
	stallTimeout        = 5 * time.Second
	callCap             = time.Minute
)

// call runs f against the daemon: connected within dialTimeout, each
// answer begun within answerTimeout and then never stalled for
// stallTimeout, all within callCap.
func (a *app) call(f func(ctx context.Context, c *client.Client) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), callCap)
	defer cancel()
	return a.callCtx(ctx, answerTimeout, f)
}

func (a *app) callCtx(ctx context.Context, first time.Duration, f func(ctx context.Context, c *client.Client) error) error {
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	c, err := a.dial(dctx)
	cancel()
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return dialTimedOut{err}
		}
		return err
	}
	defer c.Close()
	c.SetAnswerTimeouts(first, stallTimeout)
	if err := f(ctx, c); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return withCode(exitFindings, err)
	}
	return nil
}

// callStatus is call for a status request, which changes nothing: its
// answer may take statusAnswerTimeout to begin, and it is asked again on
// a new connection while the daemon sheds load (client.ErrBusy) or closes
// the connection before the whole answer came (at its connection budget
// it closes the one that waited longest on its peer).
func (a *app) callStatus(f func(ctx context.Context, c *client.Client) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), callCap)
	defer cancel()
	for delay := 20 * time.Millisecond; ; delay = min(2*delay, time.Second) {
		err := a.callCtx(ctx, statusAnswerTimeout, f)
		if err == nil || !retryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(delay):
		}
	}
}

// retryable: refused for load, not accepted in time (a full accept
// queue: the daemon is there, and busy), or the connection closed under
// the request.
func retryable(err error) bool {
	return errors.Is(err, client.ErrBusy) || errors.As(err, new(dialTimedOut)) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// dialTimedOut is a connection the daemon did not accept within
// dialTimeout.
type dialTimedOut struct{ err error }

func (d dialTimedOut) Error() string { return d.err.Error() }
func (d dialTimedOut) Unwrap() error { return d.err }

// follow opens a change stream that ends on SIGINT/SIGTERM and survives
// daemon restarts (client.Follow); done releases it. A daemon that is not
// running at start is an error, as for every other verb.
func (a *app) follow() (<-chan client.Update, func(), error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	ups, err := client.Follow(ctx, a.socketPath(), client.FollowOptions{})
	if err != nil {
		stop()
		if errors.Is(err, client.ErrNoDaemon) {
			return nil, nil, withCode(exitUsage, fmt.Errorf("%w\n(start it with `logwatch run`, or check --socket / LOGWATCH_SOCKET)", err))
		}
		return nil, nil, withCode(exitFindings, err)
	}
	return ups, stop, nil
}

// roots are the configured log roots, for the CLI's own views when the
// daemon does not report them.
func (a *app) roots() []string {
	return a.cfg.AllRoots()
}

// daemonRoots asks the daemon where it looks; the configured roots if it
// cannot say.
func (a *app) daemonRoots() []string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if c, err := client.Dial(ctx, a.socketPath()); err == nil {
		defer c.Close()
		if st, err := c.Status(ctx); err == nil && st.Roots != nil {
			return st.Roots
		}
	}
	return a.roots()
}

// resolveSession turns a session id or unique prefix into the full id.
func (a *app) resolveSession(ctx context.Context, c *client.Client, arg string) (wire.Event, error) {
	st, err := c.Status(ctx)
	if err != nil {
		return wire.Event{}, err
	}
	ids := make([]string, len(st.Sessions))
	for i, s := range st.Sessions {
		ids[i] = s.Session
	}
	full, err := statusview.Resolve(ids, arg)
	if err != nil {
		return wire.Event{}, withCode(exitUsage, err)
	}
	for _, s := range st.Sessions {
		if s.Session == full {
			return s, nil
		}
	}
	return wire.Event{Session: full}, nil
}
