package watcher

import (
	"github.com/logwatch/logwatch/parsers"
)

// Kind says what a Record reports.
type Kind uint8

const (
	// KindLine is one complete line with its parsed Evidence.
	KindLine Kind = iota
	// KindReset starts a new generation of the file at offset 0: it was
	// truncated, rewritten in place or replaced by another file. Lines of the
	// old generation that were not read before it changed are gone.
	KindReset
	// KindOversized reports Count lines skipped for exceeding MaxLineBytes,
	// just before Offset.
	KindOversized
	// KindDeleted: the file is gone. Every complete line it had while it was
	// open has been delivered; no more records follow for this generation.
	KindDeleted
	// KindState (Config.SaveState only) is the first record of a run: State
	// is the consumer's state from the last checkpoint (nil when none).
	KindState
	// KindCheckpoint (Config.SaveState only) is a checkpoint barrier: once
	// the consumer has folded every record before it, it hands its state to
	// Checkpoint.Commit, and the checkpoint is written with it.
	KindCheckpoint
)

var kindNames = [...]string{"line", "reset", "oversized", "deleted", "state", "checkpoint"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Record is one item of the watcher's output. Records of one file arrive in
// file order; records of different files interleave.
type Record struct {
	Kind     Kind
	Path     string
	Agent    parsers.Agent
	Session  string // as the agent's Layout.SessionOf names it from the path, else as the log's own lines do
	Subagent bool   // a subagent's log (Layout.SessionOf): it never drives the session's state
	Gen      int    // generation at this path, counted from 0 within one run

	// Offset and End bracket the line (End is just after its newline).
	Offset, End int64
	// Line is the 1-based line number, or 0 when unknown: a file first seen
	// at start-up is read from its recent tail, and the lines before that
	// window are never counted.
	Line int

	Evidence  parsers.Evidence
	Malformed bool // the line is not valid JSON; Evidence is empty
	// Raw is the line itself when no file holds it to be read back (a
	// session database's row: storefeed); nil for a log's lines.
	Raw []byte

	// Bootstrap marks history: lines already in the file at start-up, or
	// written while the watcher was down. Fold them into state; never
	// publish them as live transitions.
	Bootstrap bool
	// BootMore marks a history line after start-up that more of its
	// session's history follows at once (a replaced database's sessions,
	// read whole): the relay settles the session after the last, once.
	BootMore bool
	// Replay marks bootstrap lines that an earlier run already delivered
	// (before its checkpoint). They are resent so that a fresh relay can
	// rebuild state; first deliveries are exactly once per generation.
	Replay bool

	// Count is the number of lines skipped (KindOversized).
	Count int

	State      []byte      // KindState
	Checkpoint *Checkpoint // KindCheckpoint
}

// Position is where reading a file stands.
type Position struct {
	Gen    int
	Offset int64 // just after the last line delivered
	Line   int   // lines before Offset, 0 when unknown
	Size   int64 // file size when last read
}

// Stats are counters for status output.
type Stats struct {
	Files      int  // files known
	Active     int  // files with a reader open
	Dirs       int  // directories known
	Watched    int  // directories with a watch
	Polled     int  // directories polled for lack of a watch
	Polling    bool // watches could not be had at all
	Overflows  int64
	Oversized  int64
	Malformed  int64
	Resets     int64
	Deleted    int64
	Unreadable int // directories or files that could not be read
	Delivered  int64
}
