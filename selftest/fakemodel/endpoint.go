package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
)

// logged is a request as an endpoint keeps it: with its body set (for the
// request log) or dropped (nil, for Requests).
type logged[R any] interface {
	withBody(body json.RawMessage) R
}

// endpoint is what the OpenAI and Gemini fakes share: an HTTP server on a
// free loopback port, stopped when ctx ends or by Close, and the requests it
// took, kept and appended to dir/requests.jsonl.
type endpoint[R logged[R]] struct {
	srv  *http.Server
	mu   sync.Mutex // guards n, log and reqs
	n    int
	log  *os.File
	reqs []R
}

// listen serves h until ctx ends or Close, and returns the address it
// listens on (host:port); name prefixes its errors.
func (e *endpoint[R]) listen(ctx context.Context, dir, name string, h http.HandlerFunc) (string, error) {
	f, err := os.OpenFile(filepath.Join(dir, "requests.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return "", fmt.Errorf("%s: request log: %w", name, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Close()
		return "", fmt.Errorf("%s: listen: %w", name, err)
	}
	e.log = f
	e.srv = &http.Server{Handler: h, BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() { _ = e.srv.Serve(ln) }()
	go func() { <-ctx.Done(); e.Close() }()
	return ln.Addr().String(), nil
}

// Close stops the server and closes the request log.
func (e *endpoint[R]) Close() {
	_ = e.srv.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.log != nil {
		e.log.Close()
		e.log = nil
	}
}

// Requests returns the requests so far, in arrival order, without bodies.
func (e *endpoint[R]) Requests() []R {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]R, len(e.reqs))
	for i, r := range e.reqs {
		out[i] = r.withBody(nil)
	}
	return out
}

// record keeps req and logs it with body when body is JSON; e.mu is held.
func (e *endpoint[R]) record(req R, body []byte) {
	e.reqs = append(e.reqs, req)
	if e.log == nil {
		return
	}
	var raw json.RawMessage
	if json.Valid(body) {
		raw = body
	}
	b, _ := json.Marshal(req.withBody(raw))
	_, _ = e.log.Write(append(b, '\n'))
}
