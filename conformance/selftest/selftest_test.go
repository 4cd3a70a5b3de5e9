package selftest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/conformance"
	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/parsers"
	_ "github.com/logwatch/logwatch/parsers/all"
	"github.com/logwatch/logwatch/setup/knowngood"
)

// TestSelftestPinnedAgents runs the real `logwatch selftest` against the
// pinned agents (conformance/install-agents), as CI does: every scenario
// passes, the table says so, and each release is recorded as known-good.
func TestSelftestPinnedAgents(t *testing.T) {
	var (
		names  []string
		binDir string
	)
	for _, a := range agents.Pinned() {
		if s := parsers.Lookup(parsers.Agent(a.Name)); s == nil || s.Offline == nil {
			continue // pinned for the suite, not an agent selftest drives
		}
		// Skipped under -race, as the suite is; missing, named with the fix.
		_, bin := conformance.RequireAgent(t, a.Name)
		names, binDir = append(names, a.Name), filepath.Dir(bin)
	}
	r := conformance.NewSelftestRun(t, conformance.Logwatch(t), binDir)
	out, code := r.Run(t, "--json")
	var rep struct {
		Passed  bool `json:"passed"`
		Results []struct {
			Agent, Version, Scenario, Result, Error string
		} `json:"results"`
		Recorded []string `json:"recorded"`
		Seconds  float64  `json:"seconds"`
	}
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{\n"):]), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("selftest took %.1fs\n%s", rep.Seconds, out)
	if code != 0 || !rep.Passed {
		t.Errorf("exit %d, passed %v", code, rep.Passed)
	}
	for _, n := range names {
		a, _ := agents.Get(n)
		rec, _ := knowngood.Read(filepath.Join(r.State, "logwatch", "known-good.json"))
		if !rec.Has(n, a.Version) {
			t.Errorf("%s %s not recorded as known-good", n, a.Version)
		}
	}
	kept, _ := filepath.Glob(filepath.Join(r.Tmp, "logwatch-selftest-*")) // the failures' folder
	for _, k := range kept {
		os.RemoveAll(k)
	}
	if left := r.Settled(); len(left) > 0 {
		t.Errorf("left behind:\n%s", strings.Join(left, "\n"))
	}
}
