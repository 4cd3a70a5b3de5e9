package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers/lines"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/peercred"
	"github.com/logwatch/logwatch/relay/secret"
	"github.com/logwatch/logwatch/relay/wire"
)

// ErrAlreadyRunning is returned by Listen when a live daemon owns the socket.
var ErrAlreadyRunning = errors.New("another logwatch daemon is already serving this socket")

// Listen prepares the socket: its directory private (secret.PrivateDir), a stale
// socket left by a crashed daemon replaced, a live one refused, the socket
// 0600.
func Listen(path string) (*net.UnixListener, error) {
	if err := secret.PrivateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket; not replacing it", path)
		}
		c, err := net.DialTimeout("unix", path, 500*time.Millisecond)
		if err == nil {
			c.Close()
			return nil, fmt.Errorf("%w: %s (stop it first, or set a different socket)", ErrAlreadyRunning, path)
		}
		// Nobody answers: a crashed daemon's leftover.
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("removing stale socket: %w", err)
		}
	}
	old := syscall.Umask(0o177)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("socket permissions: %w", err)
	}
	return ln, nil
}

// Relay is what the server reaches the daemon's relay through.
type Relay interface {
	// Handle runs one request, a subscription's excepted.
	Handle(ctx context.Context, req wire.Request) wire.Response
	Subscribe(ctx context.Context) (*relay.Subscription, error)
	// Status is every session and the counters.
	Status(ctx context.Context) (wire.Status, error)
	// CountBadRequest and CountHTTPRefused count a request refused:
	// malformed or not allowed, or refused by the HTTP guard.
	CountBadRequest()
	CountHTTPRefused()
	// ReportConns has status report the server's connection figures.
	ReportConns(func() wire.ConnCounters)
}

// Server answers the socket protocol (and the loopback HTTP listener) for
// a relay.
type Server struct {
	relay Relay
	log   zerolog.Logger
	// PeerUID reads the uid of a connection's peer; a seam for tests.
	PeerUID func(*net.UnixConn) (int, error)
	// UID is the only uid allowed to connect (the daemon's own).
	UID int
	// MaxConns bounds concurrent request connections, so one flooding
	// client cannot exhaust the daemon; past it the longest-idle one is
	// closed to make room (conns.go).
	MaxConns int
	// MaxSubscribers bounds subscriptions, budgeted apart from requests.
	MaxSubscribers int
	// IdleTimeout closes a request connection that sends nothing.
	IdleTimeout time.Duration

	adm     admission
	answers *answers // status answers (statusanswer.go)

	attn   Attention               // the notifier, when there is one
	sinks  func() []wire.SinkStats // its sinks' totals, when there is one
	connID atomic.Uint64           // the last connection's id
}

// Attention hears what clients say of the person's attention: the tab a
// connection's person looks at (focus) and the host apps that show their
// own alerts (subscribe with alerts). It is advisory: no session's state
// changes, so it bypasses the relay's machine (and its recording).
type Attention interface {
	Focus(conn uint64, host, tab string)
	Cover(conn uint64)
	// Forget drops what connection conn said: it closed.
	Forget(conn uint64)
}

// SetAttention has focus and subscribe's alerts reach a; call it before
// Serve.
func (s *Server) SetAttention(a Attention) { s.attn = a }

// SetSinkStats has status report the notifier's sinks' totals that stats
// reads; call it before Serve.
func (s *Server) SetSinkStats(stats func() []wire.SinkStats) { s.sinks = stats }

// New returns a server for r that admits only this process's uid.
func New(r Relay, log zerolog.Logger) *Server {
	s := &Server{relay: r, log: log.With().Str("component", "api").Logger(),
		PeerUID: peercred.UID, UID: os.Getuid(), MaxConns: 256, MaxSubscribers: 64, IdleTimeout: time.Minute}
	s.answers = newAnswers(s.statusLine, answerBudget, answerWait)
	r.ReportConns(s.Counters)
	return s
}

// statusLine is a status answer, encoded as one line without its newline
// (the writer adds it: appending it would copy the whole answer). The
// notifier's totals join the relay's status here: the notifier runs
// beside the relay's machine, which a replay reproduces without it.
func (s *Server) statusLine() ([]byte, error) {
	st, err := s.relay.Status(context.Background())
	if err != nil {
		return nil, err
	}
	st.Notify = []wire.SinkStats{}
	if s.sinks != nil {
		st.Notify = append(st.Notify, s.sinks()...)
	}
	return json.Marshal(wire.Response{OK: true, Protocol: wire.Protocol, Status: &st})
}

// Serve accepts connections until ctx ends, then closes ln and waits for
// the connections to finish.
func (s *Server) Serve(ctx context.Context, ln *net.UnixListener) error {
	var wg sync.WaitGroup
	go func() {
		<-ctx.Done()
		ln.Close()
		s.adm.mu.Lock()
		for c := range s.adm.conns {
			c.Close()
		}
		s.adm.mu.Unlock()
	}()
	var backoff time.Duration
	var warned time.Time // the last accept-failure warning: at most one a minute
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				wg.Wait()
				return nil
			}
			if !acceptRetry(err) {
				wg.Wait()
				return fmt.Errorf("accept: %w", err)
			}
			// Out of descriptors (or the like): free an idle connection,
			// wait a little longer each time, keep serving.
			n := s.adm.accErrs.Add(1)
			if time.Since(warned) > time.Minute {
				warned = time.Now()
				s.log.Warn().Err(err).Int64("accept_errors", n).
					Msg("accept failing; closing idle connections and retrying with backoff (logged once a minute, counted in status)")
			}
			if backoff == 0 {
				backoff = 5 * time.Millisecond
			} else if backoff = 2 * backoff; backoff > time.Second {
				backoff = time.Second
			}
			s.evictIdle()
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
			}
			continue
		}
		backoff = 0
		cs := s.admit(c)
		if cs == nil {
			s.relay.CountBadRequest()
			writeLine(c, wire.Response{Error: "too many connections: every request connection is busy"})
			c.Close()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.serveConn(ctx, c, cs)
			c.Close()
			s.release(cs)
		}()
	}
}

// requestBuf is a request connection's base read buffer.
const requestBuf = 16 << 10

func (s *Server) serveConn(ctx context.Context, c *net.UnixConn, cs *connState) {
	uid, err := s.PeerUID(c)
	if err != nil || uid != s.UID {
		s.relay.CountBadRequest()
		s.log.Warn().Int("peer_uid", uid).Err(err).Msg("connection from another user refused")
		writeLine(c, wire.Response{Error: "permission denied: peer is not the daemon's user"})
		return
	}
	// Most requests are a hook of a few KB on a connection of its own: a
	// small base buffer, grown for the rare long one (to MaxRequest).
	rd := lines.NewSize(c, 0, 0, wire.MaxRequest, requestBuf)
	rd.ReportOversized = true
	id := s.connID.Add(1)
	told := false // this connection said something of the person's attention
	defer func() {
		if told {
			s.attn.Forget(id)
		}
	}()
	for {
		if cs.sub {
			c.SetReadDeadline(time.Time{})
		} else {
			c.SetReadDeadline(time.Now().Add(s.IdleTimeout))
		}
		s.idle(cs, true)
		l, err := rd.Next()
		s.idle(cs, false)
		if errors.Is(err, lines.ErrOversized) {
			s.relay.CountBadRequest()
			if !writeLine(c, wire.Response{Error: fmt.Sprintf("request longer than %d bytes", wire.MaxRequest)}) {
				return
			}
			continue
		}
		if err != nil {
			return // the peer closed, went idle, or the connection broke
		}
		req, err := relay.DecodeRequest(l.Bytes)
		if err != nil {
			s.relay.CountBadRequest()
			if !writeLine(c, wire.Response{Error: err.Error()}) {
				return
			}
			continue
		}
		if req.Op == wire.OpSubscribe {
			if !s.toSubscriber(cs, false) {
				writeLine(c, wire.Response{Error: fmt.Sprintf("too many subscribers (at most %d)", s.MaxSubscribers)})
				return
			}
			if req.Alerts && s.attn != nil {
				told = true
				s.attn.Cover(id)
			}
			s.stream(ctx, c)
			return
		}
		if req.Op == wire.OpFocus {
			// A focus holds while its connection stays open: the
			// connection is long-lived, like a subscription, budgeted with
			// them and never closed for idleness or evicted (a tmux
			// follower holds its focus for hours without a word).
			if req.Tab != "" && !s.toSubscriber(cs, true) {
				writeLine(c, wire.Response{Error: fmt.Sprintf("too many subscribers (at most %d)", s.MaxSubscribers)})
				return
			}
			if req.Tab == "" {
				s.unfocus(cs) // no tab: the focus let go
			}
			if s.attn != nil {
				told = true
				s.attn.Focus(id, req.Host, req.Tab)
			}
			if !writeLine(c, wire.Response{OK: true}) {
				return
			}
			continue
		}
		if req.Op == wire.OpStatus {
			if !s.writeStatus(ctx, c, cs) {
				return
			}
			continue
		}
		resp := s.relay.Handle(ctx, req)
		if !writeLine(c, resp) {
			return
		}
	}
}

// A status answer is written answerChunk at a time, each within
// writeTimeout, so that a peer that stopped reading shows as stalled
// (conns.go) while one that reads slowly (on a loaded machine) still gets
// it all, within answerCap.
const (
	answerChunk = 64 << 10
	answerCap   = time.Minute
)

// writeStatus answers a status request with a shared answer.
func (s *Server) writeStatus(ctx context.Context, c net.Conn, cs *connState) bool {
	an, err := s.answers.get(ctx)
	if err != nil {
		return writeLine(c, wire.Response{Error: err.Error()})
	}
	defer an.release()
	end := time.Now().Add(answerCap)
	for b := an.line; len(b) > 0; {
		n := min(len(b), answerChunk)
		dl := time.Now().Add(writeTimeout)
		if end.Before(dl) {
			dl = end
		}
		c.SetWriteDeadline(dl)
		s.stall(cs, true)
		_, err := c.Write(b[:n])
		s.stall(cs, false)
		if err != nil {
			return false
		}
		b = b[n:]
	}
	_, err = c.Write(newline) // within the last chunk's deadline
	return err == nil
}

var newline = []byte("\n")

// stream serves a subscription: a Response, the snapshot, then changes.
func (s *Server) stream(ctx context.Context, c *net.UnixConn) {
	sub, err := s.relay.Subscribe(ctx)
	if err != nil {
		writeLine(c, wire.Response{Error: err.Error()})
		return
	}
	defer sub.Cancel()
	c.SetReadDeadline(time.Time{})
	// The peer closing its end ends the stream.
	gone := make(chan struct{})
	go func() {
		io.Copy(io.Discard, c)
		close(gone)
	}()
	n := sub.Snapshot()
	if !writeLine(c, wire.Response{OK: true, Snapshot: &n}) {
		return
	}
	// forward writes one event of C; false ends the stream (C closed, with
	// the relay's reason if it gave one, or the peer not reading).
	forward := func(ev wire.Event, ok bool) bool {
		if !ok {
			if why := sub.Err(); why != "" {
				writeLine(c, wire.Response{Error: why})
			}
			return false
		}
		return writeLine(c, ev)
	}
	for {
		select {
		case ev, ok := <-sub.C():
			if !forward(ev, ok) {
				return
			}
		case <-sub.More():
			// Fell behind: what is queued first, then the coalesced rest.
			for drained := false; !drained; {
				select {
				case ev, ok := <-sub.C():
					if !forward(ev, ok) {
						return
					}
				default:
					drained = true
				}
			}
			for _, ev := range sub.Resync() {
				if !writeLine(c, ev) {
					return
				}
			}
		case <-gone:
			return
		case <-ctx.Done():
			return
		}
	}
}

// writeTimeout bounds the write of one answer or event, so a stuck peer
// cannot hold a connection goroutine (or an answer) forever.
const writeTimeout = 10 * time.Second

// writeLine writes v as one JSON line, within writeTimeout.
func writeLine(c net.Conn, v any) bool {
	if r, ok := v.(wire.Response); ok {
		r.Protocol = wire.Protocol
		v = r
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	c.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err = c.Write(append(b, '\n'))
	return err == nil
}
