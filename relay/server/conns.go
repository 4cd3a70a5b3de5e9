package server

import (
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/logwatch/logwatch/relay/wire"
)

// Connection budgets. Hook requests are short-lived and must always get
// in, so request connections and subscriptions are budgeted apart: a
// subscription moves out of the request budget into its own, and when the
// request budget is full (or the process is out of file descriptors) the
// connection that has waited longest on its peer — for its next request,
// for a first one, or for an answer to be read — is closed to make room.
// Only when every request connection is busy mid-request is a new one
// refused.

type connState struct {
	c         net.Conn
	idleSince time.Time // zero while a request is being handled
	stalled   time.Time // while a write of an answer waits for the peer to read: since when
	sub       bool
	focus     bool // holds a focus (a subscription slot, sub set too)
	counted   bool // holds a slot (cleared when evicted)
}

type admission struct {
	mu      sync.Mutex
	conns   map[net.Conn]*connState
	nreq    int
	nsub    int
	nfocus  int
	evicted atomic.Int64
	refused atomic.Int64
	accErrs atomic.Int64
}

// admit takes a request slot for c, evicting the longest-idle request
// connection when the budget is full. It returns nil when every slot is busy.
func (s *Server) admit(c net.Conn) *connState {
	a := &s.adm
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conns == nil {
		a.conns = map[net.Conn]*connState{}
	}
	if a.nreq >= s.MaxConns && !s.evictLocked() {
		a.refused.Add(1)
		return nil
	}
	cs := &connState{c: c, idleSince: time.Now(), counted: true}
	a.conns[c] = cs
	a.nreq++
	return cs
}

// evictLocked closes the request connection that has waited longest on its
// peer (idle, or its answer unread); false if none does.
func (s *Server) evictLocked() bool {
	a := &s.adm
	var old *connState
	var oldest time.Time
	for _, cs := range a.conns {
		if cs.sub || !cs.counted {
			continue
		}
		since := cs.idleSince
		if since.IsZero() {
			since = cs.stalled
		}
		if since.IsZero() {
			continue
		}
		if old == nil || since.Before(oldest) {
			old, oldest = cs, since
		}
	}
	if old == nil {
		return false
	}
	old.counted = false
	a.nreq--
	a.evicted.Add(1)
	old.c.Close()
	return true
}

// evictIdle frees one descriptor when accept runs out of them.
func (s *Server) evictIdle() bool {
	s.adm.mu.Lock()
	defer s.adm.mu.Unlock()
	return s.evictLocked()
}

func (s *Server) release(cs *connState) {
	a := &s.adm
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.conns, cs.c)
	if !cs.counted {
		return
	}
	if cs.sub {
		a.nsub--
		if cs.focus {
			a.nfocus--
		}
	} else {
		a.nreq--
	}
}

// idle marks a request connection waiting for its next request (or busy).
func (s *Server) idle(cs *connState, idle bool) { s.since(&cs.idleSince, idle) }

// stall marks a connection whose answer's write waits for the peer to read.
func (s *Server) stall(cs *connState, stalled bool) { s.since(&cs.stalled, stalled) }

// since sets *t to now while on, to zero otherwise, under the admission lock.
func (s *Server) since(t *time.Time, on bool) {
	s.adm.mu.Lock()
	if on {
		*t = time.Now()
	} else {
		*t = time.Time{}
	}
	s.adm.mu.Unlock()
}

// toSubscriber moves a connection from the request budget to the
// subscriptions budget (once: a focus's connection that subscribes keeps
// its one slot); false when that is full. focus marks one holding a focus.
func (s *Server) toSubscriber(cs *connState, focus bool) bool {
	a := &s.adm
	a.mu.Lock()
	defer a.mu.Unlock()
	if !cs.counted {
		return false // evicted meanwhile
	}
	if !cs.sub {
		if a.nsub >= s.MaxSubscribers {
			a.refused.Add(1)
			return false
		}
		a.nreq--
		a.nsub++
		cs.sub = true
	}
	if focus && !cs.focus {
		cs.focus = true
		a.nfocus++
	}
	return true
}

// unfocus marks a connection that let go of its focus (it keeps its slot).
func (s *Server) unfocus(cs *connState) {
	a := &s.adm
	a.mu.Lock()
	defer a.mu.Unlock()
	if cs.focus {
		cs.focus = false
		a.nfocus--
	}
}

// Counters reports the connection figures.
func (s *Server) Counters() wire.ConnCounters {
	a := &s.adm
	a.mu.Lock()
	n, focus := a.nreq, a.nfocus
	a.mu.Unlock()
	return wire.ConnCounters{ConnsMax: int64(s.MaxConns), Conns: int64(n), SubscribersMax: int64(s.MaxSubscribers), Focused: int64(focus),
		ConnsEvicted: a.evicted.Load(), ConnsRefused: a.refused.Load(), AcceptErrors: a.accErrs.Load(),
		StatusBuilt: s.answers.built.Load(), StatusServed: s.answers.served.Load(), StatusBusy: s.answers.busy.Load()}
}

// acceptRetry reports whether an accept error is one to wait out (out of
// descriptors or buffers, an aborted handshake) rather than a dead listener.
func acceptRetry(err error) bool {
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.EINTR} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
