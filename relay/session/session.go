// Package session folds the evidence about one agent session into its state
// (SPEC §2). It is pure: no I/O, no clock, no goroutines. The relay owns one
// Session per conversation and feeds it in order; `logwatch verify` feeds it a
// whole file. Every change names the rule that decided it.
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
	ReasonTurnEnd          = "turn_end"
	ReasonError            = "error"
	ReasonInterrupted      = "interrupted"
	ReasonCompaction       = "compaction"
	ReasonSubagentsPending = "subagents_pending"
	ReasonResumed          = "resumed"
)

// Sources of a change.
const (
	SourceLog = "log"
)

// Change is one published state transition (or detail update).
type Change struct {
	State  State
	Reason string
	Detail string
	Source string
	Rule   string
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
	Rule   string

	// Turns counts turns started.
	Turns int

	turnOpen     bool // a turn started and has not ended
	turnPrompted bool // the open turn has seen user input (Codex: not a bare /compact)
	lastFinal    bool // the latest turn evidence looked like the end of a response
	explicit     bool // Codex file with persisted task_* events
	pending      int  // background agents + workflows still running at the last turn end
}

// New returns a session in its initial state, ready.
func New(agent parsers.Agent) *Session {
	return &Session{Agent: agent, State: Ready, Reason: ReasonStart, Rule: "session.start"}
}

// TurnOpen reports whether the log shows a turn in progress.
func (s *Session) TurnOpen() bool { return s.turnOpen }

// Pending is the number of background agents and workflows the last turn end
// left running.
func (s *Session) Pending() int { return s.pending }

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
// the line changed the published state, reason or detail.
func (s *Session) Log(ev parsers.Evidence) (Change, bool) {
	s.identity(ev)
	switch ev.Kind {
	case parsers.KindTurnStart:
		return s.startTurn(ev, "log.turn_start")
	case parsers.KindPrompt:
		if s.turnOpen && s.lastFinal && !s.explicit {
			// Without task_* records (bare and v1 Codex files) input after a
			// finished response is the next turn, not steering.
			return s.startTurn(ev, "log.prompt_after_final")
		}
		if s.turnOpen {
			s.turnPrompted = true // steering input inside the turn
			s.lastFinal = false
			return Change{}, false
		}
		return s.startTurn(ev, "log.prompt")
	case parsers.KindTurnEnd:
		wasOpen := s.turnOpen
		s.turnOpen, s.lastFinal = false, false
		s.explicit = s.explicit || ev.Explicit
		if ev.HasPending {
			s.pending = ev.PendingAgents + ev.PendingWorkflows
		}
		switch {
		case !wasOpen && s.State == Done && ev.End == parsers.EndNormal && s.pending == 0:
			// The turn already ended (an API error line, then its
			// turn_duration): keep how it ended.
			return Change{}, false
		case ev.End == parsers.EndAPIError:
			return s.set(Done, ReasonError, "", "log.turn_error")
		case s.pending > 0:
			return s.set(Working, ReasonSubagentsPending, s.Detail, "log.subagents_pending")
		}
		return s.set(Done, ReasonTurnEnd, "", "log.turn_end")
	case parsers.KindInterrupt:
		s.turnOpen, s.lastFinal = false, false
		return s.set(Ready, ReasonInterrupted, "", "log.interrupt")
	case parsers.KindCompaction:
		s.lastFinal = false
		if s.State != Compacting {
			return Change{}, false
		}
		if s.turnOpen {
			return s.set(Working, ReasonCompaction, "", "log.compaction_in_turn")
		}
		return s.set(Done, ReasonCompaction, "", "log.compaction_outside_turn")
	case parsers.KindTool:
		s.lastFinal = false
		detail := ToolDetail(ev.Tool, ev.ToolInput, s.Cwd)
		if s.turnOpen && (s.State == Working || s.State == Compacting) {
			return s.set(Working, ReasonTool, detail, "log.tool")
		}
		if s.resumes() {
			s.turnOpen = true
			return s.set(Working, ReasonTool, detail, "log.activity_resumes")
		}
	case parsers.KindActivity:
		s.lastFinal = ev.Final
		if s.resumes() {
			s.turnOpen = true
			return s.set(Working, ReasonResumed, "", "log.activity_resumes")
		}
	}
	return Change{}, false
}

// resumes reports whether output after a finished Claude turn means the agent
// went back to work (a Stop hook that blocked, a continuation). Codex writes
// an explicit task_started for that, and an interrupted turn stays ended.
func (s *Session) resumes() bool {
	return !s.turnOpen && s.State == Done && s.Agent == parsers.AgentClaude
}

// Quiet tells the session that its log has gone quiet (the end of a file in
// verify; a quiet period live). Logs without an explicit turn-end record
// (Claude 1.0.x and SDK sessions, Codex before task_* were persisted) end a
// turn this way after a final-looking assistant line.
func (s *Session) Quiet() (Change, bool) {
	if !s.turnOpen || !s.lastFinal || (s.Agent == parsers.AgentCodex && s.explicit) {
		return Change{}, false
	}
	s.turnOpen, s.lastFinal = false, false
	return s.set(Done, ReasonTurnEnd, "", "log.quiet_after_final")
}

func (s *Session) startTurn(ev parsers.Evidence, rule string) (Change, bool) {
	if ev.Explicit {
		s.explicit = true
	}
	s.turnOpen, s.lastFinal = true, false
	s.turnPrompted = ev.Kind == parsers.KindPrompt || s.Agent == parsers.AgentClaude
	s.pending = 0
	s.Turns++
	return s.set(Working, ReasonPrompt, "", rule)
}

// identity records who the session is; the first value seen wins.
func (s *Session) identity(ev parsers.Evidence) {
	if s.ID == "" {
		s.ID = ev.SessionID
	}
	if s.Cwd == "" {
		s.Cwd = ev.Cwd
	}
	if s.AgentVersion == "" {
		s.AgentVersion = ev.AgentVersion
	}
}

func (s *Session) set(st State, reason, detail, rule string) (Change, bool) {
	if s.State == st && s.Reason == reason && s.Detail == detail {
		return Change{}, false
	}
	s.State, s.Reason, s.Detail, s.Rule = st, reason, detail, rule
	return Change{State: st, Reason: reason, Detail: detail, Source: SourceLog, Rule: rule}, true
}
