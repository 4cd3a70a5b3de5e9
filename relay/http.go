package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// ServeHTTP serves the optional loopback HTTP listener for agents' URL hooks,
// with the same handlers as the socket:
//
//	POST /hook?agent=claude&tab=T   body: the hook payload
//	POST /api                       body: one Request (not subscribe)
//	GET  /status                    the Status
//
// addr must be a loopback address; anything else is refused.
func (s *Server) ServeHTTP(ctx context.Context, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("http listener %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("http listener %q: only loopback addresses (127.0.0.1, ::1) are allowed", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("http listener: %w", err)
	}
	srv := &http.Server{Handler: s.httpHandler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	s.log.Info().Str("addr", ln.Addr().String()).Msg("http listener for URL hooks")
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s *Server) httpHandler() http.Handler {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, resp Response) {
		w.Header().Set("Content-Type", "application/json")
		resp.Protocol = Protocol
		if !resp.OK {
			w.WriteHeader(http.StatusBadRequest)
		}
		json.NewEncoder(w).Encode(resp)
	}
	body := func(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequest))
		if err != nil {
			s.relay.countBad()
			reply(w, Response{Error: fmt.Sprintf("request body: %v", err)})
			return nil, false
		}
		return b, true
	}
	mux.HandleFunc("POST /hook", func(w http.ResponseWriter, r *http.Request) {
		b, ok := body(w, r)
		if !ok {
			return
		}
		q := r.URL.Query()
		reply(w, s.relay.Handle(r.Context(), Request{Op: OpHook, Agent: q.Get("agent"), Tab: q.Get("tab"), Payload: b}))
	})
	mux.HandleFunc("POST /api", func(w http.ResponseWriter, r *http.Request) {
		b, ok := body(w, r)
		if !ok {
			return
		}
		req, err := DecodeRequest(b)
		if err != nil {
			s.relay.countBad()
			reply(w, Response{Error: err.Error()})
			return
		}
		reply(w, s.relay.Handle(r.Context(), req))
	})
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		reply(w, s.relay.Handle(r.Context(), Request{Op: OpStatus}))
	})
	return mux
}
