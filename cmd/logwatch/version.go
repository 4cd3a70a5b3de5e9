package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/relay/wire"
)

// buildVersion is what `logwatch version` prints: what Go embedded in the
// binary (module version, VCS revision, dirty tree) and the agent releases
// the conformance suite last passed with.
type buildVersion struct {
	Version  string         `json:"version"`  // the module version, or main.version when set at link time
	Module   string         `json:"module"`   // the module path (not published: build from a checkout)
	Revision string         `json:"revision"` // VCS revision, "" when built outside a checkout
	Time     string         `json:"time,omitempty"`
	Dirty    bool           `json:"dirty"` // the checkout had uncommitted changes
	Go       string         `json:"go"`
	Protocol int            `json:"protocol"` // the socket protocol version (docs/protocol.md)
	Agents   []agentVersion `json:"agents"`   // the releases the conformance suite last passed with
}

type agentVersion struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

func readBuildVersion() buildVersion {
	v := buildVersion{Version: version, Go: runtime.Version(), Protocol: wire.Protocol, Agents: []agentVersion{}}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Module = bi.Main.Path
		if version == "dev" && bi.Main.Version != "" {
			v.Version = bi.Main.Version // "(devel)", or v0.0.0-<time>-<rev>[+dirty] from a checkout
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Dirty = s.Value == "true"
			}
		}
	}
	for _, a := range agents.Pinned() {
		v.Agents = append(v.Agents, agentVersion{Name: a.Name, Version: a.Version})
	}
	return v
}

// text is the human form; its first line is what `--version` always said.
func (v buildVersion) text() string {
	s := fmt.Sprintf("logwatch version %s\n", v.Version)
	rev := v.Revision
	switch {
	case rev == "":
		rev = "unknown (built without VCS stamping: outside a git clone, in a git worktree, or with -buildvcs=false)"
	case v.Dirty:
		rev += " (dirty: uncommitted changes)"
	}
	if v.Time != "" {
		rev += ", committed " + v.Time
	}
	s += fmt.Sprintf("  revision  %s\n", rev)
	s += fmt.Sprintf("  module    %s (not published: go install ./cmd/logwatch from a checkout)\n", v.Module)
	s += fmt.Sprintf("  go        %s\n  protocol  %d\n", v.Go, v.Protocol)
	s += "  agents the conformance suite last passed with:"
	for _, a := range v.Agents {
		s += fmt.Sprintf(" %s %s", a.Name, a.Version)
	}
	return s + "\n"
}

func newVersionCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print the build: version, VCS revision, dirty flag, and the agent versions known to work",
		Args:  cobra.NoArgs,
		// The build alone: a broken configuration must not hide it.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		RunE: func(cmd *cobra.Command, args []string) error {
			return writeVersion(a.stdout, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print it as JSON")
	return cmd
}

func writeVersion(w io.Writer, asJSON bool) error {
	v := readBuildVersion()
	if !asJSON {
		_, err := io.WriteString(w, v.text())
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
