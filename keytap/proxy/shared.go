package proxy

import (
	"os"

	"github.com/logwatch/logwatch/internal/proctree"
)

// underSharedServer reports whether a process between pid and stop (the tab's
// owner; 0: up to init) is Codex's shared background server, `codex
// app-server … --managed-daemon`. Codex 0.169 runs every TUI's hooks there,
// with the environment of the TUI that started it, so while that first tab
// lives its LOGWATCH_TAB passes the descent check for every other tab's
// session: a hook under the shared server names no tab (the relay binds
// Codex sessions by their submits, relay/codexbind.go).
func underSharedServer(pid, stop int) bool {
	for i := 0; i < 1<<10 && pid > 1 && pid != stop; i++ {
		if codexServer(pid) {
			return true
		}
		ppid, err := proctree.Parent(pid)
		if err != nil {
			return false
		}
		pid = ppid
	}
	return false
}

// sharedServerTab drops tab when this process runs under the shared server.
func sharedServerTab(tab string, owner int) string {
	if tab != "" && underSharedServer(os.Getppid(), owner) {
		return ""
	}
	return tab
}

// isCodexServer tells Codex's managed app server by its arguments.
func isCodexServer(argv []string) bool {
	var server, managed bool
	for _, a := range argv {
		switch a {
		case "app-server":
			server = true
		case "--managed-daemon":
			managed = true
		}
	}
	return server && managed
}
