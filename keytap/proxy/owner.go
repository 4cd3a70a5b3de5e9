package proxy

import (
	"os"
	"strconv"

	"github.com/logwatch/logwatch/internal/proctree"
)

// TabPIDEnv names the process that owns LOGWATCH_TAB: the proxy that set it.
// Everything run in the tab descends from it. A process that inherited the
// variable but is not its descendant was started by something that outlived
// the tab's own process tree (Codex 0.169's background server, started by
// the first TUI and serving every later one), so its LOGWATCH_TAB names a
// tab that is not its own.
const TabPIDEnv = "LOGWATCH_TAB_PID"

// TabFromEnv returns this process's LOGWATCH_TAB, or "" when LOGWATCH_TAB_PID
// names a process this one does not descend from: a wrong tab is worse
// than none. Without LOGWATCH_TAB_PID (a host app that sets LOGWATCH_TAB
// itself), or where ancestry cannot be read, LOGWATCH_TAB is taken as is.
//
// Under Codex's shared background server (underSharedServer) the tab is
// dropped too, owner or not: it is the first TUI's.
func TabFromEnv() string {
	tab := os.Getenv(TabEnv)
	owner, err := strconv.Atoi(os.Getenv(TabPIDEnv))
	if err != nil || owner < 0 {
		owner = 0
	}
	if tab = sharedServerTab(tab, owner); tab == "" || owner == 0 {
		return tab
	}
	if descends, known := proctree.Descends(os.Getpid(), owner); known && !descends {
		return ""
	}
	return tab
}
