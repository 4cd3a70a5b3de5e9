package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/setup/agentsettings"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with a golden file (rewritten with -update).
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	testsupport.Golden(t, path, got, *update)
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
	orig, err := os.ReadFile("../../setup/agentsettings/testdata/setup/claude-full/before.json")
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
	if b, _ := os.ReadFile(real + agentsettings.BackupSuffix); !bytes.Equal(b, orig) {
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

	_, stderr, code = cli(t, env, "hooks", "install", "--agent", "aider")
	if code != 2 || !strings.Contains(stderr, `unknown --agent "aider"`) {
		t.Errorf("unknown agent: exit %d %s", code, stderr)
	}
	_, stderr, code = cli(t, env, "hooks", "install")
	if code != 2 || !strings.Contains(stderr, `"agent" not set`) {
		t.Errorf("no agent: exit %d %s", code, stderr)
	}
}

// TestHookHelp: `hook --help` prints the hook client's help with its
// flags; without --help it stays silent whatever it is given.
func TestHookHelp(t *testing.T) {
	stdout, stderr, code := cli(t, nil, "hook", "--help")
	if code != 0 || !strings.Contains(stdout, "--agent") || !strings.Contains(stdout, "--detached") || stderr != "" {
		t.Errorf("hook --help: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = cli(t, []string{"LOGWATCH_SOCKET=/nonexistent/lw.sock"}, "hook", "--agent", "claude", "--bogus")
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("hook: exit %d, printed %q %q", code, stdout, stderr)
	}
}

// TestHooksHelpOneList: `hooks --help` lists every agent's hook file in one
// block, before the paragraphs that explain them.
func TestHooksHelpOneList(t *testing.T) {
	stdout, _, code := cli(t, nil, "hooks", "--help")
	first, _, _ := strings.Cut(stdout, "\n\n")
	for _, agent := range agentsettings.Agents() {
		if code != 0 || !strings.Contains(first, "\n  "+agent+" ") {
			t.Errorf("%s is not in the first block:\n%s", agent, stdout)
		}
	}
}

// TestAgentDidYouMean: a misspelt --agent gets the agent meant.
func TestAgentDidYouMean(t *testing.T) {
	_, stderr, code := cli(t, nil, "hooks", "install", "--agent", "cluade", "--dry-run")
	if code != 2 || !strings.Contains(stderr, "(did you mean claude?)") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
