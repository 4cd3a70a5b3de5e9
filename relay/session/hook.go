package session

import (
	"github.com/logwatch/logwatch/parsers"
)

// Tools whose call is a question to the user: the agent waits on an answer.
var questionTools = map[string]bool{"AskUserQuestion": true, "request_user_input": true}

// Hook folds one hook event into the session (SPEC §3). Unknown events are
// accepted and change nothing; the caller counts them. A prompt a hook
// carries may title the session (a Retitled change when nothing else
// changed); a subagent's never does.
func (s *Session) Hook(h parsers.Hook) (Change, bool) {
	titled := h.AgentID == "" && s.retitle("", false, h.Prompt)
	if ch, ok := s.foldHook(h); ok || !titled {
		return ch, ok
	}
	return s.retitled(SourceHook)
}

func (s *Session) foldHook(h parsers.Hook) (Change, bool) {
	if h.Event == "SessionEnd" && !s.announced && s.Turns == 0 {
		// The end of a session nothing ever showed (Codex 0.169's server
		// stopping ends every TUI it served, prompted or not): not news,
		// and no reason to make it a row.
		s.identity(h.SessionID, h.Cwd, "")
		return Change{}, false
	}
	s.hooked = true
	s.identity(h.SessionID, h.Cwd, "")
	if h.AgentID != "" {
		return s.subagentHook(h)
	}
	if s.interrupted() && inTurn(h) {
		// The rest of the turn the user interrupted, reported late: pi's
		// and omp's extensions report the aborted tool ~100 ms after the
		// log's marker, and omp starts and ends each tool call the abort
		// cut off. An echo, never a new turn: every agent's next turn
		// starts with its prompt.
		return Change{}, false
	}
	if h.Event == "Stop" && s.interrupted() && parsers.TraitsOf(s.Agent).StopAfterInterrupt {
		// The turn-end hook the agent fires after an interrupt too, the
		// log's marker having come first: the interrupt stands.
		return Change{}, false
	}
	switch h.Event {
	case "PreToolUse", "PermissionRequest":
		s.toolStarted()
	case "PostToolUse", "PostToolUseFailure", "SessionEnd":
		s.toolRunning = false
	}
	switch h.Event {
	case "SessionStart":
		if h.Source == "compact" {
			return s.compactionEnded(SourceHook, "hook.session_start_compact")
		}
		if s.turnOpen && parsers.TraitsOf(s.Agent).LateStartHook {
			// Codex 0.169 fires SessionStart lazily, at the first prompt,
			// after task_started is in the rollout: the turn it would close
			// is the one just started. Its UserPromptSubmit follows as the
			// echo of that turn.
			return Change{}, false
		}
		// A fresh start, /clear or resume: a new turn history.
		s.turnOpen, s.doneDeferred, s.subWaiting = false, false, false
		s.subagents, s.hasList, s.listed, s.logPending = nil, false, 0, 0
		s.hook.pos, s.log.pos = s.turn, s.turn
		return s.set(Ready, ReasonStart, "", SourceHook, "hook.session_start")
	case "UserPromptSubmit":
		if ch, ok := s.start(&s.hook, SourceHook, "hook.prompt", true); ok {
			return ch, ok
		}
		// The echo of a turn the log opened: still clears a wait.
		return s.set(Working, ReasonPrompt, "", SourceHook, "hook.prompt")
	case "PreToolUse":
		if questionTools[h.ToolName] {
			return s.wait(ReasonQuestion, ToolDetail(h.ToolName, h.ToolInput, s.Cwd), "hook.question_tool")
		}
		if s.State == Waiting {
			// A wait is cleared by a tool that ran (PostToolUse), not by
			// one about to ask.
			return Change{}, false
		}
		return s.toolWork(h, "hook.pre_tool")
	case "PostToolUse":
		return s.toolWork(h, "hook.post_tool")
	case "PostToolUseFailure":
		if h.IsInterrupt {
			return s.end(&s.hook, Ready, ReasonInterrupted, SourceHook, "hook.tool_interrupted")
		}
		return s.toolWork(h, "hook.post_tool_failure")
	case "Notification":
		switch h.NotificationType {
		case "permission_prompt":
			if s.specificWait() {
				// The generic "Claude needs your permission…" ~6 s after the
				// PermissionRequest: the same wait, already named better.
				return Change{}, false
			}
			return s.wait(ReasonPermission, Cap(h.Message), "hook.notification_permission")
		case "elicitation_dialog":
			return s.wait(ReasonQuestion, Cap(h.Message), "hook.notification_elicitation")
		}
		// idle_prompt is a reminder ~60 s after a turn ended, not a new wait.
		return Change{}, false
	case "PermissionRequest":
		return s.wait(ReasonPermission, s.permissionText(h.ToolName, h.ToolInput), "hook.permission_request")
	case "PreCompact":
		return s.set(Compacting, ReasonCompaction, h.Trigger, SourceHook, "hook.pre_compact")
	case "PostCompact":
		return s.compactionEnded(SourceHook, "hook.post_compact")
	case "Stop", "StopFailure", "Interrupt":
		return s.stop(h)
	case "SubagentStart", "SubagentStop":
		// Without agent_id there is no subagent to book.
		return Change{}, false
	case "SessionEnd":
		// The agent itself says it is over: no turn of it goes on.
		s.turnOpen, s.doneDeferred, s.endedInTurn = false, false, false
		if s.State == Ended {
			return Change{}, false // already ended (its tab closed first): once is enough
		}
		return s.set(Ended, ReasonSessionEnd, "", SourceHook, "hook.session_end")
	}
	return Change{}, false
}

// Interrupts reports a hook that says the user interrupted the turn.
func Interrupts(h parsers.Hook) bool {
	switch h.Event {
	case "Interrupt":
		return true
	case "Stop", "PostToolUseFailure":
		return h.IsInterrupt
	}
	return false
}

// stop handles the turn-ending events.
func (s *Session) stop(h parsers.Hook) (Change, bool) {
	switch h.Event {
	case "Interrupt":
		return s.end(&s.hook, Ready, ReasonInterrupted, SourceHook, "hook.interrupt")
	case "StopFailure":
		return s.end(&s.hook, Done, ReasonError, SourceHook, "hook.stop_failure")
	}
	if h.IsInterrupt {
		return s.end(&s.hook, Ready, ReasonInterrupted, SourceHook, "hook.stop_interrupted")
	}
	if h.HasBackground {
		s.hasList, s.listed = true, int32(h.Background)
	} else {
		s.hasList = false
	}
	return s.end(&s.hook, Done, ReasonTurnEnd, SourceHook, "hook.stop")
}

// subagentHook handles payloads a subagent's activity produced (they carry
// agent_id). They only keep the pending-subagent set, except that the user
// is needed when a subagent asks for permission, and that wait clears when
// the subagent's tool then runs.
func (s *Session) subagentHook(h parsers.Hook) (Change, bool) {
	switch h.Event {
	case "SubagentStart":
		if s.finished() {
			return Change{}, false // a late start never revives a finished session
		}
		if s.subagents == nil {
			s.subagents = map[string]bool{}
		}
		s.subagents[h.AgentID] = true
	case "SubagentStop":
		delete(s.subagents, h.AgentID)
		if s.doneDeferred && !s.hasList && len(s.subagents) == 0 && s.State == Working {
			s.doneDeferred = false
			return s.set(Done, ReasonTurnEnd, "", SourceHook, "hook.subagents_done")
		}
	case "Notification":
		if h.NotificationType == "permission_prompt" || h.NotificationType == "elicitation_dialog" {
			if s.finished() || h.NotificationType == "permission_prompt" && s.specificWait() {
				return Change{}, false
			}
			reason := ReasonPermission
			if h.NotificationType == "elicitation_dialog" {
				reason = ReasonQuestion
			}
			ch, ok := s.wait(reason, Cap(h.Message), "hook.subagent_wait")
			s.subWaiting = ok || s.subWaiting
			return ch, ok
		}
	case "PermissionRequest":
		if s.finished() {
			return Change{}, false
		}
		ch, ok := s.wait(ReasonPermission, s.permissionText(h.ToolName, h.ToolInput), "hook.subagent_wait")
		s.subWaiting = ok || s.subWaiting
		return ch, ok
	case "PostToolUse":
		if s.State == Waiting && s.subWaiting {
			s.subWaiting = false
			return s.set(Working, ReasonTool, s.Detail, SourceHook, "hook.subagent_resumed")
		}
	}
	return Change{}, false
}

// interrupted reports a turn closed as interrupted (by the log, a hook or
// a confirmed key) that nothing has reopened.
func (s *Session) interrupted() bool {
	return !s.turnOpen && s.State == Ready && s.Reason == ReasonInterrupted
}

// inTurn reports the events only a running turn sends: a tool's start or
// end (not the interrupt itself), and a wait on the user.
func inTurn(h parsers.Hook) bool {
	switch h.Event {
	case "PreToolUse", "PostToolUse", "PermissionRequest":
		return true
	case "PostToolUseFailure":
		return !h.IsInterrupt
	case "Notification":
		return h.NotificationType == "permission_prompt" || h.NotificationType == "elicitation_dialog"
	}
	return false
}

// finished reports a session whose turn is over: nothing a subagent does
// may bring it back.
func (s *Session) finished() bool {
	return !s.turnOpen && (s.State == Done || s.State == Ready || s.State == Ended)
}

func (s *Session) toolWork(h parsers.Hook, rule string) (Change, bool) {
	if s.State == Ended {
		return Change{}, false // a tool of a turn that outlived its tab
	}
	if !s.turnOpen {
		// A tool call with no turn open: the hooks missed the start (or it
		// is a Stop-hook continuation). Work is going on all the same.
		s.reopen(&s.hook)
	}
	s.subWaiting = false
	return s.set(Working, ReasonTool, ToolDetail(h.ToolName, h.ToolInput, s.Cwd), SourceHook, rule)
}

func (s *Session) wait(reason, detail, rule string) (Change, bool) {
	if s.State == Ended {
		return Change{}, false
	}
	if !s.turnOpen {
		// Only a turn asks for permission: the hooks missed its start.
		s.reopen(&s.hook)
	}
	return s.set(Waiting, reason, detail, SourceHook, rule)
}

// specificWait reports a permission wait that a PermissionRequest already
// named ("tool: detail"). A permission_prompt Notification for the same wait
// carries only a generic message and must not replace it.
func (s *Session) specificWait() bool {
	return s.State == Waiting && s.Reason == ReasonPermission && s.Detail != "" && s.Rule != "hook.notification_permission"
}

// permissionText is the waiting detail for a permission request:
// "tool_name: detail" (SPEC §6).
func (s *Session) permissionText(tool string, input []byte) string {
	d := ToolDetail(tool, input, s.Cwd)
	switch {
	case tool == "":
		return Cap(d)
	case d == "":
		return Cap(tool)
	}
	return Cap(tool + ": " + d)
}

// Acknowledge marks a finished turn as seen: done → ready.
func (s *Session) Acknowledge() (Change, bool) {
	if s.State != Done {
		return Change{}, false
	}
	return s.set(Ready, ReasonAcknowledged, "", SourceAPI, "api.ack")
}

// Resume brings an ended session back, ready: its conversation continues in
// a new process. The turn history starts afresh.
func (s *Session) Resume(from, rule string) (Change, bool) {
	if s.State != Ended {
		return Change{}, false
	}
	s.endedInTurn = false
	s.turnOpen, s.doneDeferred, s.subWaiting = false, false, false
	s.hook.pos, s.log.pos = s.turn, s.turn
	return s.set(Ready, ReasonResumed, "", from, rule)
}

// End ends the session for a reason outside the agent (its tab closed, its
// process gone). A session that already ended (SessionEnd, then its tab
// closes) keeps how it ended and publishes nothing: ended is said once.
func (s *Session) End(reason, rule string) (Change, bool) {
	if s.State != Ended {
		// A Codex turn can outlive its TUI (Outlive).
		s.endedInTurn = s.turnOpen && parsers.TraitsOf(s.Agent).TurnsOutliveProcess
	}
	s.turnOpen, s.doneDeferred = false, false
	if s.State == Ended {
		return Change{}, false
	}
	return s.set(Ended, reason, "", SourceAPI, rule)
}

// Outlive takes up again the turn that was running when End ended the
// session from outside (its tab closed): Codex 0.169 goes on with it in
// its background server ("Any running work continues"), so evidence of
// that turn after the end means the session is not over. It returns the
// session as working (reason resumed), with the turn open again; the caller
// folds the evidence next and publishes what that decides, or this change
// when the evidence changes nothing. Only once per such end: a session that
// ended any other way, or at an idle prompt, stays ended (Resume is for a
// new turn).
func (s *Session) Outlive(from, rule string) (Change, bool) {
	if s.State != Ended || !s.endedInTurn {
		return Change{}, false
	}
	s.endedInTurn = false
	s.turnOpen = true
	s.hook.pos, s.log.pos = s.turn, s.turn
	return s.set(Working, ReasonResumed, "", from, rule)
}

// Outlives reports whether Outlive would take the session up again.
func (s *Session) Outlives() bool { return s.State == Ended && s.endedInTurn }
