// Package parsers turns one line of an agent log into normalized Evidence for
// the session state, and keeps the registry of agents (Spec): each agent's
// package under parsers/ declares its parser and everything else logwatch
// knows about it.
//
// A Parser is stateful per file (it remembers which era a Codex file is in and
// reuses its JSON scratch space), so use one per file and feed it lines in file
// order. Parsers never fail on content they do not know: unknown types are
// reported as KindNone with Unknown set, malformed JSON as ErrMalformed.
package parsers

import (
	"errors"

	"github.com/valyala/fastjson"
)

// Agent names the program that wrote a log.
type Agent string

// AgentUnknown is a log or payload no registered agent claims.
const AgentUnknown Agent = "unknown"

// Kind is what a line means for the session state.
type Kind uint8

const (
	// KindNone: metadata or bookkeeping with no state meaning.
	KindNone Kind = iota
	// KindTurnStart: a new turn began (Claude: a real prompt; Codex: task_started).
	KindTurnStart
	// KindPrompt: user input that opens a turn only when none is open
	// (Codex user_message / UserMessage item, which in newer files follows
	// task_started and mid-turn is just steering).
	KindPrompt
	// KindTurnEnd: the turn finished; End says how.
	KindTurnEnd
	// KindInterrupt: the agent's interrupt marker; Interrupt says which.
	KindInterrupt
	// KindInterruptHint: Codex's <turn_aborted> user item, written ~1 ms before
	// the turn_aborted event. Not an interrupt by itself.
	KindInterruptHint
	// KindCompaction: a context compaction finished.
	KindCompaction
	// KindTool: the agent called a tool (Tool, ToolInput are set).
	KindTool
	// KindActivity: output inside a turn (assistant text, tool results, retries).
	KindActivity
	// KindSidechain: a subagent's line; it never drives the parent's state.
	KindSidechain
	// KindWait: the agent opened a dialog and waits on the user (Copilot's
	// permission.requested); Wait says why, Tool and ToolInput name what
	// it asks about.
	KindWait
	// KindEnd: the agent's own record that the session is over (Copilot's
	// session.shutdown, on /exit, Ctrl+C twice and SIGTERM): ended.
	KindEnd
	// KindAnswered: the user approved the dialog a KindWait opened and the
	// tool runs (Copilot's permission.completed approved); Tool and
	// ToolInput name it.
	KindAnswered
)

var kindNames = [...]string{"none", "turn_start", "prompt", "turn_end", "interrupt",
	"interrupt_hint", "compaction", "tool", "activity", "sidechain", "wait", "end", "answered"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// End says how a turn ended.
type End string

const (
	EndNormal   End = "normal"
	EndAPIError End = "api_error"
)

// Interrupt kinds.
const (
	InterruptUser    = "user"     // Claude "[Request interrupted by user]"
	InterruptToolUse = "tool_use" // Claude "[Request interrupted by user for tool use]"
	InterruptAborted = "aborted"  // Codex turn_aborted{reason:interrupted}
)

// Evidence is what one line says about its session. Strings are copies: an
// Evidence stays valid after the line's buffer is reused.
type Evidence struct {
	Kind Kind
	// Type is the line's type as the agent wrote it ("user", "system/turn_duration",
	// "event_msg/task_started"), for counting and debugging.
	Type string
	// Unknown is set when Type is not one the parser knows.
	Unknown bool
	// At is the line's own timestamp, verbatim (RFC 3339), when it has one.
	At string

	// Identity, set on lines that carry it. The first value seen wins (Codex
	// forks copy the parent's session_meta later in the file).
	SessionID    string
	Cwd          string
	AgentVersion string

	// TurnID is Codex's turn id on task_* / turn_aborted events.
	TurnID string
	// Explicit marks a Codex file with persisted task_started/task_complete
	// events; such files never end a turn on quiet alone.
	Explicit bool

	End       End    // KindTurnEnd; on a Final line, EndAPIError for an answer that failed
	Interrupt string // KindInterrupt: InterruptUser, InterruptToolUse, InterruptAborted
	Trigger   string // KindCompaction: "manual", "auto" or "" when the log does not say
	// BeforePrompt marks an interrupt marker written before the prompt
	// line of the turn it stops (Copilot CLI's abort on a Ctrl+C while the
	// prompt's hooks ran: the user.message follows it), read while the
	// log had no turn open: it stops the turn the hooks opened, which the
	// log has not reported yet.
	BeforePrompt bool

	Wait      string // KindWait: "permission" or "question"
	Tool      string // KindTool, KindWait, KindAnswered: tool name
	ToolInput []byte // KindTool, KindWait, KindAnswered: the tool's input as a JSON object, when it has one (of an object, the Tool*Fields only)

	// ToolEnd marks a tool call's result on a KindActivity line (Copilot's
	// tool.execution_complete): the tool no longer runs.
	ToolEnd bool

	// Retry marks an answer that failed and that the agent retries by
	// itself, after a backoff, in a run that writes nothing until its own
	// answer (pi 0.73.1's auto-retry: formats/pi.md §2.7): the turn goes on.
	// Such a line is KindActivity, not Final; an Esc the log leaves
	// unanswered while the session's latest line is one cancelled the
	// retry (pi writes nothing then). The agent's settings decide it,
	// which a replay elsewhere does not read: a recording keeps it
	// (SetRetry).
	Retry bool

	// Final marks an assistant line that looks like the end of a response
	// (Claude stop_reason end_turn, or a 1.0.x text block; a Codex assistant
	// message). After it, quiet means the turn is over.
	Final bool

	// Background work still running when a Claude turn ended
	// (system/turn_duration pendingBackgroundAgentCount / pendingWorkflowCount).
	PendingAgents    int
	PendingWorkflows int
	// HasPending is set on every turn_duration: an absent count is zero.
	HasPending bool

	// Title is the agent's own title for the session, on the line that
	// sets it (Claude Code's summary and title records, Codex's thread
	// name, OpenCode's session title, pi's session name), shortened by
	// ShortTitle. Prompt is, on a real prompt, its first line shortened
	// the same way: the title of a session whose agent wrote none.
	Title, Prompt string
	// TitleByUser marks a Title the person gave (a rename), which a title
	// the agent generates never replaces.
	TitleByUser bool
}

// The fields of a tool's input that say what the call acts on, by group in
// the order they are tried (SPEC §6; "cmd" is Codex's exec_command field).
// A parser passes on only these: an input can be a whole file being written,
// and copying it only for a reader to parse it again costs the daemon time.
var (
	ToolCommandFields = []string{"command", "CommandLine", "cmd"}
	ToolPathFields    = []string{"file_path", "path", "filePath", "TargetFile"}
	ToolTargetFields  = []string{"url", "query", "Query"}
)

// ToolInputOf marshals the fields of in that ToolCommandFields, ToolPathFields
// and ToolTargetFields name (each the value in's Get returns), as an object.
func ToolInputOf(in *fastjson.Value) []byte {
	out := []byte{'{'}
	for _, group := range [][]string{ToolCommandFields, ToolPathFields, ToolTargetFields} {
		for _, f := range group {
			v := in.Get(f)
			if v == nil {
				continue
			}
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, '"')
			out = append(out, f...)
			out = append(out, '"', ':')
			out = v.MarshalTo(out)
		}
	}
	return append(out, '}')
}

// ErrMalformed is returned for a line that is not a JSON object.
var ErrMalformed = errors.New("malformed line")

// Parser turns one complete line (without its newline) into Evidence.
type Parser interface {
	Parse(line []byte) (Evidence, error)
	Agent() Agent
	// Reset forgets what the parser learned about its file, so that it can
	// read another one with its scratch space warm.
	Reset()
}

// Table builds an interning table: a lookup by a []byte key converted with
// string(b) does not allocate, so known values cost nothing per line.
func Table(list ...string) map[string]string {
	m := make(map[string]string, len(list))
	for _, s := range list {
		m[s] = s
	}
	return m
}

// Intern returns the table's copy of b, or a new string for a value the
// table does not know.
func Intern(b []byte, table map[string]string) string {
	if s, ok := table[string(b)]; ok {
		return s
	}
	return string(b)
}

// Keys are m's keys.
func Keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// KeysOf is Table of m's keys.
func KeysOf(m map[string]bool) map[string]string { return Table(Keys(m)...) }

// PrefixAll maps each key of m to prefix+key.
func PrefixAll(m map[string]string, prefix string) map[string]string {
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = prefix + k
	}
	return out
}

// UnknownNames interns, up to unknownMax of them, the values a table does
// not know: in a file of another agent's lines (a concatenated export) every
// line's type is unknown, and a copy per line was most of verify's garbage.
type UnknownNames map[string]string

const unknownMax = 64

// Intern is Intern(b, table) that also reports whether table knows b.
func (u *UnknownNames) Intern(b []byte, table map[string]string) (string, bool) {
	if s, ok := table[string(b)]; ok {
		return s, true
	}
	if s, ok := (*u)[string(b)]; ok {
		return s, false
	}
	s := string(b)
	if len(*u) < unknownMax {
		if *u == nil {
			*u = UnknownNames{}
		}
		(*u)[s] = s
	}
	return s, false
}

// Prefixed is prefix+b, from the table when b is known.
func Prefixed(b []byte, table map[string]string, prefix string) string {
	if s, ok := table[string(b)]; ok {
		return s
	}
	return prefix + string(b)
}

// Field remembers the last value of a per-line field (session id, cwd,
// version) so that the same value on every line is not copied every time.
type Field struct{ last string }

func (f *Field) Get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if string(b) != f.last {
		f.last = string(b)
	}
	return f.last
}

// SetRetry makes ev say retry, as a recording of the agent's decision
// says, where the parser could decide it (a failed answer: Retry, or Final
// with EndAPIError); other evidence is left as it is.
func (ev *Evidence) SetRetry(retry bool) {
	switch {
	case retry && !ev.Retry && ev.Final && ev.End == EndAPIError:
		ev.Kind, ev.Final, ev.End, ev.Retry = KindActivity, false, "", true
	case !retry && ev.Retry:
		ev.Final, ev.End, ev.Retry = true, EndAPIError, false
	}
}
