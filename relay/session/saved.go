package session

import (
	"sort"

	"github.com/logwatch/logwatch/parsers"
)

// Saved is everything a Session knows, for persisting it across a daemon
// restart: hooks and API calls cannot be re-read from the logs, and the
// turn bookkeeping decides how the next evidence is judged. A test keeps it
// in step with Session's fields.
type Saved struct {
	Agent        parsers.Agent `json:"agent"`
	ID           string        `json:"id"`
	Cwd          string        `json:"cwd,omitempty"`
	AgentVersion string        `json:"agent_version,omitempty"`

	State  State  `json:"state"`
	Reason string `json:"reason,omitempty"`
	Detail string `json:"detail,omitempty"`
	Source string `json:"source,omitempty"`
	Rule   string `json:"rule,omitempty"`
	Title  string `json:"title,omitempty"`
	Turns  int    `json:"turns,omitempty"`

	Turn         int  `json:"turn,omitempty"`
	TurnOpen     bool `json:"turn_open,omitempty"`
	HookPos      int  `json:"hook_pos,omitempty"`
	LogPos       int  `json:"log_pos,omitempty"`
	Hooked       bool `json:"hooked,omitempty"`
	TurnPrompted bool `json:"turn_prompted,omitempty"`
	LastFinal    bool `json:"last_final,omitempty"`
	Explicit     bool `json:"explicit,omitempty"`

	LogPending int `json:"log_pending,omitempty"`
	// Subagents is nil when no SubagentStart was booked, which Pending
	// tells apart from an empty set.
	Subagents    []string `json:"subagents"`
	Listed       int      `json:"listed,omitempty"`
	HasList      bool     `json:"has_list,omitempty"`
	DoneDeferred bool     `json:"done_deferred,omitempty"`
	SubWaiting   bool     `json:"sub_waiting,omitempty"`
	Announced    bool     `json:"announced,omitempty"`
	EndedInTurn  bool     `json:"ended_in_turn,omitempty"`
	WaitedTool   string   `json:"waited_tool,omitempty"`
	UserTitle    bool     `json:"user_title,omitempty"`
	ToolRunning  bool     `json:"tool_running,omitempty"`
	Retrying     bool     `json:"retrying,omitempty"`
}

// Save returns the session's complete state.
func (s *Session) Save() Saved {
	v := Saved{
		Agent: s.Agent, ID: s.ID, Cwd: s.Cwd, AgentVersion: s.AgentVersion,
		State: s.State, Reason: s.Reason, Detail: s.Detail, Source: s.Source, Rule: s.Rule, Title: s.Title, Turns: s.Turns,
		Turn: s.turn, TurnOpen: s.turnOpen, HookPos: s.hook.pos, LogPos: s.log.pos, Hooked: s.hooked,
		TurnPrompted: s.turnPrompted, LastFinal: s.lastFinal, Explicit: s.explicit,
		LogPending: s.logPending, Listed: int(s.listed), HasList: s.hasList, DoneDeferred: s.doneDeferred,
		SubWaiting: s.subWaiting, Announced: s.announced, EndedInTurn: s.endedInTurn, WaitedTool: s.waitedTool,
		UserTitle: s.userTitle, ToolRunning: s.toolRunning, Retrying: s.retrying,
	}
	if s.subagents != nil {
		v.Subagents = make([]string, 0, len(s.subagents))
		for id := range s.subagents {
			v.Subagents = append(v.Subagents, id)
		}
		sort.Strings(v.Subagents)
	}
	return v
}

// Restore returns the session Save described.
func Restore(v Saved) *Session {
	s := &Session{
		Agent: parsers.Agent(wordCopy(string(v.Agent))), ID: v.ID, Cwd: intern(v.Cwd), AgentVersion: intern(v.AgentVersion),
		State: State(wordCopy(string(v.State))), Reason: wordCopy(v.Reason), Detail: v.Detail,
		Source: wordCopy(v.Source), Rule: wordCopy(v.Rule), Title: v.Title, Turns: v.Turns, turn: v.Turn, turnOpen: v.TurnOpen, hook: source{pos: v.HookPos}, log: source{pos: v.LogPos}, hooked: v.Hooked,
		turnPrompted: v.TurnPrompted, lastFinal: v.LastFinal, explicit: v.Explicit,
		logPending: v.LogPending, listed: int32(v.Listed), hasList: v.HasList, doneDeferred: v.DoneDeferred,
		subWaiting: v.SubWaiting, announced: v.Announced, endedInTurn: v.EndedInTurn, waitedTool: v.WaitedTool,
		userTitle: v.UserTitle, toolRunning: v.ToolRunning, retrying: v.Retrying,
	}
	if v.Subagents != nil {
		s.subagents = make(map[string]bool, len(v.Subagents))
		for _, id := range v.Subagents {
			s.subagents[id] = true
		}
	}
	return s
}
