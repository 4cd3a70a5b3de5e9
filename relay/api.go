package relay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// MaxRequest caps one request line (SPEC §8).
const MaxRequest = 1 << 20

// Protocol is the socket protocol's version, sent in every answer so a
// client can tell which daemon it talks to (docs/protocol.md). It goes up
// only when a change would break an existing client; added fields do not
// change it.
const Protocol = 1

// The operations of the socket protocol: one JSON object per line in, one
// JSON object per line out (a subscription then streams Event lines).
const (
	OpHook      = "hook"
	OpKey       = "key"
	OpAck       = "ack"
	OpTabClosed = "tab_closed"
	OpTabOpened = "tab_opened"
	OpStatus    = "status"
	OpSubscribe = "subscribe"
)

// Request is one API call.
type Request struct {
	Op      string          `json:"op"`
	Agent   string          `json:"agent,omitempty"`   // hook: claude, codex, or "" to detect
	Tab     string          `json:"tab,omitempty"`     // hook, key, tab_opened, tab_closed
	Pid     int             `json:"pid,omitempty"`     // tab_opened; optional on key, tab_closed: the tab's child process
	Session string          `json:"session,omitempty"` // ack
	Key     string          `json:"key,omitempty"`     // key: esc, ctrl-c
	At      *time.Time      `json:"at,omitempty"`      // key: when it was pressed (default: when received)
	Payload json.RawMessage `json:"payload,omitempty"` // hook: the agent's payload, verbatim
}

// Response answers a Request. A subscription's first line is a Response;
// Event lines follow.
type Response struct {
	OK       bool    `json:"ok"`
	Protocol int     `json:"protocol,omitempty"` // set on every answer the daemon sends
	Error    string  `json:"error,omitempty"`
	Status   *Status `json:"status,omitempty"`
	Ended    int     `json:"ended,omitempty"`    // tab_closed: sessions ended
	Snapshot *int    `json:"snapshot,omitempty"` // subscribe: how many snapshot lines follow
}

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
	case OpStatus, OpSubscribe:
	case "":
		err = fmt.Errorf("%w: missing op", ErrBadRequest)
	default:
		err = fmt.Errorf("%w: unknown op %q (want hook, key, ack, tab_opened, tab_closed, status or subscribe)", ErrBadRequest, req.Op)
	}
	if err == nil && req.Pid < 0 {
		err = fmt.Errorf("%w: pid %d is not a process id", ErrBadRequest, req.Pid)
	}
	return req, err
}
