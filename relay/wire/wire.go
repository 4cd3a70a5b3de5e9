// Package wire is the daemon's protocol as its clients see it: the socket
// and HTTP requests and answers, the events and status they carry, and
// the HTTP listener's headers and addresses (docs/protocol.md). It imports
// nothing of the project, so a client, the pty proxy, the status view and
// the settings editors can speak to the daemon without linking it.
package wire

import (
	"encoding/json"
	"time"
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
	// OpFocus says which tab the person is looking at (Tab; "" for none):
	// a host app or the tmux follower reports it, and no alert is raised
	// for a session shown in that tab.
	OpFocus = "focus"
)

// Request is one API call.
type Request struct {
	Op      string          `json:"op"`
	Agent   string          `json:"agent,omitempty"`   // hook: claude, codex, or "" to detect
	Tab     string          `json:"tab,omitempty"`     // hook, key, tab_opened, tab_closed
	Pid     int             `json:"pid,omitempty"`     // tab_opened; optional on key, tab_closed: the tab's child process; hook: the agent's
	Start   uint64          `json:"start,omitempty"`   // hook: the agent process's start time (proctree.StartTime): a reused pid is not it
	Session string          `json:"session,omitempty"` // ack
	Host    string          `json:"host,omitempty"`    // ack: the remote the session runs on ("" here)
	Key     string          `json:"key,omitempty"`     // key: esc, ctrl-c
	At      *time.Time      `json:"at,omitempty"`      // key: when it was pressed (default: when received)
	Payload json.RawMessage `json:"payload,omitempty"` // hook: the agent's payload, verbatim
	// Alerts, on subscribe: this subscriber (a host app) shows its own
	// alerts for the sessions it hosts, so the daemon's notifier stays
	// quiet for them while it is subscribed.
	Alerts bool `json:"alerts,omitempty"`
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

// Keys a pty source can report.
const (
	KeyEsc   = "esc"
	KeyCtrlC = "ctrl-c"
	// KeyEnter is a submit (an unmodified Enter): never an interrupt, it
	// is the evidence that binds a Codex session to its tab (relay/codexbind.go).
	KeyEnter = "enter"
)
