package relay

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// A recording is one JSONL file of everything that entered the relay and
// everything it published, each line stamped with the relay clock:
//
//	{"t":…,"kind":"start","config":{…},"timers":true}
//	{"t":…,"kind":"log","path":…,"session":…,"agent":…,"offset":…,"end":…,"line":…,"raw":"…"}
//	{"t":…,"kind":"hook","agent":…,"tab":…,"payload":{…}}   (the full payload)
//	{"t":…,"kind":"key","tab":…,"key":…,"at":…}
//	{"t":…,"kind":"tab_process","tab":…,"pid":…,"start":…}
//	{"t":…,"kind":"registry","registry":{…},"start":…}   (a registry file, the start its reader read)
//	{"t":…,"kind":"registry_removed","path":…} / {"kind":"registry_listed"}
//	{"t":…,"kind":"exit","pid":…,"start":…}   (a pidfd told a process's exit)
//	{"t":…,"kind":"oversized","path":…,"gen":…,"end":…,"line":…,"n":…}
//	{"t":…,"kind":"proc","op":"alive"|"descends"|"watch","pid":…,"start":…,"ancestor":…,"ok":…}
//	    (the answer to each question a step asked about processes: a replay
//	    gives the same answers, not the replaying machine's)
//	{"t":…,"kind":"timer","timer":…}   (an armed timer ran: a replay runs it here)
//	{"t":…,"kind":"ack","session":…} / {"kind":"tab_closed","tab":…} / {"kind":"gone","session":…}
//	{"t":…,"kind":"restore","state":{…}}   (a restart's saved state)
//	{"t":…,"kind":"bootstrap_done"}
//	{"t":…,"kind":"change","event":{…}}
//
// `logwatch replay` feeds it back through the same code.

// RecordKind names a recording line.
const (
	RecStart         = "start"
	RecLog           = "log"
	RecHook          = "hook"
	RecKey           = "key"
	RecAck           = "ack"
	RecTabClosed     = "tab_closed"
	RecTabProcess    = "tab_process"
	RecGone          = "gone"
	RecBootstrapDone = "bootstrap_done"
	RecRestore       = "restore" // the state restored from the checkpoint, before any log line
	RecChange        = "change"

	RecRegistry        = "registry"         // a registry file read
	RecRegistryRemoved = "registry_removed" // a registry file removed
	RecRegistryListed  = "registry_listed"  // the registry's start-up listing is complete
	RecExit            = "exit"             // a watched process exited
	RecOversized       = "oversized"        // lines skipped for their length
	RecProc            = "proc"             // an answer about a process (ProcFacts)
	RecTimer           = "timer"            // an armed timer ran (timers.go)
	RecRemote          = "remote"           // a remote's link reported (remote.go)
)

// RecordLine is one line of a recording.
type RecordLine struct {
	T    time.Time `json:"t"`
	Kind string    `json:"kind"`

	// start; Timers: the recording holds every timer run (RecTimer)
	Config *Config `json:"config,omitempty"`
	Timers bool    `json:"timers,omitempty"`
	// log
	Path      string `json:"path,omitempty"`
	Session   string `json:"session,omitempty"`
	Agent     string `json:"agent,omitempty"`
	Subagent  bool   `json:"subagent,omitempty"`
	Offset    int64  `json:"offset,omitempty"`
	End       int64  `json:"end,omitempty"`
	Line      int    `json:"line,omitempty"`
	Raw       string `json:"raw,omitempty"`
	Bootstrap bool   `json:"bootstrap,omitempty"`
	BootMore  bool   `json:"boot_more,omitempty"`
	Replay    bool   `json:"replay,omitempty"` // already in the restored state
	// Retry is the line's Evidence.Retry: the agent's own settings decided
	// it, which a replay does not read.
	Retry bool `json:"retry,omitempty"`
	// restore
	State json.RawMessage `json:"state,omitempty"`
	// hook, key, ack, tab_closed
	Tab     string          `json:"tab,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Key     string          `json:"key,omitempty"`
	At      *time.Time      `json:"at,omitempty"`
	Pid     int             `json:"pid,omitempty"` // tab_process, exit, proc
	// registry
	Registry *RegistryProcess `json:"registry,omitempty"`
	// tab_process, registry, exit, proc: the process's start time
	Start uint64 `json:"start,omitempty"`
	// oversized: the file's position past the skipped lines, and how many
	Gen int `json:"gen,omitempty"`
	N   int `json:"n,omitempty"`
	// proc
	Op       string `json:"op,omitempty"`
	Ancestor int    `json:"ancestor,omitempty"`
	OK       bool   `json:"ok,omitempty"`
	// timer: the number of its arming, and its name (a replay goes by it)
	Timer uint64 `json:"timer,omitempty"`
	Name  string `json:"name,omitempty"`
	// change
	Event *Event `json:"event,omitempty"`
	// ack: the remote named; remote: what its link reported
	Host   string        `json:"host,omitempty"`
	Remote *RemoteUpdate `json:"remote,omitempty"`
}

// Recorder receives what the relay records. It is called only from the
// relay goroutine.
type Recorder interface {
	Record(RecordLine)
}

// FileRecorder writes a recording to a private file, stopping with a
// warning when it reaches its size limit.
type FileRecorder struct {
	mu      sync.Mutex
	f       *os.File
	w       *bufio.Writer
	written int64
	max     int64
	full    bool
	log     zerolog.Logger
}

// ErrRecordingExists keeps a recording from being overwritten by accident.
var ErrRecordingExists = errors.New("recording file exists")

// NewFileRecorder creates path (0600, never overwriting) for a recording of
// at most max bytes.
func NewFileRecorder(path string, max int64, log zerolog.Logger) (*FileRecorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("%w: %s", ErrRecordingExists, path)
	}
	if err != nil {
		return nil, fmt.Errorf("recording: %w", err)
	}
	return &FileRecorder{f: f, w: bufio.NewWriterSize(f, 64<<10), max: max,
		log: log.With().Str("component", "recorder").Str("path", path).Logger()}, nil
}

// Record implements Recorder.
func (fr *FileRecorder) Record(l RecordLine) {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	if fr.full || fr.f == nil {
		return
	}
	b, err := json.Marshal(l)
	if err != nil {
		return
	}
	if fr.max > 0 && fr.written+int64(len(b))+1 > fr.max {
		fr.full = true
		fr.log.Warn().Int64("max_bytes", fr.max).Msg("recording reached its size limit and stopped; the daemon goes on")
		fr.w.Flush()
		return
	}
	fr.w.Write(b)
	fr.w.WriteByte('\n')
	fr.written += int64(len(b)) + 1
	if l.Kind != RecLog {
		// Keep the file current for someone reading along; log lines come
		// in bursts and are flushed with the next other record.
		fr.w.Flush()
	}
}

// Close flushes and closes the file.
func (fr *FileRecorder) Close() error {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	if fr.f == nil {
		return nil
	}
	err := fr.w.Flush()
	if cerr := fr.f.Close(); err == nil {
		err = cerr
	}
	fr.f = nil
	return err
}

// ReadRecording parses a recording file.
func ReadRecording(path string) ([]RecordLine, error) {
	f, err := safeopen.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []RecordLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), MaxRecordLine)
	n := 0
	for sc.Scan() {
		n++
		var l RecordLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// MaxRecordLine bounds one recording line (a log line is embedded in it).
const MaxRecordLine = 64 << 20

// record sends a line to the recorder, if any, stamped now.
func (r *Relay) record(l RecordLine) {
	if r.rec == nil {
		return
	}
	l.T = r.clock.Now()
	r.rec.Record(l)
}
