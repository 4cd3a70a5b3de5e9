package all_test

import (
	"testing"

	"github.com/logwatch/logwatch/parsers"
)

// hop is one process above a hook client: its comm and arguments, as
// /proc showed them in each pinned agent's conformance run (wrap above
// the agent, the tmux server above that).
type hop struct {
	comm string
	argv []string
}

var wrapHop = hop{"logwatch", []string{"/tmp/lwconf-bin/logwatch", "wrap", "--tab", "T1", "--"}}

// The hook client's ancestors, its parent first, measured on the pinned
// releases; want is the index of the agent's own process, -1 for none.
var measuredChains = []struct {
	agent parsers.Agent
	chain []hop
	want  int
}{
	{"claude", []hop{
		{"sh", []string{"/bin/sh", "-c", "/tmp/lwconf-bin/logwatch hook --agent claude"}},
		{"claude", []string{"/root/.cache/logwatch/agents/node_modules/.bin/claude", "--permission-mode", "default"}},
		wrapHop}, 1},
	{"pi", []hop{{"pi", []string{"pi"}}, wrapHop}, 0},
	{"omp", []hop{{"omp", []string{"bun", "/root/.cache/logwatch/agents/node_modules/.bin/omp"}}, wrapHop}, 0},
	{"opencode", []hop{{"opencode", []string{"/root/.cache/logwatch/agents/node_modules/.bin/opencode"}}, wrapHop}, 0},
	{"gemini", []hop{
		{"node", []string{"/usr/bin/node", "--max-old-space-size=12052", "/root/.cache/logwatch/agents/node_modules/.bin/gemini"}},
		{"node", []string{"node", "/root/.cache/logwatch/agents/node_modules/.bin/gemini"}},
		wrapHop}, 0},
	{"copilot", []hop{
		{"MainThread", []string{"/root/.cache/logwatch/agents/node_modules/@github/copilot-linux-x64/copilot"}},
		{"node", []string{"node", "/root/.cache/logwatch/agents/node_modules/.bin/copilot"}},
		wrapHop}, 0},
	// The shared app-server runs every TUI's hooks: no one session's.
	{"codex", []hop{
		{"codex", []string{"/home/.codex/packages/app-server-daemon/releases/0.171.0-x86_64-unknown-linux-musl/bin/codex", "app-server", "--listen", "unix://", "--managed-daemon"}},
		{"codex", []string{"/root/.cache/logwatch/agents/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex", "-a", "on-request"}},
		{"node", []string{"node", "/root/.cache/logwatch/agents/node_modules/.bin/codex", "-a", "on-request"}},
		wrapHop}, -1},
	// Without the shell (a /bin/sh that execs its last command), Claude
	// Code is the parent; a shell alone, or a launcher, is never the agent.
	{"claude", []hop{{"claude", []string{"claude"}}, {"bash", []string{"-bash"}}}, 0},
	{"claude", []hop{{"sh", []string{"/bin/sh", "-c", "logwatch hook"}}, {"bash", []string{"-bash"}}}, -1},
	{"gemini", []hop{{"sh", []string{"/bin/sh", "-c", "logwatch hook"}}, {"node", []string{"node", "/usr/local/bin/gemini"}}}, 1},
	{"gemini", []hop{{"node", []string{"node", "/srv/other/server.js"}}, {"bash", []string{"bash"}}}, -1},
	{"copilot", []hop{{"node", []string{"node", "/usr/local/bin/copilot"}}, {"bash", []string{"bash"}}}, -1},
	{"pi", []hop{{"node", []string{"node", "/usr/local/bin/pi"}}, {"pi", []string{"pi"}}}, -1}, // not its own process: beyond one hop
}

// Each agent's Process rule names the process measured as the agent's,
// within its hops, the nearest first, and nothing in a chain without one.
func TestProcessRules(t *testing.T) {
	for _, c := range measuredChains {
		s := parsers.Lookup(c.agent)
		if s == nil {
			t.Fatalf("no agent %s", c.agent)
		}
		got := -1
		if r := s.Hooks.Process; r.Is != nil {
			for i := 0; i < r.Hops && i < len(c.chain); i++ {
				if r.Is(c.chain[i].comm, c.chain[i].argv) {
					got = i
					break
				}
			}
		}
		if got != c.want {
			t.Errorf("%s: the agent's process is hop %d of %v, want %d", c.agent, got, c.chain, c.want)
		}
	}
}
