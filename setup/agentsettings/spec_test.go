package agentsettings

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/internal/jsonc"
	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/internal/udiff"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with a golden file (rewritten with -update).
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	testsupport.Golden(t, path, got, *update)
}

// TestHookFiles runs install and uninstall over copies of real-world
// settings files (testdata/setup/<agent>-<case>/before.json; none for a
// file that does not exist yet): the result of install is a golden file,
// install is idempotent, a moved binary is updated in place, and uninstall
// gives back the original bytes (or after-uninstall.json when the original
// held logwatch entries of its own or a "hooks" object left empty).
func TestHookFiles(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/setup/*")
	if len(dirs) < 5 {
		t.Fatalf("setup cases missing: %v", dirs)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		agent, _, _ := strings.Cut(name, "-")
		spec, _ := Lookup(agent)
		t.Run(name, func(t *testing.T) {
			before, err := os.ReadFile(filepath.Join(dir, "before.json"))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			cmd := Command("/usr/local/bin/logwatch", agent)
			installed, err := spec.Plan(before, cmd, true)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(dir, "after-install.json"), installed)
			if _, err := jsonc.Parse(installed); err != nil {
				t.Fatalf("install wrote a file that does not parse: %v", err)
			}
			got, _, _ := spec.Status(installed)
			if len(got) != len(spec.Events) {
				t.Errorf("%d events hooked, want %d", len(got), len(spec.Events))
			}

			again, err := spec.Plan(installed, cmd, true)
			if err != nil || !bytes.Equal(again, installed) {
				t.Errorf("second install changed the file (err %v)", err)
			}

			moved, err := spec.Plan(installed, Command("/opt/new place/logwatch", agent), true)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(moved), " hook --agent"); n != len(spec.Events) {
				t.Errorf("moved binary: %d logwatch handlers, want %d", n, len(spec.Events))
			}
			if strings.Contains(string(moved), "/usr/local/bin/logwatch") || !strings.Contains(string(moved), `'/opt/new place/logwatch' hook`) {
				t.Errorf("moved binary not updated in place:\n%s", moved)
			}

			removed, err := spec.Plan(installed, cmd, false)
			if err != nil {
				t.Fatal(err)
			}
			want := before
			if b, err := os.ReadFile(filepath.Join(dir, "after-uninstall.json")); err == nil || *update {
				golden(t, filepath.Join(dir, "after-uninstall.json"), removed)
				want = b
			}
			if before == nil && !*update {
				want = []byte("{}\n")
			}
			if !*update && !bytes.Equal(removed, want) {
				var d bytes.Buffer
				udiff.Write(&d, "want", "got", want, removed)
				t.Errorf("uninstall did not restore the file:\n%s", d.String())
			}
			// Nothing of logwatch's is left, and every other tool's command is.
			if strings.Contains(string(removed), "hook --agent") {
				t.Errorf("uninstall left a logwatch handler:\n%s", removed)
			}
			for _, c := range otherCommands(t, spec, before) {
				if !strings.Contains(string(removed), c) || !strings.Contains(string(installed), c) {
					t.Errorf("another tool's command %q was lost", c)
				}
			}
		})
	}
}

// otherCommands lists the handler commands in a file that are not logwatch's.
func otherCommands(t *testing.T, spec Spec, src []byte) []string {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil
	}
	root, err := jsonc.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if hooks := root.Get("hooks"); hooks != nil {
		for _, m := range hooks.Members {
			for _, g := range m.Val.Elems {
				handlers := []*jsonc.Node{g} // the flat shape: the element is the handler
				if !spec.flat {
					handlers = g.Get("hooks").Elems
				}
				for _, h := range handlers {
					if c := h.Get(spec.commandKey()); c != nil && !IsOurCommand(c.Str) {
						out = append(out, string(src[c.Start+1:c.End-1]))
					}
				}
			}
		}
	}
	return out
}

func TestIsOurCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/local/bin/logwatch hook --agent claude":    true,
		"logwatch hook --agent codex":                    true,
		"'/Users/me/my tools/logwatch' hook --agent x":   true,
		"/home/u/go/bin/logwatch hook":                   true,
		"/usr/local/bin/logwatch run":                    false,
		"/usr/bin/logwatcher hook --agent claude":        false,
		"echo logwatch hook":                             false,
		"python3 ~/.claude/hooks/logwatch.py hook":       false,
		`"C:\Program Files\logwatch.exe" hook --agent x`: true,
	} {
		if got := IsOurCommand(cmd); got != want {
			t.Errorf("IsOurCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestHTTPHookFiles: --http over the real-world Claude settings files: one
// http handler per event with the secret and the tab header, idempotent, a
// new secret or port updated in place, command ↔ http switched in place,
// and uninstall gives back the original bytes.
func TestHTTPHookFiles(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/setup/claude-*")
	if len(dirs) == 0 {
		t.Fatal("no claude setup cases")
	}
	spec, _ := Lookup("claude")
	web := spec.WithHTTP("http://127.0.0.1:8765/hook?agent=claude", strings.Repeat("ab", 32))
	if len(web.Events) != len(spec.Events)-1 || slices.Contains(web.Events, "PermissionRequest") {
		t.Fatalf("http events %v", web.Events)
	}
	cmd := Command("/usr/local/bin/logwatch", "claude")
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			before, _ := os.ReadFile(filepath.Join(dir, "before.json"))
			installed, err := web.Plan(before, cmd, true)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(installed), `"type": "http"`) + strings.Count(string(installed), `"type":"http"`); n != len(web.Events) {
				t.Errorf("%d http handlers, want %d:\n%s", n, len(web.Events), installed)
			}
			if n := strings.Count(string(installed), `"X-Logwatch-Secret"`); n != len(web.Events) {
				t.Errorf("%d secrets, want %d", n, len(web.Events))
			}
			if got, _, _ := spec.Status(installed); slices.Contains(got, "PermissionRequest") {
				t.Error("an http install left a PermissionRequest handler")
			}
			if strings.Contains(string(installed), "hook --agent claude") {
				t.Errorf("a command handler is left:\n%s", installed)
			}
			if again, _ := web.Plan(installed, cmd, true); !bytes.Equal(again, installed) {
				t.Error("second install changed the file")
			}
			rotated := spec.WithHTTP("http://127.0.0.1:9000/hook?agent=claude", strings.Repeat("cd", 32))
			moved, _ := rotated.Plan(installed, cmd, true)
			if strings.Contains(string(moved), "8765") || strings.Contains(string(moved), strings.Repeat("ab", 32)) ||
				strings.Count(string(moved), strings.Repeat("cd", 32)) != len(web.Events) {
				t.Errorf("new port and secret not updated in place:\n%s", moved)
			}
			fromCmd, _ := spec.Plan(before, cmd, true)
			if switched, _ := web.Plan(fromCmd, cmd, true); strings.Contains(string(switched), "hook --agent claude") {
				t.Errorf("command → http left a command handler:\n%s", switched)
			}
			back, _ := spec.Plan(installed, cmd, true)
			if strings.Contains(string(back), `"http"`) || strings.Count(string(back), "hook --agent claude") != len(spec.Events) {
				t.Errorf("http → command not switched in place:\n%s", back)
			}
			removed, _ := spec.Plan(installed, "", false)
			want := before
			if b, err := os.ReadFile(filepath.Join(dir, "after-uninstall.json")); err == nil {
				want = b
			}
			if before == nil {
				want = []byte("{}\n")
			}
			if !bytes.Equal(removed, want) {
				var d bytes.Buffer
				udiff.Write(&d, "want", "got", want, removed)
				t.Errorf("uninstall did not restore the file:\n%s", d.String())
			}
		})
	}
}

// TestNoProjectScope: an agent with no project hooks file (Copilot CLI)
// says so for --scope project instead of editing the working directory.
func TestNoProjectScope(t *testing.T) {
	t.Setenv("COPILOT_HOME", "")
	if _, err := SettingsPath("copilot", "project"); err == nil || !strings.Contains(err.Error(), "no project scope") {
		t.Errorf("copilot --scope project: %v", err)
	}
	if p, err := SettingsPath("copilot", "user"); err != nil || !strings.HasSuffix(p, "/.copilot/settings.json") {
		t.Errorf("copilot --scope user: %q, %v", p, err)
	}
}
