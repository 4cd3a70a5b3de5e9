package relay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/logwatch/logwatch/relay/session"
	"github.com/logwatch/logwatch/relay/wire"
)

// What a restart must not forget: the watcher checkpoints how far it has
// read each log, and the relay's state rides in the same file, written at a
// barrier (see watcher.Config.SaveState) so that the state is exactly the
// fold of the lines before the saved positions. A restart restores the
// state, skips the lines already folded into it (the watcher marks them
// Replay) and folds the rest: the result is what a daemon that never
// stopped would show, including what only hooks and API calls said
// (waiting, acknowledged, tab bindings), which no log can re-derive.

// Mark is how far the relay has folded one file in this run: the end (and
// line number, 0 when unknown) of the last record of generation Gen.
type Mark struct {
	Gen  int
	End  int64
	Line int
}

// folded is how far this run has received and folded one file: one map
// entry per file, as a daemon watching 10 000 idle logs holds them all.
type folded struct {
	Mark         // for checkpoints: a new generation starts over, an old line never moves it back
	offset int64 // end of the last line received and not replayed
}

// Saved is the relay's state for a checkpoint.
type Saved struct {
	State   json.RawMessage
	Marks   map[string]Mark
	Changed bool // the state changed since the last Save
}

const savedVersion = 1

type savedRelay struct {
	Version  int                `json:"version"`
	Seq      uint64             `json:"seq"`
	Tabs     map[string]string  `json:"tabs,omitempty"`
	TabProcs map[string]tabProc `json:"tab_procs,omitempty"`
	// Registry is the registry processes followed (registry.go): an agent
	// that exits while the daemon is down removes its file, and only this
	// says which session that file was.
	Registry []savedReg    `json:"registry,omitempty"`
	Sessions savedSessions `json:"sessions"`
}

// savedReg is one registry process as a checkpoint keeps it.
type savedReg struct {
	Path      string `json:"path"`
	Pid       int    `json:"pid"`
	SessionID string `json:"session"`
	ProcStart uint64 `json:"proc_start,omitempty"` // as the file said
	Start     uint64 `json:"start,omitempty"`      // as the relay identifies the process
	StartedAt int64  `json:"started_at,omitempty"`
	Tab       string `json:"tab,omitempty"`
	Removed   bool   `json:"removed,omitempty"`
}

// boundIDs gives a checkpoint's session ids their short form
// (wire.BoundID): one written before ids were bounded may hold a longer
// one, which its next line or hook names by the short form.
func boundIDs(st *savedRelay) {
	for t, id := range st.Tabs {
		st.Tabs[t] = wire.BoundID(id)
	}
	for i := range st.Registry {
		st.Registry[i].SessionID = wire.BoundID(st.Registry[i].SessionID)
	}
	for i := range st.Sessions {
		st.Sessions[i].Session.ID = wire.BoundID(st.Sessions[i].Session.ID)
	}
}

// savedSessions decodes one session at a time into a slice sized from the
// input: json.Unmarshal growing it by doubling left 16 MB of garbage at
// 10 000 sessions, most of what a restart allocated.
type savedSessions []savedEntry

// UnmarshalJSON implements json.Unmarshaler.
func (s *savedSessions) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return fmt.Errorf("sessions: not an array")
	}
	out := make(savedSessions, 0, len(b)/savedEntrySize+1)
	for dec.More() {
		out = append(out, savedEntry{})
		if err := dec.Decode(&out[len(out)-1]); err != nil {
			return fmt.Errorf("sessions[%d]: %w", len(out)-1, err)
		}
	}
	*s = out
	return nil
}

type savedEntry struct {
	Session session.Saved `json:"session"`
	Tab     string        `json:"tab,omitempty"`
	Since   time.Time     `json:"since"`
	Path    string        `json:"path,omitempty"`
}

// checkpoint is the state to save, unless !always and nothing changed
// since the last one (then Saved{}).
func (m *machine) checkpoint(always bool) Saved {
	if !always && !m.store.changed {
		return Saved{}
	}
	b, err := m.encodeState()
	if err != nil {
		m.log.Error().Err(err).Msg("state not encodable; checkpoint keeps positions only")
		b = nil
	}
	sv := Saved{State: b, Marks: m.store.marks(), Changed: m.store.changed}
	m.store.changed = false
	return sv
}

// savedEntrySize is about what a finished session takes in the saved state.
const savedEntrySize = 400

// encodeState writes what json.Marshal(savedRelay{...}) would, one session
// at a time: at 10 000 sessions a []savedEntry of copies plus the encoder's
// own growing buffer were most of the daemon's peak heap. The buffer starts
// at the size of the previous state; the first, at what finished sessions
// take (the doublings up to 10 000 of them were 8 MB of garbage).
func (m *machine) encodeState() ([]byte, error) {
	buf := m.store.stateBuf()
	enc := json.NewEncoder(buf)
	buf.WriteString(`{"version":`)
	buf.WriteString(strconv.Itoa(savedVersion))
	buf.WriteString(`,"seq":`)
	buf.WriteString(strconv.FormatUint(m.seq, 10))
	if len(m.bind.tabs) > 0 {
		buf.WriteString(`,"tabs":`)
		if err := enc.Encode(m.bind.tabs); err != nil {
			return nil, err
		}
	}
	if len(m.bind.tabProcs) > 0 {
		buf.WriteString(`,"tab_procs":`)
		if err := enc.Encode(m.bind.tabProcs); err != nil {
			return nil, err
		}
	}
	if regs := m.regSaved(); len(regs) > 0 {
		buf.WriteString(`,"registry":`)
		if err := enc.Encode(regs); err != nil {
			return nil, err
		}
	}
	if err := m.store.encodeSessions(buf, enc); err != nil {
		return nil, err
	}
	buf.WriteString("}")
	m.store.stateSize = buf.Len()
	return buf.Bytes(), nil
}

func (m *machine) restore(b []byte) error {
	var st savedRelay
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("saved state: %w", err)
	}
	if st.Version != savedVersion {
		return fmt.Errorf("saved state version %d, want %d", st.Version, savedVersion)
	}
	m.seq = st.Seq
	boundIDs(&st)
	for t, s := range st.Tabs {
		m.bind.setTab(t, s)
	}
	for t, p := range st.TabProcs {
		m.bind.tabProcs[t] = p
	}
	m.regRestore(st.Registry)
	// One quiet period for every restored session, as if each had armed
	// its own at this instant (they would fire together, in this order):
	// 10 000 timers at rest are 2 MB.
	m.store.restore(st.Sessions, m.armStartQuiet(), m.pins())
	return nil
}
