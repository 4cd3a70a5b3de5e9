package layout

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/internal/testsupport"
)

const mod = "github.com/logwatch/logwatch/"

// allowed is the whole flow (SPEC §1), one row per package: the project's
// own packages it may import. Data goes parsers → watcher → relay →
// subscribers, keytap beside the watcher; pipeline/ runs them together
// (the daemon's pump, replay, verify); setup/ edits the machine for them;
// internal/ holds the leaves they share; cmd/ wires everything and is
// imported by none. bench/ measures and may import anything but cmd/.
var allowed = map[string][]string{
	// Sources: lines → evidence, files → lines, keys → interrupts. parsers
	// is the core (evidence, the scan, the agent registry); each agent is
	// one package under it that the core never imports (TestCoreNamesNoAgent),
	// registered by parsers/all, which only cmd/ imports.
	"parsers/lines":                 {},
	"parsers":                       {},
	"parsers/claude":                {"conformance/agents", "parsers"},
	"parsers/codex":                 {"conformance/agents", "parsers"},
	"parsers/copilot":               {"conformance/agents", "parsers"},
	"parsers/pisession":             {"parsers"},
	"parsers/hookmodule":            {},
	"parsers/hookmodule/moduletest": {"conformance/agents", "internal/testsupport"},
	"parsers/pi":                    {"conformance/agents", "parsers", "parsers/pisession", "parsers/hookmodule"},
	"parsers/gemini":                {"conformance/agents", "parsers"},
	"parsers/omp":                   {"conformance/agents", "parsers", "parsers/pisession", "parsers/hookmodule"},
	"parsers/opencode":              {"conformance/agents", "parsers", "parsers/hookmodule", "parsers/opencode/store"},
	"parsers/all":                   {"parsers", "parsers/claude", "parsers/codex", "parsers/copilot", "parsers/gemini", "parsers/omp", "parsers/opencode", "parsers/pi"},
	"parsers/parsertest":            {"parsers"},
	// OpenCode's SQLite store read as a change feed: the driver and the
	// house's file checks only, so the parser above it stays testable
	// with recorded lines.
	"parsers/opencode/store": {"internal/safeopen"},
	// OpenCode databases for tests and benchmarks (the real one, a writer
	// playing OpenCode): the driver only.
	"parsers/opencode/store/storetest": {},
	// A third agent declared in its test's testdata and built into the
	// binary by that test alone (go build -overlay): the seam's proof.
	"parsers/toyagent":  {},
	"watcher/follow":    {"parsers/lines"},
	"watcher":           {"internal/safeopen", "parsers", "parsers/lines", "watcher/follow"},
	"watcher/storefeed": {"parsers", "parsers/lines", "watcher"},
	"keytap":            {},
	// The agents' live session registries, a source beside the logs.
	"watcher/registry": {"internal/safeopen", "parsers", "watcher"},

	// The relay: the pure state folder; the state owner (relay: the edge
	// that takes every input and runs it as a step of the deterministic
	// machine, which keeps the sessions in its store, tabs in its binder,
	// agent processes in its registry); the server above it, reaching it
	// through the small interface it defines (server.Relay); its clock;
	// the wire types and the run directory's secret, which its clients
	// share with it; its client.
	"relay/session":  {"parsers"},
	"relay/peercred": {},
	"relay/vclock":   {},
	"relay/wire":     {},
	"relay/secret":   {"internal/safeopen", "relay/peercred"},
	"relay":          {"internal/proctree", "internal/safeopen", "parsers", "relay/session", "relay/wire"},
	"relay/server":   {"parsers/lines", "relay", "relay/peercred", "relay/secret", "relay/wire"},
	"relay/client":   {"relay/peercred", "relay/wire"},
	"keytap/proxy":   {"internal/proctree", "keytap", "relay/client", "relay/wire"},
	"remote":         {"relay/client", "relay/wire"},
	// Telling the person: the relay's changes made alerts (notify, which
	// follows the relay as a subscriber and marks what it alerted beside
	// the checkpoint), handed to sinks, one package each.
	"notify":         {"internal/atomicfile", "internal/safeopen", "relay", "relay/wire"},
	"notify/command": {"notify"},
	"notify/webhook": {"internal/safeopen", "notify", "notify/command"},
	"notify/desktop": {"notify", "relay/session"},
	// A subscriber: tmux's dots, summary and jump, from the change stream.
	"tmux": {"internal/proctree", "internal/statusview", "relay/client", "relay/session", "relay/wire"},

	// Above watcher and relay: what runs the pipeline.
	"pipeline/ingest": {"internal/safeopen", "relay", "watcher", "watcher/registry"},
	"pipeline/replay": {"internal/safeopen", "parsers", "pipeline/ingest", "relay", "relay/vclock", "watcher", "watcher/storefeed"},
	"pipeline/verify": {"internal/safeopen", "parsers", "parsers/lines", "relay/session"},

	// The machine's setup: the agents' settings files, the service, doctor.
	"setup/selfbin":       {},
	"setup/service":       {"internal/atomicfile"},
	"setup/agentsettings": {"internal/atomicfile", "internal/config", "internal/jsonc", "internal/safeopen", "internal/udiff", "parsers", "relay/secret", "relay/wire"},
	"setup/doctor":        {"internal/config", "internal/hookdebug", "internal/safeopen", "internal/statusview", "internal/termsafe", "parsers", "relay/client", "relay/wire", "setup/agentsettings", "setup/knowngood"},
	"setup/knowngood":     {"internal/atomicfile", "internal/config", "internal/safeopen"},

	// Shared leaves.
	"internal/config":      {"internal/atomicfile", "internal/safeopen", "parsers", "relay/wire"},
	"internal/jsonc":       {},
	"internal/hookdebug":   {"internal/safeopen"},
	"internal/statusview":  {"internal/termsafe", "relay/client", "relay/wire"},
	"internal/proctree":    {},
	"internal/udiff":       {},
	"internal/atomicfile":  {"internal/safeopen"},
	"internal/safeopen":    {},
	"internal/memtrim":     {},
	"internal/termsafe":    {},
	"internal/manpage":     {"internal/termsafe"},
	"internal/testsupport": {"internal/udiff"},
	"internal/sshtest":     {"internal/proctree", "internal/testsupport"},
	"internal/desktoptest": {"internal/testsupport"},
	"internal/layout":      {},

	// Driving an agent offline: the fake model servers, the scenario world
	// (daemon, panes, timeline; it runs the binaries and imports no logic),
	// and selftest, which runs the installed agents through it.
	"selftest/fakemodel": {},
	"selftest/driver":    {"internal/hookdebug"},
	"selftest":           {"conformance/agents", "internal/atomicfile", "internal/config", "internal/proctree", "internal/safeopen", "internal/statusview", "internal/termsafe", "parsers", "selftest/driver", "selftest/fakemodel", "setup/knowngood"},

	// The live suite drives the binaries through the same driver.
	"conformance":        {"conformance/agents", "internal/testsupport", "selftest/driver", "selftest/fakemodel"},
	"conformance/agents": {},
	// The scenarios, one package per agent (test files only).
	"conformance/claude":   {},
	"conformance/codex":    {},
	"conformance/pi":       {},
	"conformance/omp":      {},
	"conformance/opencode": {},
	"conformance/copilot":  {},
	"conformance/gemini":   {},
	// The pinned agents' selftest, its own test binary (test files only).
	"conformance/selftest": {},
	// The canary runs the suite against the newest releases and reads
	// their captures with the real parsers.
	"conformance/canary": {"conformance/agents", "parsers", "parsers/all"},
}

// against are the flow's main arrows, stated on their own so that a row
// edited to allow one fails all the same: no folder imports one above it.
var against = []struct{ from, to, why string }{
	{"parsers", "watcher", "parsers see lines, not files"},
	{"parsers", "relay", "parsers are below the state folder"},
	{"parsers", "pipeline", "parsers are below what runs them"},
	{"watcher", "relay", "the watcher hands records to pipeline/ingest, not to the relay"},
	{"watcher", "pipeline", "the watcher is below what runs it"},
	{"relay", "watcher", "the relay takes records, not files: the pump is pipeline/ingest"},
	{"relay", "pipeline", "the relay is below what runs it"},
	{"relay", "setup", "the relay knows nothing of settings files or services"},
	{"keytap", "watcher", "keys come from the pty, not the logs"},
	{"internal", "pipeline", "internal/ holds leaves"},
	{"internal", "setup", "internal/ holds leaves"},
	{"pipeline", "setup", "running the pipeline edits no settings"},
}

// againstDaemon are arrows to the daemon's package relay itself, not to the
// packages under it: its wire types, secret and client are for everyone,
// the daemon only for what runs it (pipeline/, cmd/).
var againstDaemon = []struct{ from, why string }{
	{"internal", "internal/ holds leaves: the wire types are relay/wire"},
	{"keytap", "the pty proxy speaks to the daemon through relay/client and relay/wire"},
	{"setup", "settings and doctor speak to the daemon through relay/client, relay/wire and relay/secret"},
}

// under reports whether pkg is dir or inside it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

type listed struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
}

func goList(t *testing.T) []listed {
	t.Helper()
	// go list runs in a child process, which go test's result cache cannot
	// see: reading the sources (tests too, their imports are checked) makes
	// them part of the cache key, so a new import runs the test again.
	if err := testsupport.ReadSources("../..", true); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-json", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		p.ImportPath = strings.TrimPrefix(p.ImportPath, mod)
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

func own(imports []string) []string {
	var out []string
	for _, imp := range imports {
		if dep, ok := strings.CutPrefix(imp, mod); ok {
			out = append(out, dep)
		}
	}
	return out
}

// TestImportDirection checks every package's imports against its row.
func TestImportDirection(t *testing.T) {
	present := map[string]bool{}
	for _, p := range goList(t) {
		pkg := p.ImportPath
		present[pkg] = true
		// No package imports cmd/, not even from its tests.
		for _, dep := range own(slices.Concat(p.Imports, p.TestImports, p.XTestImports)) {
			if under(dep, "cmd") && !under(pkg, "cmd") {
				t.Errorf("%s imports %s: nothing imports cmd/, it wires", pkg, dep)
			}
		}
		if under(pkg, "cmd") || under(pkg, "bench") {
			continue // wiring and measurement may import the rest
		}
		row, known := allowed[pkg]
		if !known {
			t.Errorf("package %s has no row in the import-direction table", pkg)
			continue
		}
		for _, dep := range own(p.Imports) {
			if !slices.Contains(row, dep) {
				t.Errorf("%s imports %s: against the data flow", pkg, dep)
			}
		}
	}
	for pkg := range allowed {
		if !present[pkg] {
			t.Errorf("the table has a row for %s, which does not exist", pkg)
		}
	}
}

// TestFlowTable checks the table itself: it names only packages it has rows
// for, has no arrow against the flow, and no circle.
func TestFlowTable(t *testing.T) {
	for pkg, row := range allowed {
		for _, dep := range row {
			if _, ok := allowed[dep]; !ok {
				t.Errorf("%s may import %s, which has no row", pkg, dep)
			}
			for _, a := range against {
				if under(pkg, a.from) && under(dep, a.to) {
					t.Errorf("%s may import %s: against the flow (%s)", pkg, dep, a.why)
				}
			}
			for _, a := range againstDaemon {
				if under(pkg, a.from) && dep == "relay" {
					t.Errorf("%s may import relay: against the flow (%s)", pkg, a.why)
				}
			}
		}
	}
	if c := circle(allowed); c != nil {
		t.Errorf("the flow has a circle: %s", strings.Join(c, " → "))
	}
}

// circle returns a cycle of the graph (its first node repeated at the end),
// or nil.
func circle(g map[string][]string) []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(n string) []string
	visit = func(n string) []string {
		state[n] = open
		stack = append(stack, n)
		for _, m := range g[n] {
			switch state[m] {
			case open:
				i := slices.Index(stack, m)
				return append(slices.Clone(stack[i:]), m)
			case unseen:
				if c := visit(m); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
		return nil
	}
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range g {
			if !yield(n) {
				return
			}
		}
	}) {
		if state[n] == unseen {
			if c := visit(n); c != nil {
				return c
			}
		}
	}
	return nil
}

func TestCircleFinds(t *testing.T) {
	if c := circle(map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a"}}); strings.Join(c, " ") != "a b c a" {
		t.Errorf("circle = %v", c)
	}
	if c := circle(map[string][]string{"a": {"b", "c"}, "b": {"c"}, "c": {}}); c != nil {
		t.Errorf("a diamond is no circle: %v", c)
	}
}

// infraUnderParsers are the packages under parsers/ that are not an agent.
var infraUnderParsers = []string{"parsers/lines", "parsers/all", "parsers/parsertest", "parsers/pisession", "parsers/hookmodule", "parsers/opencode/store", "parsers/opencode/store/storetest"}

// TestCoreNamesNoAgent: an agent's package (parsers/<agent>) is imported
// only by parsers/all, which registers it (cmd/ imports that), and by
// bench/, which measures real agents' logs; tests may drive a real agent.
// No agent imports another.
// Adding an agent is its folder and a line in parsers/all.
func TestCoreNamesNoAgent(t *testing.T) {
	isAgent := func(pkg string) bool {
		return under(pkg, "parsers") && pkg != "parsers" && !slices.Contains(infraUnderParsers, pkg)
	}
	n := 0
	for _, p := range goList(t) {
		pkg := p.ImportPath
		if isAgent(pkg) {
			n++
		}
		if pkg == "parsers/all" || under(pkg, "bench") {
			continue
		}
		for _, dep := range own(p.Imports) {
			if isAgent(dep) {
				t.Errorf("%s imports the agent %s: only parsers/all may (the core loops over parsers.All)", pkg, dep)
			}
		}
	}
	if n < 2 {
		t.Errorf("found %d agent packages under parsers/", n)
	}
}
