package session

import (
	"strings"

	"github.com/logwatch/logwatch/parsers"
)

// Frozen is a Session at rest in 80 bytes instead of 240 (plus its
// strings): the relay keeps most of 10 000 known sessions this way, as they
// sit idle for most of a daemon's life, and thaws one back into a Session
// when anything touches it. Thaw(s.Freeze()) equals s exactly, so freezing
// changes nothing a session does or says.
//
// Strings that are constants (state, reason, source, rule, agent) become
// one-byte codes, cwd and agent version codes of the intern table, a
// session id in the canonical UUID form its 16 bytes, the counters 32 or
// 16 bits, the title the end of the detail's string. What does not fit
// (running subagents, a registry wait's tool, counters out of range, a
// full code table, a title past 255 bytes: never one ShortTitle made) is
// not freezable: Freeze reports false and the session stays as it is.
type Frozen struct {
	uuid [16]byte // the id, when name is ""
	name string   // the id, when it is not a canonical UUID
	text string   // the detail, then the title (its last titleLen bytes)

	turns, turn, hookPos, logPos uint32
	logPending, listed           uint16
	cwd, version                 uint16 // intern codes
	agent, state, reason, source uint8  // word codes
	rule                         uint8
	titleLen                     uint8
	flags                        uint16
}

// Frozen.flags bits.
const (
	fTurnOpen uint16 = 1 << iota
	fHooked
	fTurnPrompted
	fLastFinal
	fExplicit
	fHasList
	fDoneDeferred
	fSubWaiting
	fAnnounced
	fEndedInTurn
	fSubagentSet // subagents is an empty set, not nil
	fUserTitle
	fToolRunning
	fRetrying
)

// words numbers the constant strings of a session. They are a few dozen
// (SPEC §2's states and reasons, the sources, the rules); a string past
// the table's room makes its session not freezable.
var (
	words    = table{all: wordsAll[:]}
	wordsAll [256]string
)

func word(s string) (uint8, bool) {
	c, ok := words.code(s)
	return uint8(c), ok
}

func wordStr(c uint8) string { return words.str(uint16(c)) }

// wordCopy is the table's copy of s, or s: a restored session's constant
// strings come out of the decoded checkpoint, one copy each.
func wordCopy(s string) string {
	if c, ok := word(s); ok {
		return wordStr(c)
	}
	return s
}

// Freeze returns the session's frozen form, false if it has one of the
// states that have none (see Frozen).
func (s *Session) Freeze() (Frozen, bool) {
	var f Frozen
	if len(s.subagents) > 0 || s.waitedTool != "" || s.ID == "" || len(s.Title) > 255 {
		return f, false
	}
	if u, ok := parseUUID(s.ID); ok {
		f.uuid = u
	} else {
		f.name = s.ID
	}
	f.text, f.titleLen = s.Detail, uint8(len(s.Title))
	if s.Title != "" {
		f.text += s.Title
	}
	var ok [10]bool
	f.turns, ok[0] = u32(s.Turns)
	f.turn, ok[1] = u32(s.turn)
	f.hookPos, ok[2] = u32(s.hook.pos)
	f.logPos, ok[3] = u32(s.log.pos)
	f.logPending, ok[4] = u16(s.logPending)
	f.listed, ok[5] = u16(int(s.listed))
	f.cwd, ok[6] = Intern(s.Cwd)
	f.version, ok[7] = Intern(s.AgentVersion)
	f.agent, ok[8] = word(string(s.Agent))
	f.state, ok[9] = word(string(s.State))
	for _, b := range ok {
		if !b {
			return Frozen{}, false
		}
	}
	var ok2 [3]bool
	f.reason, ok2[0] = word(s.Reason)
	f.source, ok2[1] = word(s.Source)
	f.rule, ok2[2] = word(s.Rule)
	if !ok2[0] || !ok2[1] || !ok2[2] {
		return Frozen{}, false
	}
	for _, b := range [...]struct {
		bit uint16
		on  bool
	}{
		{fTurnOpen, s.turnOpen}, {fHooked, s.hooked}, {fTurnPrompted, s.turnPrompted}, {fLastFinal, s.lastFinal},
		{fExplicit, s.explicit}, {fHasList, s.hasList}, {fDoneDeferred, s.doneDeferred}, {fSubWaiting, s.subWaiting},
		{fAnnounced, s.announced}, {fEndedInTurn, s.endedInTurn}, {fSubagentSet, s.subagents != nil}, {fUserTitle, s.userTitle},
		{fToolRunning, s.toolRunning}, {fRetrying, s.retrying},
	} {
		if b.on {
			f.flags |= b.bit
		}
	}
	return f, true
}

// Thaw returns the session Freeze was given.
func Thaw(f *Frozen) *Session {
	s := new(Session)
	f.view(s, true)
	return s
}

// View fills *s with the session f holds, for reading it without keeping
// it: the id is left "" unless withID (it is the one string a view would
// allocate).
func (f *Frozen) View(s *Session, withID bool) { f.view(s, withID) }

func (f *Frozen) view(s *Session, withID bool) {
	*s = Session{
		Agent: parsers.Agent(wordStr(f.agent)), Cwd: interned.str(f.cwd), AgentVersion: interned.str(f.version),
		State: State(wordStr(f.state)), Reason: wordStr(f.reason), Detail: f.text[:len(f.text)-int(f.titleLen)], Title: f.text[len(f.text)-int(f.titleLen):], Source: wordStr(f.source), Rule: wordStr(f.rule),
		Turns: int(f.turns), turn: int(f.turn), hook: source{pos: int(f.hookPos)}, log: source{pos: int(f.logPos)},
		logPending: int(f.logPending), listed: int32(f.listed),
		turnOpen: f.flags&fTurnOpen != 0, hooked: f.flags&fHooked != 0, turnPrompted: f.flags&fTurnPrompted != 0,
		lastFinal: f.flags&fLastFinal != 0, explicit: f.flags&fExplicit != 0, hasList: f.flags&fHasList != 0,
		doneDeferred: f.flags&fDoneDeferred != 0, subWaiting: f.flags&fSubWaiting != 0, announced: f.flags&fAnnounced != 0,
		endedInTurn: f.flags&fEndedInTurn != 0, userTitle: f.flags&fUserTitle != 0,
		toolRunning: f.flags&fToolRunning != 0, retrying: f.flags&fRetrying != 0,
	}
	if f.flags&fSubagentSet != 0 {
		s.subagents = map[string]bool{}
	}
	if withID {
		s.ID = f.ID()
	}
}

// OwnStrings gives the strings of n frozen sessions (ids not in the UUID
// form, details and titles) one block of their own, made now. They were cut from the
// lines read at start-up, each an object of its own among that read's
// garbage, and kept most of its pages from going back to the OS (OpenCode's
// 1 000 stored sessions: measured); packed, they take a few pages.
func OwnStrings(n int, at func(i int) *Frozen) {
	size := 0
	for i := 0; i < n; i++ {
		f := at(i)
		size += len(f.name) + len(f.text)
	}
	if size == 0 {
		return
	}
	var b strings.Builder
	b.Grow(size)
	for i := 0; i < n; i++ {
		f := at(i)
		b.WriteString(f.name)
		b.WriteString(f.text)
	}
	block := b.String()
	for i := 0; i < n; i++ {
		f := at(i)
		f.name, block = block[:len(f.name)], block[len(f.name):]
		f.text, block = block[:len(f.text)], block[len(f.text):]
	}
}

// ID is the session's id.
func (f *Frozen) ID() string {
	if f.name != "" {
		return f.name
	}
	b := formatUUID(f.uuid)
	return string(b[:])
}

// Agent is the session's agent.
func (f *Frozen) Agent() parsers.Agent { return parsers.Agent(wordStr(f.agent)) }

// State is the session's state.
func (f *Frozen) State() State { return State(wordStr(f.state)) }

// Cwd is the session's working directory.
func (f *Frozen) Cwd() string { return interned.str(f.cwd) }

// Phantom is Session.Phantom.
func (f *Frozen) Phantom() bool {
	if f.flags&(fAnnounced|fHooked) != 0 || f.turns != 0 {
		return false
	}
	var s Session
	f.view(&s, false)
	return s.Phantom()
}

// CompareID orders f's id against key's as strings compare, without
// building the string for a UUID.
func (f *Frozen) CompareID(key *IDKey) int {
	if f.name == "" && key.isUUID {
		for i := range f.uuid {
			if f.uuid[i] != key.uuid[i] {
				if f.uuid[i] < key.uuid[i] {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	if f.name != "" {
		return compare(f.name, key.id)
	}
	b := formatUUID(f.uuid)
	return compare(string(b[:]), key.id)
}

// Compare orders two frozen sessions by id.
func (f *Frozen) Compare(g *Frozen) int {
	switch {
	case g.name != "":
		return f.CompareID(&IDKey{id: g.name})
	case f.name == "":
		return f.CompareID(&IDKey{uuid: g.uuid, isUUID: true}) // no string built
	}
	return f.CompareID(&IDKey{uuid: g.uuid, isUUID: true, id: g.ID()})
}

// IDKey is a session id prepared for CompareID.
type IDKey struct {
	id     string
	uuid   [16]byte
	isUUID bool
}

// Key prepares id for CompareID.
func Key(id string) IDKey {
	k := IDKey{id: id}
	k.uuid, k.isUUID = parseUUID(id)
	return k
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func u32(n int) (uint32, bool) {
	return uint32(n), n >= 0 && n <= 1<<32-1
}

func u16(n int) (uint16, bool) {
	return uint16(n), n >= 0 && n <= 1<<16-1
}

const hexDigits = "0123456789abcdef"

// parseUUID reads a UUID in its canonical form (8-4-4-4-12 lowercase hex
// digits), the only form formatUUID gives back.
func parseUUID(s string) ([16]byte, bool) {
	var u [16]byte
	if len(s) != 36 {
		return u, false
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return u, false
			}
			i++
			continue
		}
		hi, ok1 := unhex(s[i])
		lo, ok2 := unhex(s[i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[j] = hi<<4 | lo
		j++
		i += 2
	}
	return u, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func formatUUID(u [16]byte) [36]byte {
	var b [36]byte
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			b[i] = '-'
			i++
			continue
		}
		b[i], b[i+1] = hexDigits[u[j]>>4], hexDigits[u[j]&15]
		j++
		i += 2
	}
	return b
}
