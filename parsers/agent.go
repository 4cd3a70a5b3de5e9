package parsers

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fastjson"
)

// Spec is everything logwatch knows about one agent. The agent's package
// (parsers/<agent>) fills it in and parsers/agents registers it; every other
// package loops over All and names no agent. Fields that are nil or empty
// mean the agent does not have that part (no hooks, no registry).
type Spec struct {
	Name  Agent
	Title string // for people: "Claude Code"
	// Bin is the executable the agent runs as: doctor and selftest find the
	// installed release by it (its --version names the release).
	Bin string

	// The log: its parser, how its content is recognised, where its files
	// live and how their names give sessions.
	NewParser func() Parser
	// Detect reports whether a log line (a parsed JSON object) identifies
	// the agent. Agents are asked in registration order, so a more specific
	// test registers first (or sets DetectFirst).
	Detect func(v *fastjson.Value) bool
	// DetectFirst asks Detect before every other agent's test, whatever
	// the registration order (which is also the order people see agents
	// in, and the one try picks from): for an agent whose lines pass a
	// broader test registered earlier.
	DetectFirst bool
	Layout      Layout
	// Store, when set, is the agent's session database, which is its log
	// instead of files under Layout: its Roots are the directories that
	// hold one.
	Store *Store
	// Roots are the default log roots, as configuration paths (~ and
	// ${VAR:-default} expand).
	Roots []string
	// Resumes reports whether a line appended to an ended session's log
	// means a new process took the conversation up.
	Resumes func(Evidence) bool
	Traits  Traits

	Hooks Hooks
	// Registry is the agent's live session registry; nil: it keeps none.
	Registry *Registry
	// Home is the agent's own configuration directory (a configuration
	// path): doctor looks for it to tell an agent that is not installed.
	Home string
	// KnownGood is the release the live conformance suite last passed with
	// (conformance/agents); a newer one is drift until it passes too. A
	// func, so that the pins are read when asked for (doctor, version), not
	// at every process's start; nil: none.
	KnownGood func() string
	// BindBySubmit binds a turn start that names no tab to the tab whose
	// Enter came just before it (the agent's hooks cannot carry the tab).
	BindBySubmit bool
	// Offline is how the agent runs offline against a fake model server;
	// nil: selftest cannot drive it.
	Offline *Offline
	// NotOffline, when Offline is nil, says why selftest cannot drive the
	// agent and what to run instead: selftest names it rather than skip it
	// silently.
	NotOffline string
}

// Offline is what is particular to one agent when logwatch drives it in a
// private home against a local fake model server (selftest/fakemodel):
// `logwatch selftest` and the live conformance suite (selftest/driver).
// The screens it names are the agent's own words, which the driver waits
// for as a person would.
type Offline struct {
	// Model is the API the agent speaks: ModelAnthropic, ModelOpenAI or
	// ModelOpenAIChat or ModelGemini.
	Model string
	// Setup writes the agent's configuration into a private home (the
	// fake model server as its provider, the work dir trusted, first-run
	// screens seen, updates and telemetry off) and returns the environment
	// the agent runs with (KEY=VALUE).
	Setup func(o OfflineHome) (env []string, err error)
	// Args follow Bin on the command line: tools ask before they run.
	Args []string
	// Start takes the agent from its first screen to its idle prompt
	// within timeout; trustHooks: its first start with logwatch's hooks
	// installed, which it asks to trust.
	Start func(t Terminal, trustHooks bool, timeout time.Duration) error
	// Interrupt is the key that stops a turn mid-stream (a tmux key name).
	Interrupt string
	// InterruptAgain, when set, is what the agent shows after a first
	// Interrupt when it wants the key pressed again to stop (OpenCode's
	// "esc again"); "": one press stops it.
	InterruptAgain string
	// Streaming is on the screen while an answer streams, when the answer's
	// own text is not (Copilot CLI draws it only once it is whole): what
	// the driver waits for before it interrupts. "": the answer's text.
	Streaming string
	// Permission is the permission dialog's text; Approve the key that
	// approves the tool it asks for.
	Permission string
	Approve    string
	// Quit is what is typed at the prompt to quit.
	Quit string
	// VersionEnv, when set, is the environment `Bin --version` needs in a
	// private empty home besides HOME and PATH (KEY=VALUE).
	VersionEnv func() []string
	// Stop stops what the agent left running in home once its terminal
	// is gone (a background server); nil: nothing outlives it.
	Stop func(home string)
}

// The fake model APIs an agent can speak (selftest/fakemodel serves them
// under the same names).
const (
	ModelAnthropic  = "anthropic-messages" // POST /v1/messages
	ModelOpenAI     = "openai-responses"   // POST /v1/responses
	ModelOpenAIChat = "openai-chat"        // POST /v1/chat/completions
	// POST /v1beta/models/<m>:streamGenerateContent
	ModelGemini = "gemini-generate-content"
)

// OfflineHome is where an offline agent runs.
type OfflineHome struct {
	Home    string // the private HOME
	Work    string // the work dir (its real path), to trust
	URL     string // the fake model server's base URL
	Version string // the agent's release, "" when unknown
}

// Terminal is the screen and keyboard of the terminal an offline agent
// runs in. Key and Wait end the run when it must stop (a Ctrl+C).
type Terminal interface {
	Screen() string
	Key(keys ...string)
	Wait(d time.Duration)
}

// WaitScreen waits until the terminal shows text, for an Offline's Start
// (agent names the agent in the error, which shows the screen).
func WaitScreen(t Terminal, agent Agent, text string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for !strings.Contains(t.Screen(), text) {
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %q never appeared on the screen within %s; the screen:\n%s", agent, text, timeout, t.Screen())
		}
		t.Wait(100 * time.Millisecond)
	}
	return nil
}

// Layout is how an agent lays out its logs under a root.
type Layout struct {
	// WantDir reports whether a directory depth levels below the root is
	// part of the layout; WantFile whether a file there is a log.
	WantDir  func(depth int, name string) bool
	WantFile func(depth int, name string) bool
	// SessionOf derives the session a log belongs to from its path ("":
	// the log's own lines name it), and whether it is a subagent's log.
	SessionOf func(path string) (id string, subagent bool)
	// Claims recognises the agent's log by its path alone, for a file
	// outside every root.
	Claims func(path string) bool
	// Name is how the agent names a session's log after its id; nil: it
	// does not (the relay then keeps such a session's log path in full).
	Name *LogName
}

// Store is an agent's session database read as its log: every change is a
// row whose Line the agent's parser reads, in the order of their cursors.
type Store struct {
	// Files are the databases' names in a root.
	Files []string
	// Wakes reports whether a file event on name, in the directory of the
	// database file db, can mean new rows (the database, its journal).
	Wakes func(db, name string) bool
	// Open opens the database at path for reading only: never a write, a
	// write lock or a checkpoint of the agent's journal.
	Open func(path string) (StoreDB, error)
}

// StoreDB is an open session database. Errors that wrap ErrStoreBusy mean
// "not now" (locked, being created or migrated); ErrStoreDamaged, a file
// that is not a database or is corrupt; others, that it cannot be read as
// it is (an unknown schema).
type StoreDB interface {
	// Changes are the rows after cursor, oldest first, at most max, with
	// lines of at most maxBytes in all: the first row that would pass it
	// ends them unread (Line nil, Size its line's length), for the caller
	// to make room and ask again.
	Changes(after int64, max int, maxBytes int64) ([]StoreRow, error)
	// Current gives each, one call per session changed since (newest
	// first), the rows that give its present state, oldest first: its
	// current turn's first row and at most perSession newest, so that
	// every session is read in bounded time and memory; and returns the
	// cursor to follow on from. each may not keep rows; its error ends the
	// read and is returned.
	Current(since time.Time, perSession int, each func(rows []StoreRow) error) (cursor int64, err error)
	// Version is a token of the committed changes, read without a query:
	// it changes whenever new changes become readable. ok false: it cannot
	// tell (read to know).
	Version() (v uint64, ok bool)
	Close() error
}

// StoreRow is one change to Session (a subagent's, with its Parent), as a
// line for the agent's parser.
type StoreRow struct {
	Cursor          int64
	Session, Parent string
	Line            []byte
	// Size is, for a row Changes left unread (Line nil), its line's length.
	Size int64
}

// Errors a StoreDB's reads wrap.
var (
	// ErrStoreBusy is a session database that cannot be read now; a later
	// change brings it.
	ErrStoreBusy = errors.New("session database busy")
	// ErrStoreDamaged is a file that is not a database, or a corrupt one:
	// it will not pass by itself.
	ErrStoreDamaged = errors.New("session database damaged")
	// ErrStoreReset is a cursor that no longer points into the database's
	// changes (renumbered, or another database): read its present state
	// again.
	ErrStoreReset = errors.New("session database changes renumbered")
)

// LogName packs what a log's file name holds besides its session's id
// into a number, so that a session at rest keeps its log's name in four
// bytes (the relay's frozen records), and gives the name back: the name is
// prefix + id + suffix, with Unpack(n) giving prefix and suffix, whenever
// Pack(base, id) is (n, true). Pack is false for a name the agent does not
// give session id's log.
type LogName struct {
	Pack   func(base, id string) (n uint32, ok bool)
	Unpack func(n uint32) (prefix, suffix string)
}

// Traits are how an agent's turns behave where agents differ; the state
// folder (relay/session) asks them instead of the agent's name.
type Traits struct {
	// PromptedTurns: every turn starts from the user's prompt.
	PromptedTurns bool
	// LateOutputResumes: output after a finished turn, in a session
	// without hooks, means the agent went back to work (a Stop hook that
	// blocked, a continuation).
	LateOutputResumes bool
	// ExplicitEnds: once a log has explicit turn records, quiet after a
	// final message never ends a turn.
	ExplicitEnds bool
	// LateStartHook: SessionStart fires at the first prompt, after the
	// turn started, so it closes nothing.
	LateStartHook bool
	// TurnsOutliveProcess: a turn running when the agent's process ended
	// goes on and finishes elsewhere (a background server).
	TurnsOutliveProcess bool
	// CompactsBetweenRuns: the agent compacts only once a run is over, so a
	// compaction line after a final answer means that answer ended the run.
	CompactsBetweenRuns bool
	// CompactionTurns: a compaction is a turn of its own (a prompt, then
	// the summary), so the compaction's end ends the turn.
	CompactionTurns bool
	// Header: the log names its session on its first line only, so a read
	// that starts in the middle reads that line first.
	Header bool
	// Slot is the byte length of a fixed-width record on the log's first
	// line (newline included) that the agent rewrites in place, keeping
	// its length (omp's title): the check that a file is still the
	// generation read skips it, and the header is the line after it. 0:
	// none.
	Slot int
	// LazyLog reports whether a release creates its log at the first
	// prompt, so that a log holding only metadata is a session nobody used.
	LazyLog func(version string) bool
	// FinalQuiet, when set, is how long a log must stay quiet after a
	// final answer (one not ending in an error: End) before its turn is
	// done, for an agent measured to write what goes on after such an
	// answer at once: the relay's turn_quiet when that is shorter.
	FinalQuiet time.Duration
	// EscKeepsStream: a lone Esc does not stop a streaming answer, only a
	// running tool or an open dialog (Copilot CLI 1.0.102 ignores Esc while
	// the model streams; Ctrl+C stops it: formats/copilot.md §2.4), so an
	// Esc is an interrupt candidate only while the session waits or runs a
	// tool.
	EscKeepsStream bool
	// StopAfterInterrupt: the agent's turn-end hook (Stop) fires after an
	// interrupt as well, just after the log's marker (Gemini CLI 0.61.0's
	// AfterAgent after Esc/Ctrl+C mid-stream, formats/gemini.md §4), so a
	// Stop after the interrupt is its echo, and the marker read after such
	// a Stop still makes the turn interrupted.
	StopAfterInterrupt bool
	// SubmitLag is how long after the Enter that submitted it a turn start
	// may be stamped (BindBySubmit), when that is over the relay's default
	// second.
	SubmitLag time.Duration
}

// Hooks is how the agent reports through hooks and how logwatch installs
// them.
type Hooks struct {
	// Events are the hook events logwatch installs handlers for, by the
	// names the hook payloads carry.
	Events []string
	// Retired are events logwatch once installed that the known-good
	// release does not have: install removes their handlers.
	Retired []string
	// Extra are events the agent may send that are not installed
	// (reported by other means) but are known.
	Extra []string
	// Claims recognises the agent's hook payload when the hook client did
	// not say which agent ran it.
	Claims func(h *Hook) bool
	// Fallback: a payload nothing claims is this agent's.
	Fallback bool
	// Decode, when set, reads the agent's own payload v into h, whose
	// common fields (Claude Code's names) are read already: its event
	// names and fields in the relay's terms (Events are then the names its
	// settings file and payloads use). An event that says nothing of the
	// state is left with Event "" (refused as a bad hook, and counted).
	Decode func(v *fastjson.Value, h *Hook)

	// Settings is the hooks file for the user scope (a configuration
	// path) and, relative to the working directory, the project scope.
	Settings, ProjectSettings string
	Timeout                   int // seconds, per handler
	// TimeoutMillis: the settings file takes the timeout in milliseconds
	// (Gemini CLI's hooks), written as Timeout*1000.
	TimeoutMillis bool
	// HandlerName, when set, is written as each handler's "name" (Gemini
	// CLI shows it while the hook runs).
	HandlerName string
	// Matcher is written on the tool events ("": no matcher key, which
	// every agent reads as all tools); ToolEvents are those events.
	Matcher    string
	ToolEvents []string
	// Flat: the settings file's event arrays hold the handlers themselves,
	// {"type":"command","bash":…,"timeoutSec":…} (Copilot CLI), not
	// Claude Code's matcher groups; and as the payloads name no event,
	// each handler's command names its own (logwatch hook --event).
	Flat bool
	// HTTP: the agent can post hooks to a URL instead of running a command.
	HTTP bool
	// InstallNote is printed after an install; DoctorNote beside an
	// installed set (what else must happen before the hooks run).
	InstallNote, DoctorNote string

	// Extension, when set, is how the agent takes hooks instead of a
	// settings file: it loads a module (an extension, a plugin) that
	// logwatch writes whole, which forwards the agent's events as Events.
	Extension *Extension

	// Process, when set, names the agent's process to the hook client.
	Process Process
}

// Process names the agent's own long-lived process among its hook client's
// ancestors (the agent's exit then ends its session, and the session is
// published with its pid), measured on each agent: which process runs
// the hook command, through which shell or launcher. A wrong process is
// worse than none (its exit would end a live session), so an agent whose
// chain was not measured sets none, and Is never names a shell or a
// launcher the agent leaves running.
type Process struct {
	// Hops is how many processes are looked at, the hook client's parent
	// first: 1 when the agent spawns the hook itself (an extension), 2
	// when through the shell it runs hook commands with.
	Hops int
	// Is reports whether a process, by its name (comm) and arguments, is
	// the agent's. The nearest that is, is taken.
	Is func(comm string, argv []string) bool
}

// Named is a Process.Is for an agent whose process is named name: by its
// comm (which a Node or Bun agent sets from its title) or its argv[0]'s
// base name.
func Named(name string) func(comm string, argv []string) bool {
	return func(comm string, argv []string) bool {
		return comm == name || len(argv) > 0 && path.Base(argv[0]) == name
	}
}

// Extension is a hook module logwatch owns as a whole file: install writes
// it, uninstall removes it, and a file there that is not logwatch's is
// never touched.
type Extension struct {
	// Dir is the user scope's directory (a configuration path);
	// ProjectDir the project scope's, relative to the working directory.
	Dir, ProjectDir string
	File            string // the module's file name in either
	// Source is the module for the logwatch binary at bin (an absolute
	// path): what install writes.
	Source func(bin string) []byte
	// BinOf reads back the binary a module runs, and whether the module is
	// logwatch's at all (of any release).
	BinOf func(src []byte) (bin string, ours bool)
	// Untouched reports whether src is a module logwatch wrote (of any
	// release) and nobody changed since: only such a file is logwatch's
	// to replace or remove.
	Untouched func(src []byte) bool
}

// Registry is an agent's live session registry: one file per running
// process, naming its session.
type Registry struct {
	Dirs []string // default directories, as configuration paths
	// PidOf is the pid a file's name names, 0 for a file that is not an
	// entry.
	PidOf func(path string) int
	// Parse reads one file's content; ErrRegistryIncomplete for a file not
	// (yet) whole.
	Parse func(path string, b []byte) (RegistryEntry, error)
}

// RegistryEntry is one registry file, the fields logwatch uses.
type RegistryEntry struct {
	Path      string // the file it was read from
	Pid       int
	SessionID string
	Cwd       string
	// ProcStart is the process's start time as the agent wrote it (on
	// Linux field 22 of /proc/<pid>/stat); 0 when unknown.
	ProcStart  uint64
	StartedAt  int64 // ms since the epoch
	Version    string
	Kind       string
	Entrypoint string
	Status     string // RegistryBusy, RegistryIdle, RegistryWaiting, or a newer word
	WaitingFor string // with RegistryWaiting: "permission prompt", "dialog open", …
	// StatusUpdatedAt orders status writes (ms since the epoch).
	StatusUpdatedAt int64
	UpdatedAt       int64
	Tmux            string // "session:@window.%pane" inside tmux
	Name            string
}

// Registry statuses.
const (
	RegistryBusy    = "busy"    // a turn runs, or background work
	RegistryIdle    = "idle"    // at the prompt
	RegistryWaiting = "waiting" // on the user: see WaitingFor
)

// ErrRegistryIncomplete is a registry file that is not (yet) whole: created
// and not written yet, or read in the middle of an in-place rewrite. The
// next write event brings the whole file.
var ErrRegistryIncomplete = fmt.Errorf("registry file incomplete")

// agents is the registry: written by Register (at init), read on every
// line and hook, so readers take no lock: Register publishes a new copy.
var (
	regMu  sync.Mutex
	agents atomic.Pointer[registry]
)

type registry struct {
	all    []*Spec
	byName map[Agent]*Spec
}

// Register adds an agent. It panics on a second agent of the same name:
// that is a programming error, found by any test.
func Register(s Spec) {
	regMu.Lock()
	defer regMu.Unlock()
	if s.Name == "" || s.Name == AgentUnknown || s.NewParser == nil {
		panic(fmt.Sprintf("parsers: agent %q registered without a name or a parser", s.Name))
	}
	next := registry{byName: map[Agent]*Spec{}}
	if cur := agents.Load(); cur != nil {
		if _, dup := cur.byName[s.Name]; dup {
			panic(fmt.Sprintf("parsers: agent %q registered twice", s.Name))
		}
		next.all = slices.Clone(cur.all)
		maps.Copy(next.byName, cur.byName)
	}
	next.all = append(next.all, &s)
	next.byName[s.Name] = &s
	agents.Store(&next)
}

// All are the registered agents, in registration order. The slice is
// shared: do not modify it.
func All() []*Spec {
	if r := agents.Load(); r != nil {
		return r.all
	}
	return nil
}

// Lookup is the agent named name, nil if none is registered.
func Lookup(name Agent) *Spec {
	if r := agents.Load(); r != nil {
		return r.byName[name]
	}
	return nil
}

// Names are the registered agents' names, in registration order.
func Names() []string {
	var out []string
	for _, s := range All() {
		out = append(out, string(s.Name))
	}
	return out
}

// New returns the parser for agent, or nil for one not registered.
func New(agent Agent) Parser {
	if s := Lookup(agent); s != nil {
		return s.NewParser()
	}
	return nil
}

// TraitsOf are agent's traits (the zero Traits for one not registered).
func TraitsOf(agent Agent) *Traits {
	if s := Lookup(agent); s != nil {
		return &s.Traits
	}
	return &noTraits
}

var noTraits Traits

// KnownHookEvent reports whether any agent has the hook event.
func KnownHookEvent(event string) bool {
	for _, s := range All() {
		if slices.Contains(s.Hooks.Events, event) || slices.Contains(s.Hooks.Extra, event) {
			return true
		}
	}
	return false
}

// HookAgent is the agent that sent h when the payload tells (Claims), else
// the Fallback agent, else AgentUnknown.
func HookAgent(h *Hook) Agent {
	fallback := AgentUnknown
	for _, s := range All() {
		if s.Hooks.Claims != nil && s.Hooks.Claims(h) {
			return s.Name
		}
		if s.Hooks.Fallback && fallback == AgentUnknown {
			fallback = s.Name
		}
	}
	return fallback
}
