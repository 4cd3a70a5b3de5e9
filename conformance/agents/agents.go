// Package agents pins the real agent releases the live conformance suite
// (../) runs against. The same file is what the suite last passed with, so
// doctor and `logwatch version` read it as the known-good versions.
package agents

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

//go:embed agents.json
var pinnedJSON []byte

// EnvDir names the environment variable that points at the npm prefix the
// pinned agents are installed in (DIR/node_modules/.bin/<bin>).
const EnvDir = "LOGWATCH_AGENTS_DIR"

// Agent is one pinned agent CLI.
type Agent struct {
	Name    string `json:"name"`    // logwatch's agent name: claude, codex
	Version string `json:"version"` // the release the suite passed with
	Bin     string `json:"bin"`     // the executable npm links in node_modules/.bin
	// Packages are the npm package specs to install: the agent's own
	// first, at Version; then what it runs on (omp: bun), each pinned.
	Packages []string `json:"packages"`
}

type file struct {
	Agents []Agent `json:"agents"`
}

// pinned is decoded on first use: every process links this package (the
// parsers name their known-good release in their Spec), and a decode at
// package init was the largest of our own in every `logwatch hook` run,
// which never reads it.
var pinned = sync.OnceValue(func() []Agent { return mustParse(pinnedJSON) })

func mustParse(b []byte) []Agent {
	var f file
	if err := json.Unmarshal(b, &f); err != nil {
		panic(fmt.Sprintf("conformance/agents: agents.json: %v", err))
	}
	return f.Agents
}

// Pinned returns every pinned agent, in file order.
func Pinned() []Agent { return append([]Agent(nil), pinned()...) }

// Get returns the pinned agent with the given name.
func Get(name string) (Agent, bool) {
	for _, a := range pinned() {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// KnownGood returns the version the suite last passed with for an agent, or
// "" when the agent is not pinned.
func KnownGood(name string) string {
	a, _ := Get(name)
	return a.Version
}

// Dir is where the pinned agents are installed: $LOGWATCH_AGENTS_DIR, else
// the install script's default, ~/.cache/logwatch/agents.
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "logwatch", "agents")
}

// BinPath returns where the agent's executable is under an npm prefix dir.
func (a Agent) BinPath(dir string) string {
	return filepath.Join(dir, "node_modules", ".bin", a.Bin)
}

// Install is the command that installs the agent's pinned release for the
// user (npm's global prefix), with what it runs on.
func (a Agent) Install() string { return "npm install -g " + strings.Join(a.Packages, " ") }
