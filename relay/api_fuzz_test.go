package relay

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzDecodeRequest: any line is either a valid request or ErrBadRequest,
// never a panic; a valid request survives a round trip.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		`{"op":"hook","agent":"claude","tab":"t","payload":{"hook_event_name":"Stop","session_id":"s"}}`,
		`{"op":"key","tab":"t","key":"esc","at":"2026-11-29T12:00:00Z"}`,
		`{"op":"ack","session":"s"}`, `{"op":"tab_closed","tab":"t"}`, `{"op":"status"}`, `{"op":"subscribe"}`,
		`{"op":"ack","session":7}`, `{"op":"key","at":"yesterday"}`, `{}`, `[]`, `null`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := DecodeRequest(line)
		if err != nil {
			if !errors.Is(err, ErrBadRequest) {
				t.Fatalf("error %v is not ErrBadRequest", err)
			}
			return
		}
		b, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("valid request does not marshal: %v", err)
		}
		if _, err := DecodeRequest(b); err != nil {
			t.Fatalf("round trip of %s: %v", b, err)
		}
	})
}
