package relay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
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
