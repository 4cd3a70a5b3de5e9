package wire

import "time"

// Event is one published change (or, with Snapshot, one session's current
// state when a subscription starts).
type Event struct {
	Seq           uint64 `json:"seq"`
	Snapshot      bool   `json:"snapshot,omitempty"`
	Bootstrap     bool   `json:"bootstrap,omitempty"`
	Resync        bool   `json:"resync,omitempty"` // a coalesced change: the subscriber fell behind, earlier changes of this session were skipped
	Session       string `json:"session"`
	Agent         string `json:"agent"`
	Tab           string `json:"tab"`
	Cwd           string `json:"cwd"`
	Worktree      string `json:"worktree"`
	WorktreeState string `json:"worktree_state,omitempty"`
	State         string `json:"state"`
	Reason        string `json:"reason"`
	Detail        string `json:"detail"`
	// Title says what the session is about: the agent's own title where it
	// writes one, else its first prompt's first line, shortened. Log data,
	// like Detail.
	Title  string    `json:"title,omitempty"`
	Source string    `json:"source"`
	Rule   string    `json:"rule"`
	Since  time.Time `json:"since"`
	// Pid is the session's agent process as Claude Code's registry names
	// it (0: not known), Live whether it still runs.
	Pid  int  `json:"pid,omitempty"`
	Live bool `json:"live,omitempty"`
	// Host is the remote (remotes: in the configuration) the session runs
	// on, "" for this machine. Stale marks a remote session whose link is
	// down: its state is the last the remote sent, since StaleSince, for
	// StaleReason.
	Host        string     `json:"host,omitempty"`
	Stale       bool       `json:"stale,omitempty"`
	StaleReason string     `json:"stale_reason,omitempty"`
	StaleSince  *time.Time `json:"stale_since,omitempty"`
}

// Counters are the relay's running totals (`logwatch status`).
type Counters struct {
	HooksReceived int64 `json:"hooks_received"`
	HooksDropped  int64 `json:"hooks_dropped"`
	HooksUnknown  int64 `json:"hooks_unknown"`
	HooksSubagent int64 `json:"hooks_subagent"`
	BadRequests   int64 `json:"bad_requests"`
	Lines         int64 `json:"lines"`
	Malformed     int64 `json:"malformed"`
	// LinesUnknown counts log lines of a type the agent's parser does not
	// know (ignored: they move no session); Drift counts them by "agent
	// version type", for the first 64 such keys ("other" after that).
	LinesUnknown          int64            `json:"lines_unknown"`
	Drift                 map[string]int64 `json:"drift,omitempty"`
	Oversized             int64            `json:"oversized"`
	Keys                  int64            `json:"keys"`
	InterruptCandidates   int64            `json:"interrupt_candidates"`
	InterruptsConfirmed   int64            `json:"interrupts_confirmed"`
	InterruptsUnconfirmed int64            `json:"interrupts_unconfirmed"`
	KeyToMarkerLastMs     int64            `json:"key_to_marker_last_ms"`
	KeyToMarkerMaxMs      int64            `json:"key_to_marker_max_ms"`
	SubscriberResyncs     int64            `json:"subscriber_resyncs"` // times a subscriber fell behind and got coalesced changes
	Subscribers           int64            `json:"subscribers"`        // connected now
	ConnCounters

	// HTTPRefused counts HTTP requests refused before any handler (foreign
	// Host or Origin, no secret, not JSON); TranscriptsRefused counts hook
	// transcript_paths outside every log root, never opened.
	HTTPRefused        int64 `json:"http_refused"`
	TranscriptsRefused int64 `json:"transcripts_refused"`

	// RegistryProcesses counts Claude Code registry files read and present
	// now; ProcessesGone the processes found gone without removing theirs.
	RegistryProcesses int64 `json:"registry_processes"`
	ProcessesGone     int64 `json:"processes_gone"`

	// Submits counts Enter presses reported; BindsSubmit the Codex sessions
	// bound to a tab by one (bind.submit, bind.submit_late, bind.submit_first),
	// BindsAmbiguous the turn starts that followed submits in several tabs
	// (or the late submits that followed several turn starts) and bound none;
	// BindsRetracted the bindings a late submit in another tab made
	// ambiguous after the fact, undone.
	Submits            int64 `json:"submits"`
	BindsSubmit        int64 `json:"binds_submit"`
	BindsAmbiguous     int64 `json:"binds_ambiguous"`
	BindsRetracted     int64 `json:"binds_retracted"`
	SubmitToTurnLastMs int64 `json:"submit_to_turn_last_ms"`
	SubmitToTurnMaxMs  int64 `json:"submit_to_turn_max_ms"`
}

// Status is a point-in-time view of everything.
type Status struct {
	Sessions  []Event         `json:"sessions"`  // never null: [] when there is none
	Worktrees []WorktreeState `json:"worktrees"` // never null
	Roots     []string        `json:"roots"`     // the log roots searched, never null
	Remotes   []RemoteState   `json:"remotes"`   // the configured remotes, never null
	Counters  Counters        `json:"counters"`
	// Notify is each running notification sink's totals, in the order
	// configured (never null: [] without one). The notifier runs beside
	// the relay's machine, so the server adds them as it answers: a
	// replay has none.
	Notify []SinkStats `json:"notify"`
}

// SinkStats are one notification sink's totals since the daemon started.
type SinkStats struct {
	Name      string `json:"name"` // desktop, command or webhook
	Shown     int64  `json:"shown"`
	Withdrawn int64  `json:"withdrawn"`
	Failed    int64  `json:"failed"`    // calls that failed or hit the deadline
	Replaced  int64  `json:"replaced"`  // queued actions a newer one of the same session replaced
	Cancelled int64  `json:"cancelled"` // queued shows a withdraw cancelled before they went out
	Dropped   int64  `json:"dropped"`   // actions refused: the queue was full
	// LastError is the last failed call's error (URLs name only their
	// scheme and host), at LastErrorAt.
	LastError   string     `json:"last_error,omitempty"`
	LastErrorAt *time.Time `json:"last_error_at,omitempty"`
}

// RemoteState is one configured remote's link, as the daemon last saw it.
type RemoteState struct {
	Name string `json:"name"`
	Dest string `json:"dest"`
	// State is "connecting" (never up yet), "up", "down" (lost; its
	// sessions are stale) or "unusable" (the remote's logwatch is missing
	// or speaks another protocol: Error says which, Fix what to do).
	State    string    `json:"state"`
	Since    time.Time `json:"since"`
	Error    string    `json:"error,omitempty"`
	Fix      string    `json:"fix,omitempty"`
	Version  string    `json:"version,omitempty"`  // the remote's logwatch
	Protocol int       `json:"protocol,omitempty"` // the remote's socket protocol
	Sessions int       `json:"sessions"`
	// Links counts the subscriptions made (1 + the reconnects), Attempts
	// the links that failed or dropped.
	Links    int64 `json:"links"`
	Attempts int64 `json:"attempts"`
	// Dropped counts sessions the remote sent past the 20 000 kept;
	// Skipped the lines from it that were no event (counted, not a
	// reason to drop the link).
	Dropped int64 `json:"dropped,omitempty"`
	Skipped int64 `json:"skipped,omitempty"`
}

// WorktreeState is one registered worktree's row: its most urgent session.
type WorktreeState struct {
	Host     string `json:"host,omitempty"` // a remote's worktree ("" here)
	Path     string `json:"path"`
	State    string `json:"state"`
	Sessions int    `json:"sessions"`
}

// ConnCounters are the socket server's connection figures (`status`).
type ConnCounters struct {
	ConnsMax       int64 `json:"conns_max"`       // request connections budget
	Conns          int64 `json:"conns"`           // request connections open now
	SubscribersMax int64 `json:"subscribers_max"` // subscriptions budget
	Focused        int64 `json:"focused"`         // connections holding a focus, within subscribers_max
	ConnsEvicted   int64 `json:"conns_evicted"`   // idle (or answer unread) connections closed to make room
	ConnsRefused   int64 `json:"conns_refused"`   // refused: every request connection busy, or subscriptions full
	AcceptErrors   int64 `json:"accept_errors"`   // accept failures retried (EMFILE and the like)
	// Status answers (relay/server/statusanswer.go): how many were built, how many
	// requests they answered, how many were refused busy.
	StatusBuilt  int64 `json:"status_built"`
	StatusServed int64 `json:"status_served"`
	StatusBusy   int64 `json:"status_busy"`
}

// RemoteUpdate is what a remote's link (package remote) reports to the
// daemon that subscribed through it: the link's state, the remote's
// snapshot and its changes. Kind is one of the Remote* kinds.
type RemoteUpdate struct {
	Remote   string  `json:"remote"`
	Dest     string  `json:"dest,omitempty"`
	Kind     string  `json:"kind"`
	Version  string  `json:"version,omitempty"`  // up: the remote's logwatch
	Protocol int     `json:"protocol,omitempty"` // up, unusable: its protocol
	Events   []Event `json:"events,omitempty"`   // snapshot: a part of it, as it arrived
	More     bool    `json:"more,omitempty"`     // snapshot: more of it follows
	Event    *Event  `json:"event,omitempty"`    // event
	Error    string  `json:"error,omitempty"`    // down, unusable; skipped: why
	Fix      string  `json:"fix,omitempty"`      // unusable: what to do
}

// RemoteUpdate kinds, and RemoteState.State's values.
const (
	RemoteConnecting = "connecting" // a link is being made (never up yet)
	RemoteUp         = "up"         // subscribed: the snapshot follows
	RemoteSnapshot   = "snapshot"   // the remote's every session, in parts (More)
	RemoteEvent      = "event"      // one change
	RemoteSkipped    = "skipped"    // a line from the remote that was no event, skipped
	RemoteDown       = "down"       // the link dropped: its sessions are stale
	RemoteUnusable   = "unusable"   // logwatch missing or too old there
)
