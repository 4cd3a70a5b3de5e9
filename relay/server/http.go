package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/wire"
)

// HTTPOptions tunes the loopback listener. Zero fields take the defaults.
type HTTPOptions struct {
	// Secret must be in every request's SecretHeader. Required.
	Secret string
	// MaxConns bounds open connections. At the cap the oldest idle (or
	// not yet speaking) connection is closed for the new one; when every
	// connection is mid-request the new one is answered 503.
	MaxConns          int           // default 64
	ReadHeaderTimeout time.Duration // default 5s
	ReadTimeout       time.Duration // default 10s (headers and body)
	WriteTimeout      time.Duration // default 10s
	IdleTimeout       time.Duration // default 30s (keep-alive)
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 64
	}
	set(&o.ReadHeaderTimeout, 5*time.Second)
	set(&o.ReadTimeout, 10*time.Second)
	set(&o.WriteTimeout, 10*time.Second)
	set(&o.IdleTimeout, 30*time.Second)
	return o
}

// ListenHTTP opens the loopback listener on an address wire.CheckHTTPAddr
// accepts, or on port 0 (any free port, for tests).
func ListenHTTP(addr string) (net.Listener, error) {
	if err := wire.CheckListenAddr(addr); err != nil {
		return nil, fmt.Errorf("http listener %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("http listener: %w", err)
	}
	return ln, nil
}

// ServeHTTP serves the loopback HTTP listener for agents' URL hooks, with
// the same handlers as the socket:
//
//	POST /hook?agent=claude&tab=T   body: the hook payload
//	POST /api                       body: one Request (not subscribe)
//	GET  /status                    the Status
//
// A web page can reach a loopback port, so every request must pass guard
// first. It serves until ctx ends.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opt HTTPOptions) error {
	if opt.Secret == "" {
		ln.Close()
		return errors.New("http listener: no secret")
	}
	opt = opt.withDefaults()
	capped := &capListener{Listener: ln, max: opt.MaxConns, open: map[net.Conn]*connInfo{}}
	srv := &http.Server{
		Handler:           s.guard(ln.Addr(), opt.Secret, s.httpHandler()),
		ReadHeaderTimeout: opt.ReadHeaderTimeout,
		ReadTimeout:       opt.ReadTimeout,
		WriteTimeout:      opt.WriteTimeout,
		IdleTimeout:       opt.IdleTimeout,
		MaxHeaderBytes:    16 << 10,
		ConnState:         capped.track,
	}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	s.log.Info().Str("addr", ln.Addr().String()).Int("max_conns", opt.MaxConns).Msg("http listener for URL hooks")
	if err := srv.Serve(capped); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// guard refuses, before any handler runs, what a web page could send:
//   - a Host other than the listener's own address (DNS rebinding: a page
//     on evil.example whose name now resolves to 127.0.0.1),
//   - an Origin (or a Sec-Fetch-Site) that is not the listener itself
//     (a cross-origin fetch or form post),
//   - a request without the per-user secret (any other local program),
//   - a body that is not application/json (text/plain, form-encoded and
//     multipart are what a page can send without a CORS preflight).
//
// No CORS header is ever sent, so a preflighted request fails in the
// browser too.
func (s *Server) guard(addr net.Addr, secret string, next http.Handler) http.Handler {
	hosts := map[string]bool{strings.ToLower(addr.String()): true}
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		hosts["localhost:"+strconv.Itoa(ta.Port)] = true
	}
	refuse := func(w http.ResponseWriter, r *http.Request, code int, why string) {
		s.relay.CountHTTPRefused()
		s.log.Warn().Str("remote", r.RemoteAddr).Str("host", r.Host).Str("origin", r.Header.Get("Origin")).
			Str("path", r.URL.Path).Int("status", code).Str("why", why).Msg("http request refused")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Connection", "close")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(wire.Response{Error: why})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hosts[strings.ToLower(r.Host)] {
			refuse(w, r, http.StatusForbidden, "forbidden: Host is not this listener's address")
			return
		}
		if o, ok := r.Header["Origin"]; ok && !(len(o) == 1 && strings.HasPrefix(o[0], "http://") &&
			hosts[strings.ToLower(strings.TrimPrefix(o[0], "http://"))]) {
			refuse(w, r, http.StatusForbidden, "forbidden: cross-origin request")
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			refuse(w, r, http.StatusForbidden, "forbidden: cross-site request")
			return
		}
		if got := r.Header.Get(wire.SecretHeader); subtle.ConstantTimeCompare([]byte(got), []byte(secret)) != 1 {
			refuse(w, r, http.StatusUnauthorized, "unauthorized: missing or wrong "+wire.SecretHeader+" header")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil || mt != "application/json" {
				refuse(w, r, http.StatusUnsupportedMediaType, "unsupported media type: the body must be application/json")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) httpHandler() http.Handler {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, resp wire.Response) {
		w.Header().Set("Content-Type", "application/json")
		resp.Protocol = wire.Protocol
		if !resp.OK {
			w.WriteHeader(http.StatusBadRequest)
		}
		json.NewEncoder(w).Encode(resp)
	}
	body := func(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, wire.MaxRequest))
		if err != nil {
			s.relay.CountBadRequest()
			reply(w, wire.Response{Error: fmt.Sprintf("request body: %v", err)})
			return nil, false
		}
		return b, true
	}
	// status writes the shared answer (statusanswer.go), as reply would.
	status := func(w http.ResponseWriter, r *http.Request) {
		an, err := s.answers.get(r.Context())
		if err != nil {
			reply(w, wire.Response{Error: err.Error()})
			return
		}
		defer an.release()
		w.Header().Set("Content-Type", "application/json")
		w.Write(an.line)
		w.Write(newline)
	}
	mux.HandleFunc("POST /hook", func(w http.ResponseWriter, r *http.Request) {
		b, ok := body(w, r)
		if !ok {
			return
		}
		q := r.URL.Query()
		tab := q.Get("tab")
		if tab == "" {
			tab = r.Header.Get(wire.TabHeader)
		}
		resp := s.relay.Handle(r.Context(), wire.Request{Op: wire.OpHook, Agent: q.Get("agent"), Tab: tab, Payload: b})
		if resp.OK {
			// An agent reads a 2xx body as hook output (plain text would
			// become context for the model): an empty object says nothing.
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "{}\n")
			return
		}
		reply(w, resp)
	})
	mux.HandleFunc("POST /api", func(w http.ResponseWriter, r *http.Request) {
		b, ok := body(w, r)
		if !ok {
			return
		}
		req, err := relay.DecodeRequest(b)
		if err != nil {
			s.relay.CountBadRequest()
			reply(w, wire.Response{Error: err.Error()})
			return
		}
		if req.Op == wire.OpStatus {
			status(w, r)
			return
		}
		reply(w, s.relay.Handle(r.Context(), req))
	})
	mux.HandleFunc("GET /status", status)
	return mux
}

// capListener bounds the HTTP server's open connections. Idle keep-alive
// connections and ones that have not sent a byte yet give way to a new
// one, so held connections cannot lock hooks out; one mid-request is
// bounded by the read timeouts.
type capListener struct {
	net.Listener
	max  int
	mu   sync.Mutex
	open map[net.Conn]*connInfo
}

type connInfo struct {
	state http.ConnState
	since time.Time
}

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if len(l.open) >= l.max && !l.evictLocked() {
			l.mu.Unlock()
			c.SetWriteDeadline(time.Now().Add(time.Second))
			io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			c.Close()
			continue
		}
		l.open[c] = &connInfo{state: http.StateNew, since: time.Now()}
		l.mu.Unlock()
		return c, nil
	}
}

// evictLocked closes the longest-idle connection that is not serving a
// request; false when every one is.
func (l *capListener) evictLocked() bool {
	var victim net.Conn
	var oldest time.Time
	for c, ci := range l.open {
		if ci.state != http.StateIdle && ci.state != http.StateNew {
			continue
		}
		if victim == nil || ci.since.Before(oldest) {
			victim, oldest = c, ci.since
		}
	}
	if victim == nil {
		return false
	}
	delete(l.open, victim)
	victim.Close()
	return true
}

func (l *capListener) track(c net.Conn, st http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(l.open, c)
	default:
		if ci := l.open[c]; ci != nil {
			ci.state, ci.since = st, time.Now()
		}
	}
}
