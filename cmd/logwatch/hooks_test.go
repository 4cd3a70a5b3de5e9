package main

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
		spec := hookSpecs[agent]
		t.Run(name, func(t *testing.T) {
			before, err := os.ReadFile(filepath.Join(dir, "before.json"))
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			cmd := hookCommand("/usr/local/bin/logwatch", agent)
			installed, err := spec.planHooks(before, cmd, true)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(dir, "after-install.json"), installed)
			if _, err := jsonc.Parse(installed); err != nil {
				t.Fatalf("install wrote a file that does not parse: %v", err)
			}
			got, _, _ := spec.hookStatus(installed)
			if len(got) != len(spec.events) {
				t.Errorf("%d events hooked, want %d", len(got), len(spec.events))
			}

			again, err := spec.planHooks(installed, cmd, true)
			if err != nil || !bytes.Equal(again, installed) {
				t.Errorf("second install changed the file (err %v)", err)
			}

			moved, err := spec.planHooks(installed, hookCommand("/opt/new place/logwatch", agent), true)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(moved), " hook --agent"); n != len(spec.events) {
				t.Errorf("moved binary: %d logwatch handlers, want %d", n, len(spec.events))
			}
			if strings.Contains(string(moved), "/usr/local/bin/logwatch") || !strings.Contains(string(moved), `'/opt/new place/logwatch' hook`) {
				t.Errorf("moved binary not updated in place:\n%s", moved)
			}

			removed, err := spec.planHooks(installed, cmd, false)
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
func otherCommands(t *testing.T, spec hookSpec, src []byte) []string {
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
				for _, h := range g.Get("hooks").Elems {
					if c := h.Get("command"); c != nil && !isOurCommand(c.Str) {
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
		if got := isOurCommand(cmd); got != want {
			t.Errorf("isOurCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// TestHooksCLI is the command as a user runs it: it writes through a
// symlink with a backup and the file's mode, is idempotent, prints a diff
// with --dry-run, refuses an unparsable file untouched, and uninstall puts
// the user's bytes back.
func TestHooksCLI(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home}
	dotfiles := filepath.Join(home, "dotfiles")
	claudeDir := filepath.Join(home, ".claude")
	for _, d := range []string{dotfiles, claudeDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	orig, err := os.ReadFile("testdata/setup/claude-full/before.json")
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dotfiles, "claude-settings.json")
	if err := os.WriteFile(real, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(claudeDir, "settings.json")
	if err := os.Symlink(real, settings); err != nil {
		t.Fatal(err)
	}

	stdout, stderr, code := cli(t, env, "hooks", "install", "--agent", "claude", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "--- "+settings) || !strings.Contains(stdout, "+    \"SessionEnd\": [") ||
		!strings.Contains(stdout, bin+" hook --agent claude") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(real); !bytes.Equal(b, orig) {
		t.Fatal("--dry-run wrote the file")
	}

	stdout, stderr, code = cli(t, env, "hooks", "install", "--agent", "claude")
	if code != 0 || !strings.Contains(stdout, "installed logwatch hooks for 14 events") {
		t.Fatalf("install: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if fi, err := os.Lstat(settings); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced by a file")
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(real + backupSuffix); !bytes.Equal(b, orig) {
		t.Error("backup does not hold the original")
	}
	installed, _ := os.ReadFile(real)
	if !strings.Contains(string(installed), `"command": "`+bin+` hook --agent claude", "timeout": 5`) {
		t.Errorf("hook command not by absolute path:\n%s", installed)
	}

	stdout, _, code = cli(t, env, "hooks", "install", "--agent", "claude")
	if after, _ := os.ReadFile(real); code != 0 || !bytes.Equal(after, installed) || !strings.Contains(stdout, "nothing to change") {
		t.Fatalf("second install: exit %d, changed %v\n%s", code, !bytes.Equal(after, installed), stdout)
	}

	stdout, _, code = cli(t, env, "hooks", "uninstall", "--agent", "claude")
	if after, _ := os.ReadFile(real); code != 0 || !bytes.Equal(after, orig) {
		t.Fatalf("uninstall did not restore the file: exit %d\n%s\n%s", code, stdout, after)
	}

	// Codex: the file and its directory are created; the trust prompt is
	// explained.
	stdout, _, code = cli(t, env, "hooks", "install", "--agent", "codex")
	if code != 0 || !strings.Contains(stdout, "Trust all and continue") {
		t.Fatalf("codex install: exit %d\n%s", code, stdout)
	}
	// Codex 0.169's own events: SessionEnd and Interrupt, no StopFailure.
	if b, err := os.ReadFile(filepath.Join(home, ".codex", "hooks.json")); err != nil || !strings.Contains(string(b), `"Interrupt": [`) ||
		!strings.Contains(string(b), `"SessionEnd": [`) || strings.Contains(string(b), "StopFailure") {
		t.Fatalf("codex hooks.json: %v\n%s", err, b)
	}

	// An unparsable file is refused, with where and why, and left alone.
	broken := []byte("{\n  \"model\": \"opus\",\n  \"hooks\": {\n}\n")
	if err := os.WriteFile(real, broken, 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = cli(t, env, "hooks", "install", "--agent", "claude")
	if code != 2 || !strings.Contains(stderr, "cannot parse it as JSON (line 5, column 1: unexpected end of file") {
		t.Fatalf("broken file: exit %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(real); !bytes.Equal(b, broken) {
		t.Error("a file that could not be parsed was rewritten")
	}

	_, stderr, code = cli(t, env, "hooks", "install", "--agent", "gemini")
	if code != 2 || !strings.Contains(stderr, `unknown --agent "gemini"`) {
		t.Errorf("unknown agent: exit %d %s", code, stderr)
	}
	_, stderr, code = cli(t, env, "hooks", "install")
	if code != 2 || !strings.Contains(stderr, `"agent" not set`) {
		t.Errorf("no agent: exit %d %s", code, stderr)
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
	spec := hookSpecs["claude"]
	web := spec.withHTTP("http://127.0.0.1:8765/hook?agent=claude", strings.Repeat("ab", 32))
	if len(web.events) != len(spec.events)-1 || slices.Contains(web.events, "PermissionRequest") {
		t.Fatalf("http events %v", web.events)
	}
	cmd := hookCommand("/usr/local/bin/logwatch", "claude")
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			before, _ := os.ReadFile(filepath.Join(dir, "before.json"))
			installed, err := web.planHooks(before, cmd, true)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(installed), `"type": "http"`) + strings.Count(string(installed), `"type":"http"`); n != len(web.events) {
				t.Errorf("%d http handlers, want %d:\n%s", n, len(web.events), installed)
			}
			if n := strings.Count(string(installed), `"X-Logwatch-Secret"`); n != len(web.events) {
				t.Errorf("%d secrets, want %d", n, len(web.events))
			}
			if got, _, _ := spec.hookStatus(installed); slices.Contains(got, "PermissionRequest") {
				t.Error("an http install left a PermissionRequest handler")
			}
			if strings.Contains(string(installed), "hook --agent claude") {
				t.Errorf("a command handler is left:\n%s", installed)
			}
			if again, _ := web.planHooks(installed, cmd, true); !bytes.Equal(again, installed) {
				t.Error("second install changed the file")
			}
			rotated := spec.withHTTP("http://127.0.0.1:9000/hook?agent=claude", strings.Repeat("cd", 32))
			moved, _ := rotated.planHooks(installed, cmd, true)
			if strings.Contains(string(moved), "8765") || strings.Contains(string(moved), strings.Repeat("ab", 32)) ||
				strings.Count(string(moved), strings.Repeat("cd", 32)) != len(web.events) {
				t.Errorf("new port and secret not updated in place:\n%s", moved)
			}
			fromCmd, _ := spec.planHooks(before, cmd, true)
			if switched, _ := web.planHooks(fromCmd, cmd, true); strings.Contains(string(switched), "hook --agent claude") {
				t.Errorf("command → http left a command handler:\n%s", switched)
			}
			back, _ := spec.planHooks(installed, cmd, true)
			if strings.Contains(string(back), `"http"`) || strings.Count(string(back), "hook --agent claude") != len(spec.events) {
				t.Errorf("http → command not switched in place:\n%s", back)
			}
			removed, _ := spec.planHooks(installed, "", false)
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
