package session

import (
	"strings"

	"github.com/logwatch/logwatch/parsers"
)

// SourceRegistry marks a change decided by an agent's live session
// registry (parsers.Registry, read by package watcher/registry).
const SourceRegistry = "registry"

// Registry statuses (parsers.RegistryEntry.Status).
const (
	RegistryBusy    = parsers.RegistryBusy
	RegistryIdle    = parsers.RegistryIdle
	RegistryWaiting = parsers.RegistryWaiting
)

// Registry folds the registry's status into a session that has no hooks:
// with hooks, they report the same waits first and with a better detail
// (PermissionRequest's "Bash: …"), so the registry's would only repeat or
// blur them.
//
//   - waiting (rule registry.waiting): the turn waits on the user; reason
//     from waitingFor, which is the detail. Only inside a turn the log has
//     opened: a wait written before the log's prompt line is read is
//     applied by the caller once the turn is open (it calls again).
//   - busy after a registry wait (registry.busy_after_wait): the user
//     answered, the turn goes on: working on the tool it waited for.
//   - idle, and busy otherwise: nothing. The log's own records end a turn
//     (Claude writes idle between a turn and the task notification that
//     starts the next one) and open one.
func (s *Session) Registry(status, waitingFor string) (Change, bool) {
	if s.hooked || s.State == Ended {
		return Change{}, false
	}
	switch status {
	case RegistryWaiting:
		if !s.turnOpen || (s.State != Working && s.State != Waiting) {
			return Change{}, false
		}
		if s.State == Working && s.Reason == ReasonTool {
			s.waitedTool = s.Detail
		} else if s.State == Working {
			s.waitedTool = ""
		}
		return s.set(Waiting, waitReason(waitingFor), Cap(waitingFor), SourceRegistry, "registry.waiting")
	case RegistryBusy:
		if s.State == Waiting && s.Source == SourceRegistry && s.turnOpen {
			return s.set(Working, ReasonTool, s.waitedTool, SourceRegistry, "registry.busy_after_wait")
		}
	}
	return Change{}, false
}

// waitReason maps waitingFor ("permission prompt", "sandbox request",
// "dialog open", "input needed", "goal proposal") to a reason.
func waitReason(waitingFor string) string {
	if strings.Contains(waitingFor, "permission") || strings.Contains(waitingFor, "sandbox") {
		return ReasonPermission
	}
	return ReasonQuestion
}

// EndFrom is End with the source that knew: the registry's goodbye (its
// file removed) or a gone process.
func (s *Session) EndFrom(reason, from, rule string) (Change, bool) {
	s.turnOpen, s.doneDeferred = false, false
	if s.State == Ended {
		return Change{}, false
	}
	return s.set(Ended, reason, "", from, rule)
}
