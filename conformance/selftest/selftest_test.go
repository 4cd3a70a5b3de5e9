package selftest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/conformance"
	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/parsers"
	_ "github.com/logwatch/logwatch/parsers/all"
	"github.com/logwatch/logwatch/setup/knowngood"
)

// TestSelftestPinnedAgents runs the real `logwatch selftest` against the
// pinned agents (conformance/install-agents), as CI does: every scenario
// passes, the table says so, and each release is recorded as known-good.
func TestSelftestPinnedAgents(t *testing.T) {
	dir := agents.Dir()
	var names []string
	for _, a := range agents.Pinned() {
		if s := parsers.Lookup(parsers.Agent(a.Name)); s == nil || s.Offline == nil {
			continue // pinned for the suite, not an agent selftest drives
		}
		if _, err := os.Stat(a.BinPath(dir)); err != nil {
			testsupport.Missing(t, "selftest: %s %s not found at %s; install the pinned agents with `conformance/install-agents`", a.Name, a.Version, a.BinPath(dir))
			return
		}
		names = append(names, a.Name)
	}
	binDir := filepath.Dir(func() string { a, _ := agents.Get(names[0]); return a.BinPath(dir) }())
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
