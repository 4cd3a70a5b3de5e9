package claude

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/logwatch/logwatch/parsers"
)

// Claude Code's live session registry: one file per running interactive
// process, ${CLAUDE_CONFIG_DIR:-~/.claude}/sessions/<pid>.json, rewritten in
// place as the session goes (2.1.328) and removed when the process exits
// cleanly. It tells which session a process runs, whether that process
// still runs, and whether it is busy, idle or waiting on the user. Its
// statuses are parsers' RegistryBusy, RegistryIdle and RegistryWaiting.

// PidOf returns the pid a registry file name names ("<pid>.json"), 0 for
// any other name (the "<pid>.<hash>.key" files beside them, temporaries).
func PidOf(path string) int {
	name := filepath.Base(path)
	digits, ok := strings.CutSuffix(name, ".json")
	if !ok || digits == "" || len(digits) > 10 {
		return 0
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0
		}
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// ParseRegistry reads one registry file's content. Unknown fields are ignored, and
// so is a known field of an unexpected type, except the two an entry is
// nothing without: pid (which must match the file name) and sessionId.
func ParseRegistry(path string, b []byte) (parsers.RegistryEntry, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		// Empty, cut short, or a shorter rewrite over a longer file that is
		// not truncated yet (`…}41,"waitingFor":…}`): all incomplete.
		return parsers.RegistryEntry{}, fmt.Errorf("%w: %s", parsers.ErrRegistryIncomplete, filepath.Base(path))
	}
	e := parsers.RegistryEntry{Path: path}
	if err := json.Unmarshal(raw["pid"], &e.Pid); err != nil || e.Pid <= 0 {
		return parsers.RegistryEntry{}, fmt.Errorf("registry %s: no pid", filepath.Base(path))
	}
	if want := PidOf(path); want != 0 && want != e.Pid {
		return parsers.RegistryEntry{}, fmt.Errorf("registry %s: names pid %d", filepath.Base(path), e.Pid)
	}
	if err := json.Unmarshal(raw["sessionId"], &e.SessionID); err != nil || e.SessionID == "" {
		return parsers.RegistryEntry{}, fmt.Errorf("registry %s: no sessionId", filepath.Base(path))
	}
	str := func(k string, dst *string) { _ = json.Unmarshal(raw[k], dst) }
	num := func(k string, dst *int64) { _ = json.Unmarshal(raw[k], dst) }
	str("cwd", &e.Cwd)
	str("version", &e.Version)
	str("kind", &e.Kind)
	str("entrypoint", &e.Entrypoint)
	str("status", &e.Status)
	str("waitingFor", &e.WaitingFor)
	str("tmux", &e.Tmux)
	str("name", &e.Name)
	num("startedAt", &e.StartedAt)
	num("updatedAt", &e.UpdatedAt)
	num("statusUpdatedAt", &e.StatusUpdatedAt)
	e.ProcStart = procStart(raw["procStart"])
	return e, nil
}

// procStart accepts the string 2.1.328 writes ("906253") and a number.
func procStart(raw json.RawMessage) uint64 {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
