package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/logwatch/logwatch/relay/wire"
)

// ErrBadRequest marks a request the daemon cannot act on.
var ErrBadRequest = errors.New("bad request")

// DecodeRequest parses and validates one request line.
func DecodeRequest(line []byte) (Request, error) {
	var req Request
	if !utf8.Valid(line) {
		// encoding/json would turn the bad bytes into U+FFFD: an id that
		// names nothing.
		return Request{}, fmt.Errorf("%w: request is not valid UTF-8", ErrBadRequest)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&req); err != nil {
		return Request{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if dec.More() {
		return Request{}, fmt.Errorf("%w: one JSON object per line", ErrBadRequest)
	}
	need := func(field, v string) error {
		if v == "" {
			return fmt.Errorf("%w: %s needs %q", ErrBadRequest, req.Op, field)
		}
		return nil
	}
	var err error
	switch req.Op {
	case OpHook:
		if len(req.Payload) == 0 || req.Payload[0] != '{' {
			err = fmt.Errorf("%w: hook needs a JSON object payload", ErrBadRequest)
		}
	case OpKey:
		if err = need("tab", req.Tab); err == nil {
			err = need("key", req.Key)
		}
	case OpAck:
		err = need("session", req.Session)
	case OpTabClosed:
		err = need("tab", req.Tab)
	case OpTabOpened:
		if err = need("tab", req.Tab); err == nil && req.Pid == 0 {
			err = fmt.Errorf("%w: tab_opened needs \"pid\"", ErrBadRequest)
		}
	case OpStatus, OpSubscribe, OpFocus:
	case "":
		err = fmt.Errorf("%w: missing op", ErrBadRequest)
	default:
		err = fmt.Errorf("%w: unknown op %q (want hook, key, ack, tab_opened, tab_closed, status, subscribe or focus)", ErrBadRequest, req.Op)
	}
	if err == nil && req.Pid < 0 {
		err = fmt.Errorf("%w: pid %d is not a process id", ErrBadRequest, req.Pid)
	}
	return req, err
}

// Handle runs one non-streaming request. The HTTP listener shares it.
func (r *Relay) Handle(ctx context.Context, req Request) Response {
	var err error
	resp := Response{}
	switch req.Op {
	case OpHook:
		err = r.HookFrom(ctx, req.Agent, req.Tab, AgentProcess{Pid: req.Pid, Start: req.Start}, req.Payload)
	case OpTabOpened:
		err = r.TabProcess(ctx, req.Tab, req.Pid)
	case OpKey:
		var at time.Time
		if req.At != nil {
			at = *req.At
		}
		err = r.KeyPid(ctx, req.Tab, req.Pid, req.Key, at)
	case OpAck:
		err = r.AckHost(ctx, req.Host, req.Session)
	case OpTabClosed:
		resp.Ended, err = r.TabClosedPid(ctx, req.Tab, req.Pid)
	case OpStatus:
		var st Status
		st, err = r.Status(ctx)
		resp.Status = &st
	default:
		r.countBad()
		err = fmt.Errorf("%w: op %q cannot be used here", ErrBadRequest, req.Op)
	}
	if err != nil {
		return Response{Error: err.Error()}
	}
	resp.OK = true
	return resp
}

func (r *Relay) countBad() { r.enqueue(func() { r.m.counters.BadRequests++ }) }

// CountBadRequest counts a request the server refused as malformed or not
// allowed.
func (r *Relay) CountBadRequest() { r.countBad() }

// CountHTTPRefused counts a request the HTTP listener's guard refused.
func (r *Relay) CountHTTPRefused() { r.enqueue(func() { r.m.counters.HTTPRefused++ }) }

// ReportConns has Status report the connection figures counters reads
// (the socket server's).
func (r *Relay) ReportConns(counters func() ConnCounters) {
	r.enqueue(func() { r.subs.conns = counters })
}

// DefaultSocket is $XDG_RUNTIME_DIR/logwatch/logwatch.sock, or a per-user
// directory under the system temp dir when XDG_RUNTIME_DIR is unset.
func DefaultSocket() string {
	return filepath.Join(wire.RunDir(), "logwatch.sock")
}
