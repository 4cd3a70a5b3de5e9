// Package session folds the evidence about one agent session into its state
// (SPEC §2–§4). It is pure: no I/O, no clock, no goroutines. The relay owns
// one Session per conversation and feeds it hook events and log evidence in
// the order they arrive; `logwatch verify` feeds it a whole file. Every
// change names the rule that decided it.
//
// Hooks and the log report the same turns, each with its own delay. A turn
// is opened by whichever source reports it first; each source keeps its
// position in the turn sequence, so the other source's echo of a start or
// an end it already reported is absorbed instead of flapping the state.
package session

import (
	"github.com/logwatch/logwatch/parsers"
)

// State is what a session is doing, in the vocabulary of SPEC §2.
type State string

const (
	Ready      State = "ready"
	Working    State = "working"
	Waiting    State = "waiting"
	Compacting State = "compacting"
	Done       State = "done"
	Ended      State = "ended"
)

// Urgency orders states for aggregating several sessions into one row:
// waiting > working > compacting > done > ready > ended.
func (s State) Urgency() int {
	switch s {
	case Waiting:
		return 5
	case Working:
		return 4
	case Compacting:
		return 3
	case Done:
		return 2
	case Ready:
		return 1
	}
	return 0
}

// Reasons (machine words, SPEC §2).
const (
	ReasonStart            = "session_start"
	ReasonPrompt           = "prompt"
	ReasonTool             = "tool"
	ReasonPermission       = "permission"
	ReasonQuestion         = "question"
	ReasonTurnEnd          = "turn_end"
	ReasonError            = "error"
	ReasonInterrupted      = "interrupted"
	ReasonCompaction       = "compaction"
	ReasonSubagentsPending = "subagents_pending"
	ReasonResumed          = "resumed"
	ReasonAcknowledged     = "acknowledged"
	ReasonSessionEnd       = "session_end"
	ReasonTabClosed        = "tab_closed"
	ReasonProcessGone      = "process_gone"
)

// Sources of a change.
const (
	SourceHook   = "hook"
	SourceLog    = "log"
	SourceKeyLog = "key+log"
	// SourceKeyHook: a key whose window saw the agent's own hook report
	// the interrupt (OpenCode's plugin, before its store shows it).
	SourceKeyHook = "key+hook"
	SourceAPI     = "api"
	// SourceRegistry is in registry.go.
)

// Change is one published state transition (or detail update).
type Change struct {
	State  State
	Reason string
	Detail string
	Source string
	Rule   string
}

// source is a stream of evidence with its own position in the turn sequence.
type source struct {
	pos int // the last turn this source reported the start of
}

// Session is the folded state of one conversation.
type Session struct {
	Agent        parsers.Agent
	ID           string
	Cwd          string
	AgentVersion string

	State  State
	Reason string
	Detail string
	Source string
	Rule   string
	// Title is what the session is about: the agent's own title once it
	// wrote one, else its first prompt's first line (both shortened by
	// parsers.ShortTitle).
	Title string

	// Turns counts turns started.
	Turns int

	turn int    // turns opened, by either source
	hook source // the last turn each source reported the start of
	log  source

	// Background work that keeps a finished turn from being done.
	logPending int             // turn_duration pending counts
	subagents  map[string]bool // running subagents, from SubagentStart/SubagentStop
	waitedTool string          // the tool detail a registry wait interrupted (registry.go)
	listed     int32           // running subagent/workflow tasks in the last Stop payload

	// Flags last, packed after listed: there is one Session per known
	// conversation, and interleaving them with the words above costs a word
	// each few flags (240 bytes).
	turnOpen     bool // the current turn has not ended
	hooked       bool // hooks have reported for this session
	turnPrompted bool // the open turn has seen user input (Codex: not a bare /compact)
	lastFinal    bool // the latest log evidence looked like the end of a response
	explicit     bool // Codex file with persisted task_* events
	hasList      bool // the last Stop payload carried the task list
	doneDeferred bool // a done is held back until the pending work ends
	subWaiting   bool // the waiting state came from a subagent's payload
	announced    bool // a change has been reported: the session is known downstream
	endedInTurn  bool // End came while a Codex turn ran: it may go on (Outlive)
	userTitle    bool // Title is one the person gave: a generated one does not replace it
	toolRunning  bool // a tool call started and has not ended (or its dialog is open)
	retrying     bool // the latest log evidence is a failed answer the agent retries (parsers.Evidence.Retry)
}

// New returns a session in its initial state, ready.
func New(agent parsers.Agent) *Session {
	return &Session{Agent: agent, State: Ready, Reason: ReasonStart, Rule: "session.start"}
}

// TurnOpen reports whether a turn is in progress.
func (s *Session) TurnOpen() bool { return s.turnOpen }

// ToolRunning reports whether a tool call has started (or its approval
// dialog opened) and not ended: what an Esc stops where it does not stop a
// streaming answer (Traits.EscKeepsStream).
func (s *Session) ToolRunning() bool { return s.toolRunning }

// toolStarted marks a tool call (or its dialog) begun, for an agent whose
// Esc it tells (the only use: other sessions never carry the flag).
func (s *Session) toolStarted() {
	s.toolRunning = parsers.TraitsOf(s.Agent).EscKeepsStream
}

// Hooked reports whether hooks have reported for this session.
func (s *Session) Hooked() bool { return s.hooked }

// Pending is the background work (subagents, workflows) still keeping the
// session from done: the last Stop payload's task list when it had one, else
// the subagents hooks reported started and not stopped, else the log's
// turn_duration counts.
func (s *Session) Pending() int {
	switch {
	case s.hasList:
		return int(s.listed)
	case s.subagents != nil:
		return len(s.subagents)
	}
	return s.logPending
}

// Settle marks the end of a bootstrap: evidence folded so far was history.
// The log's position is aligned with the folded state so its next line is
// judged against the present.
func (s *Session) Settle() {
	s.log.pos = s.turn
	s.announced = s.announced || !s.phantom()
}

// Phantom reports a session nothing has shown to be real and nothing has
// published: a Codex rollout holding only session_meta from a release that
// creates its log at the first prompt (Traits.LazyLog: Codex 0.169). It
// flushes such a file, when its background server stops, for a TUI that
// never got a prompt; it is not a row. It becomes one with its first turn or
// hook. (Older Codex and Claude write the log as the session starts, so a
// new log there is a session about to be used.)
func (s *Session) Phantom() bool { return !s.announced && s.phantom() }

func (s *Session) phantom() bool {
	if s.hooked || s.Turns != 0 {
		return false
	}
	lazy := parsers.TraitsOf(s.Agent).LazyLog
	return lazy != nil && lazy(s.AgentVersion)
}

// Announce reports the session's current state as a change the first time
// it is called for a session nothing has been reported about yet.
func (s *Session) Announce(from, rule string) (Change, bool) {
	if s.announced {
		return Change{}, false
	}
	return s.set(s.State, s.Reason, s.Detail, from, rule)
}

// CompactionTrigger is the compaction's trigger: as logged when the agent
// says (Claude), otherwise inferred (Codex): a compaction inside a turn the
// user prompted is automatic; one in a turn with no prompt is /compact.
func (s *Session) CompactionTrigger(ev parsers.Evidence) string {
	switch {
	case ev.Trigger != "":
		return ev.Trigger
	case s.turnOpen && s.turnPrompted:
		return "auto"
	case s.turnOpen:
		return "manual"
	}
	return ""
}

// Log folds one line's evidence into the session. It reports the change, if
// the line changed the published state, reason or detail, or else its
// title (a Retitled change).
func (s *Session) Log(ev parsers.Evidence) (Change, bool) {
	titled := s.retitle(ev.Title, ev.TitleByUser, ev.Prompt)
	if ch, ok := s.foldLog(ev); ok || !titled {
		return ch, ok
	}
	return s.retitled(SourceLog)
}

func (s *Session) foldLog(ev parsers.Evidence) (Change, bool) {
	s.identity(ev.SessionID, ev.Cwd, ev.AgentVersion)
	if ev.Kind != parsers.KindNone {
		s.retrying = ev.Retry
	}
	if ev.Explicit {
		s.explicit = true
	}
	switch ev.Kind {
	case parsers.KindTool, parsers.KindWait, parsers.KindAnswered:
		s.toolStarted()
	case parsers.KindActivity:
		s.toolRunning = s.toolRunning && !ev.ToolEnd
	}
	switch ev.Kind {
	case parsers.KindTurnStart:
		return s.start(&s.log, SourceLog, "log.turn_start", ev.Kind == parsers.KindPrompt)
	case parsers.KindPrompt:
		if s.turnOpen && s.lastFinal && !s.explicit {
			// Without task_* records (bare and v1 Codex files) input after a
			// finished response is the next turn, not steering.
			s.turnOpen = false
			return s.start(&s.log, SourceLog, "log.prompt_after_final", true)
		}
		if s.turnOpen && s.log.pos == s.turn {
			s.turnPrompted = true // steering input inside the turn
			s.lastFinal = false
			return Change{}, false
		}
		return s.start(&s.log, SourceLog, "log.prompt", true)
	case parsers.KindTurnEnd:
		if ev.HasPending {
			s.logPending = ev.PendingAgents + ev.PendingWorkflows
		}
		s.lastFinal = false
		if ev.End == parsers.EndAPIError {
			return s.end(&s.log, Done, ReasonError, SourceLog, "log.turn_error")
		}
		return s.end(&s.log, Done, ReasonTurnEnd, SourceLog, "log.turn_end")
	case parsers.KindInterrupt:
		s.lastFinal = false
		if s.stoppedBeforeMarker() {
			// The agent's Stop for the interrupted turn came before its
			// marker was read: the turn was interrupted, not done.
			return s.set(Ready, ReasonInterrupted, "", SourceLog, "log.interrupt_after_stop")
		}
		if ev.BeforePrompt && s.turnOpen && s.log.pos == s.turn-1 {
			// Written before the prompt line of the turn it stops, which
			// the hooks opened (Copilot CLI 1.0.102, Ctrl+C while the
			// prompt's hooks ran): taken for an older turn's marker it was
			// dropped and the dot stayed working. The log stays behind, so
			// the stopped turn's lines that follow are absorbed as its echo.
			behind := s.log.pos
			s.log.pos = s.turn
			ch, ok := s.end(&s.log, Ready, ReasonInterrupted, SourceLog, "log.interrupt")
			s.log.pos = behind
			return ch, ok
		}
		return s.end(&s.log, Ready, ReasonInterrupted, SourceLog, "log.interrupt")
	case parsers.KindCompaction:
		if s.turnOpen && s.lastFinal && s.State == Working && parsers.TraitsOf(s.Agent).CompactsBetweenRuns {
			// The agent compacts only once a run is over: the final answer
			// before this line ended the run (its quiet period had not run
			// out yet).
			s.lastFinal = false
			return s.end(&s.log, Done, ReasonTurnEnd, SourceLog, "log.compaction_after_final")
		}
		s.lastFinal = false
		if s.turnOpen && parsers.TraitsOf(s.Agent).CompactionTurns {
			// The compaction was the turn (OpenCode's /compact writes a
			// prompt, then the summary): its end ends it, compacting or not.
			return s.end(&s.log, Done, ReasonCompaction, SourceLog, "log.compaction_turn")
		}
		return s.compactionEnded(SourceLog, "log.compaction")
	case parsers.KindEnd:
		// As SessionEnd: the agent itself says it is over.
		s.turnOpen, s.lastFinal, s.doneDeferred, s.endedInTurn = false, false, false, false
		if s.State == Ended {
			return Change{}, false // its hook or its tab said so first
		}
		return s.set(Ended, ReasonSessionEnd, "", SourceLog, "log.session_end")
	case parsers.KindAnswered:
		// The user approved the dialog and the tool runs: hooks report
		// that only once it has run (PostToolUse), so the log says it
		// first, with or without them. Only the dialog waited on: a
		// line read late, after the hooks opened another, is stale.
		s.lastFinal = false
		if s.turnOpen && s.State == Waiting && s.Detail == s.permissionText(ev.Tool, ev.ToolInput) {
			return s.set(Working, ReasonTool, ToolDetail(ev.Tool, ev.ToolInput, s.Cwd), SourceLog, "log.wait_answered")
		}
	case parsers.KindWait:
		s.lastFinal = false
		if s.hooked || !s.turnOpen || (s.State != Working && s.State != Waiting) {
			// Hooks report the same dialog first (PermissionRequest); a
			// dialog outside a turn is the echo of one already answered.
			return Change{}, false
		}
		return s.set(Waiting, ev.Wait, s.permissionText(ev.Tool, ev.ToolInput), SourceLog, "log.wait")
	case parsers.KindTool:
		s.lastFinal = false
		if s.hooked {
			// Hooks name the tool first and exactly; the log's copy of the
			// same call arrives later and would only flap the detail.
			return Change{}, false
		}
		detail := ToolDetail(ev.Tool, ev.ToolInput, s.Cwd)
		if s.turnOpen && s.State == Working {
			return s.set(Working, ReasonTool, detail, SourceLog, "log.tool")
		}
		if s.resumes() {
			s.reopen(&s.log)
			return s.set(Working, ReasonTool, detail, SourceLog, "log.activity_resumes")
		}
	case parsers.KindActivity:
		s.lastFinal = ev.Final
		if s.resumes() {
			s.reopen(&s.log)
			return s.set(Working, ReasonResumed, "", SourceLog, "log.activity_resumes")
		}
	}
	return Change{}, false
}

// RetryCancelled ends the turn whose latest log evidence is a failed
// answer the agent was to retry (parsers.Evidence.Retry), for an Esc
// pressed while it waited that the log never answered: pi 0.73.1 cancels
// the retry's backoff on Esc and writes nothing (its retry's answer, or an
// Esc during it, would have), so the failure ended the turn.
func (s *Session) RetryCancelled() (Change, bool) {
	if !s.retrying || !s.turnOpen || s.State != Working {
		return Change{}, false
	}
	s.retrying = false
	return s.end(&s.log, Done, ReasonError, SourceKeyLog, "key.retry_cancelled")
}

// stoppedBeforeMarker reports a turn the hooks' Stop ended as done, for an
// agent whose Stop fires after an interrupt as well (StopAfterInterrupt):
// an interrupt marker then is that turn's, whether or not the log wrote
// the turn's start (Gemini CLI cancelled before writing its prompt writes
// the marker alone; measured live).
func (s *Session) stoppedBeforeMarker() bool {
	return !s.turnOpen && s.State == Done && s.Rule == "hook.stop" && parsers.TraitsOf(s.Agent).StopAfterInterrupt
}

// resumes reports whether output after a finished Claude turn means the agent
// went back to work (a Stop hook that blocked, a continuation). Only for
// sessions without hooks: with hooks, a late line of the finished turn must
// not put a spinner back, and the continuation reports through hooks anyway.
// Codex writes an explicit task_started, and an interrupted turn stays ended.
func (s *Session) resumes() bool {
	return !s.hooked && !s.turnOpen && s.State == Done && parsers.TraitsOf(s.Agent).LateOutputResumes
}

// QuietPending reports whether Quiet would end the turn now: the turn's
// last evidence is a final message and nothing marks its end.
func (s *Session) QuietPending() bool {
	return s.turnOpen && s.lastFinal && s.State == Working && !(s.explicit && parsers.TraitsOf(s.Agent).ExplicitEnds)
}

// Quiet tells the session that its log has gone quiet (the end of a file in
// verify; a quiet period live). Logs without an explicit turn-end record
// (Claude 1.0.x and SDK sessions, Codex before task_* were persisted) end a
// turn this way after a final-looking assistant line.
func (s *Session) Quiet() (Change, bool) {
	if !s.QuietPending() {
		return Change{}, false
	}
	s.lastFinal = false
	return s.end(&s.log, Done, ReasonTurnEnd, SourceLog, "log.quiet_after_final")
}

// start opens a turn reported by src, unless it is the echo of the turn the
// other source already opened. Hooks lead (the agent runs them before it
// writes the log) and the log lags, so the two are judged differently: a log
// that is behind only ever echoes, while a hook start after the turn ended is
// a new turn.
func (s *Session) start(src *source, from, rule string, prompted bool) (Change, bool) {
	behind := src.pos < s.turn
	if behind && (s.turnOpen || src == &s.log) {
		src.pos = s.turn
		s.turnPrompted = s.turnPrompted || prompted
		return Change{}, false
	}
	s.turn++
	s.Turns++
	src.pos = s.turn
	s.turnOpen, s.lastFinal, s.toolRunning, s.retrying = true, false, false, false
	s.turnPrompted = prompted || parsers.TraitsOf(s.Agent).PromptedTurns
	s.doneDeferred, s.subWaiting = false, false
	if s.State == Compacting && src == &s.log {
		// The compaction's own turn (Codex's /compact: task_started, then
		// the PreCompact hook, the compacted line, task_complete), its
		// start read after the hook that said compacting: the hook can
		// overtake the log line (CI saw it, 0.4 ms apart). The turn opens,
		// still compacting; the compaction's end returns it to working.
		return Change{}, false
	}
	return s.set(Working, ReasonPrompt, "", from, rule)
}

// reopen continues work after a finished turn without a new prompt.
func (s *Session) reopen(src *source) {
	s.turnOpen = true
	src.pos = s.turn
}

// end closes the current turn as src reports it. A hook's end is always about
// the current turn; the log's end is stale when the log is behind (its turn
// already closed and a newer one opened).
func (s *Session) end(src *source, st State, reason, from, rule string) (Change, bool) {
	if s.State == Ended {
		// The end of a turn that outlived its tab (Codex finishes it in
		// its background server): ended stays ended until a resume.
		return Change{}, false
	}
	if src == &s.log && (src.pos < s.turn || !s.turnOpen) {
		// Stale (the log is behind a turn the hooks opened) or the turn
		// already ended: keep how it ended.
		return Change{}, false
	}
	wasOpen := s.turnOpen
	s.turnOpen, s.toolRunning = false, false
	src.pos = s.turn
	if st == Done && s.Pending() > 0 {
		// Done waits for background work; it is published when that ends.
		s.doneDeferred = true
		return s.set(Working, ReasonSubagentsPending, s.Detail, from, from+".subagents_pending")
	}
	if !wasOpen && s.State == Done && st == Done && reason == ReasonTurnEnd {
		// Already ended (an API error line, then its turn_duration; or the
		// other source's end of the same turn): keep how it ended.
		return Change{}, false
	}
	s.doneDeferred, s.subWaiting = false, false
	return s.set(st, reason, "", from, rule)
}

// compactionEnded returns from compacting: to working inside a turn, to
// done outside one. Without a PreCompact (logs alone) nothing changes.
func (s *Session) compactionEnded(from, rule string) (Change, bool) {
	if s.State != Compacting {
		return Change{}, false
	}
	if s.turnOpen {
		return s.set(Working, ReasonCompaction, "", from, rule+"_in_turn")
	}
	return s.set(Done, ReasonCompaction, "", from, rule+"_outside_turn")
}

// identity records who the session is; the first value seen wins.
func (s *Session) identity(id, cwd, version string) {
	if s.ID == "" {
		s.ID = id
	}
	if s.Cwd == "" {
		s.Cwd = intern(cwd)
	}
	if s.AgentVersion == "" {
		s.AgentVersion = intern(version)
	}
}

// Rules of a change that only retitles the session: its state, reason and
// detail are the ones already published.
const (
	RuleLogTitle  = "log.title"
	RuleHookTitle = "hook.title"
)

// Retitled reports whether the change only gives the session a new title.
func (c Change) Retitled() bool { return c.Rule == RuleLogTitle || c.Rule == RuleHookTitle }

// retitle takes a title the agent wrote (it replaces any earlier one, but
// a generated one never replaces the person's) or a prompt's (the title
// only while there is none), and reports whether the title changed.
func (s *Session) retitle(title string, byUser bool, prompt string) bool {
	switch {
	case title != "" && (byUser || !s.userTitle):
		changed := title != s.Title
		s.Title, s.userTitle = title, s.userTitle || byUser
		return changed
	case prompt != "" && s.Title == "":
		s.Title = prompt
		return true
	}
	return false
}

// retitled is the change that publishes a new title alone, for a session
// already shown: a subscriber learns a title that arrives after the state
// (Claude Code's generated title, OpenCode's), and the state stands.
func (s *Session) retitled(from string) (Change, bool) {
	if !s.announced {
		return Change{}, false
	}
	rule := RuleLogTitle
	if from == SourceHook {
		rule = RuleHookTitle
	}
	return Change{State: s.State, Reason: s.Reason, Detail: s.Detail, Source: from, Rule: rule}, true
}

func (s *Session) set(st State, reason, detail, from, rule string) (Change, bool) {
	if s.State == st && s.Reason == reason && s.Detail == detail && s.announced {
		return Change{}, false
	}
	s.announced = true
	s.State, s.Reason, s.Detail, s.Source, s.Rule = st, reason, detail, from, rule
	return Change{State: st, Reason: reason, Detail: detail, Source: from, Rule: rule}, true
}
