package main

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestImportDirection keeps the data flow one-way (SPEC §1): sources
// (watcher → parsers, keytap) feed the relay, the relay feeds subscribers,
// and only cmd wires them together. A package may import only what its row
// allows among the project's own packages.
func TestImportDirection(t *testing.T) {
	const mod = "github.com/logwatch/logwatch/"
	allowed := map[string][]string{
		"conformance":          {"conformance/agents", "internal/testsupport"}, // the live suite: drives the binaries, imports no logic
		"parsers":              {},
		"parsers/lines":        {},
		"parsers/verify":       {"parsers", "parsers/lines", "relay/session"},
		"watcher":              {"parsers", "parsers/lines", "watcher/follow"},
		"watcher/follow":       {"parsers/lines"},
		"keytap":               {},
		"keytap/proxy":         {"keytap", "relay", "relay/client", "internal/proctree"},
		"relay/session":        {"parsers"},
		"relay/vclock":         {},
		"relay":                {"parsers", "parsers/lines", "relay/session", "relay/peercred", "internal/proctree"},
		"relay/client":         {"relay", "relay/peercred"},
		"relay/peercred":       {},
		"relay/ingest":         {"relay", "watcher", "registry"},
		"registry":             {},
		"relay/replay":         {"parsers", "relay", "relay/ingest", "relay/vclock", "watcher"},
		"conformance/agents":   {},
		"internal/testsupport": {},
		"internal/proctree":    {},
	}
	out, err := exec.Command("go", "list", "-json", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkg := strings.TrimPrefix(p.ImportPath, mod)
		if strings.HasPrefix(pkg, "cmd/") || strings.HasPrefix(pkg, "bench/") {
			continue // wiring and measurement may import anything
		}
		ok, known := allowed[pkg]
		if !known {
			t.Errorf("package %s has no row in the import-direction table", pkg)
			continue
		}
		seen++
		for _, imp := range p.Imports {
			dep, own := strings.CutPrefix(imp, mod)
			if !own {
				continue
			}
			permitted := false
			for _, a := range ok {
				permitted = permitted || a == dep
			}
			if !permitted {
				t.Errorf("%s imports %s: against the data flow", pkg, dep)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("checked only %d packages", seen)
	}
}
