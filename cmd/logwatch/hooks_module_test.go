package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/logwatch/logwatch/setup/doctor"
)

// TestHooksModuleCLI is `logwatch hooks install|uninstall --agent pi` as a
// user runs it: pi loads extensions, so install writes logwatch's one file
// whole (--dry-run shows it, a second install changes nothing, an older one
// is rewritten), doctor says installed and current, uninstall removes that
// file and nothing beside it, and a file at its path that logwatch did not
// write is neither replaced nor removed.
func TestHooksModuleCLI(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "LOGWATCH_SOCKET=/nonexistent/lw.sock"}
	dir := filepath.Join(home, ".pi", "agent", "extensions")
	ext := filepath.Join(dir, "logwatch.ts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "mine.ts")
	if err := os.WriteFile(mine, []byte("export default function (pi) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	quoted, _ := json.Marshal(bin)

	stdout, stderr, code := cli(t, env, "hooks", "install", "--agent", "pi", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "--- /dev/null") || !strings.Contains(stdout, "+const LOGWATCH = "+string(quoted)+";") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(ext); !os.IsNotExist(err) {
		t.Fatalf("--dry-run wrote the extension: %v", err)
	}

	stdout, stderr, code = cli(t, env, "hooks", "install", "--agent", "pi")
	if code != 0 || !strings.Contains(stdout, "installed logwatch's extension") || !strings.Contains(stdout, "restart pi") {
		t.Fatalf("install: exit %d\n%s\n%s", code, stdout, stderr)
	}
	installed, err := os.ReadFile(ext)
	if err != nil || !bytes.HasPrefix(installed, []byte("// logwatch: pi extension")) || !bytes.Contains(installed, quoted) {
		t.Fatalf("installed extension (%v):\n%s", err, installed)
	}
	stdout, _, code = cli(t, env, "hooks", "install", "--agent", "pi")
	if after, _ := os.ReadFile(ext); code != 0 || !bytes.Equal(after, installed) || !strings.Contains(stdout, "nothing to change") {
		t.Fatalf("second install: exit %d\n%s", code, stdout)
	}
	if f := piDoctor(t, env); f.Status != doctor.OK || !strings.Contains(f.Summary, "installed and current") {
		t.Fatalf("doctor after install: %+v", f)
	}

	// An older logwatch's extension (a release's before modules carried
	// their sum, for another binary) is logwatch's: doctor says so and
	// install rewrites it.
	older, err := os.ReadFile("../../parsers/hookmodule/testdata/legacy/3cb834e-pi.ts")
	if err != nil {
		t.Fatal(err)
	}
	older = bytes.Replace(older, []byte(`"__LOGWATCH_BIN__"`), []byte(`"/old/place/logwatch"`), 1)
	if err := os.WriteFile(ext, older, 0o644); err != nil {
		t.Fatal(err)
	}
	if f := piDoctor(t, env); f.Status != doctor.Fail || !strings.Contains(f.Summary, "older logwatch extension") {
		t.Fatalf("doctor with an older extension: %+v", f)
	}
	if stdout, stderr, code = cli(t, env, "hooks", "install", "--agent", "pi"); code != 0 || strings.Contains(stdout, "kept as") {
		t.Fatalf("install over an older extension: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if after, _ := os.ReadFile(ext); !bytes.Equal(after, installed) {
		t.Fatal("install did not rewrite the older extension")
	}
	if backups, _ := filepath.Glob(ext + ".logwatch-bak*"); len(backups) != 0 {
		t.Fatalf("an untouched module backed up: %v", backups)
	}

	stdout, _, code = cli(t, env, "hooks", "uninstall", "--agent", "pi", "--dry-run")
	if _, err := os.Stat(ext); code != 0 || err != nil || !strings.Contains(stdout, "+++ /dev/null") {
		t.Fatalf("uninstall --dry-run: exit %d, %v\n%s", code, err, stdout)
	}
	stdout, _, code = cli(t, env, "hooks", "uninstall", "--agent", "pi")
	if _, err := os.Stat(ext); code != 0 || !os.IsNotExist(err) || !strings.Contains(stdout, "removed logwatch's extension") {
		t.Fatalf("uninstall: exit %d, %v\n%s", code, err, stdout)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "export default function (pi) {}\n" {
		t.Fatalf("uninstall touched the user's extension beside it: %v %q", err, b)
	}
	stdout, _, code = cli(t, env, "hooks", "uninstall", "--agent", "pi")
	if code != 0 || !strings.Contains(stdout, "nothing to remove") {
		t.Fatalf("second uninstall: exit %d\n%s", code, stdout)
	}
	// No pi binary, no pi logs: what install made and uninstall left is
	// no agent to install hooks for.
	if f := piDoctor(t, env); f.Status != doctor.Skip {
		t.Fatalf("doctor after uninstall: %+v", f)
	}

	// A file of the user's at logwatch's path: refused both ways, untouched.
	theirs := []byte("// my own logwatch integration\nexport default function (pi) {}\n")
	if err := os.WriteFile(ext, theirs, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"install", "uninstall"} {
		_, stderr, code = cli(t, env, "hooks", verb, "--agent", "pi")
		if b, _ := os.ReadFile(ext); code == 0 || !bytes.Equal(b, theirs) || !strings.Contains(stderr, "not logwatch's") {
			t.Fatalf("%s over the user's file: exit %d, file kept %v\n%s", verb, code, bytes.Equal(b, theirs), stderr)
		}
	}
	if f := piDoctor(t, env); f.Status != doctor.Fail || !strings.Contains(f.Summary, "not logwatch's") {
		t.Fatalf("doctor with the user's file: %+v", f)
	}
}

// TestHooksModuleFIFO: a FIFO at the extension's path is refused at once,
// never opened for a read that would wait for a writer for ever.
func TestHooksModuleFIFO(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".pi", "agent", "extensions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "logwatch.ts")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var stderr string
	var code int
	go func() {
		defer close(done)
		_, stderr, code = cli(t, []string{"HOME=" + home}, "hooks", "install", "--agent", "pi")
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("install hangs on a FIFO at the extension's path")
	}
	if fi, err := os.Lstat(fifo); code == 0 || err != nil || fi.Mode()&os.ModeNamedPipe == 0 || !strings.Contains(stderr, "FIFO") {
		t.Fatalf("exit %d, the FIFO kept: %v\n%s", code, err, stderr)
	}
}

// TestHooksModuleChanged: logwatch's module with a line the user added is
// theirs: install and uninstall refuse it, the change shown as a diff, the
// file untouched; --force replaces, then removes it, each time keeping the
// changed file as a backup beside it (an earlier backup never overwritten).
func TestHooksModuleChanged(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "LOGWATCH_SOCKET=/nonexistent/lw.sock"}
	ext := filepath.Join(home, ".pi", "agent", "extensions", "logwatch.ts")
	if _, stderr, code := cli(t, env, "hooks", "install", "--agent", "pi"); code != 0 {
		t.Fatalf("install: exit %d %s", code, stderr)
	}
	installed, err := os.ReadFile(ext)
	if err != nil {
		t.Fatal(err)
	}
	edited := append(bytes.Clone(installed), "console.error(\"my line\");\n"...)
	if err := os.WriteFile(ext, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"install", "uninstall"} {
		stdout, stderr, code := cli(t, env, "hooks", verb, "--agent", "pi")
		if b, _ := os.ReadFile(ext); code == 0 || !bytes.Equal(b, edited) {
			t.Fatalf("%s over an edited module: exit %d, file kept %v\n%s\n%s", verb, code, bytes.Equal(b, edited), stdout, stderr)
		}
		if !strings.Contains(stdout, `+console.error("my line");`) || !strings.Contains(stderr, "changed since logwatch wrote it") ||
			!strings.Contains(stderr, "--force") {
			t.Fatalf("%s's refusal shows no diff or no way on:\n%s\n%s", verb, stdout, stderr)
		}
	}
	if f := piDoctor(t, env); f.Status != doctor.Fail || !strings.Contains(f.Summary, "changed since logwatch wrote it") || !strings.Contains(f.Fix, "--force") {
		t.Fatalf("doctor with an edited module: %+v", f)
	}

	stdout, stderr, code := cli(t, env, "hooks", "install", "--agent", "pi", "--force")
	backup := ext + ".logwatch-bak"
	if b, _ := os.ReadFile(ext); code != 0 || !bytes.Equal(b, installed) || !strings.Contains(stdout, "kept as "+backup) {
		t.Fatalf("install --force: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(backup); err != nil || !bytes.Equal(b, edited) {
		t.Fatalf("backup %s: %v", backup, err)
	}
	if err := os.WriteFile(ext, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = cli(t, env, "hooks", "uninstall", "--agent", "pi", "--force")
	if _, err := os.Stat(ext); code != 0 || !os.IsNotExist(err) || !strings.Contains(stdout, "kept as "+backup+".1") {
		t.Fatalf("uninstall --force: exit %d, %v\n%s\n%s", code, err, stdout, stderr)
	}
	if b, err := os.ReadFile(backup + ".1"); err != nil || !bytes.Equal(b, edited) {
		t.Fatalf("second backup: %v", err)
	}
	if b, _ := os.ReadFile(backup); !bytes.Equal(b, edited) {
		t.Fatal("the first backup was overwritten")
	}
}

// TestHooksModuleSymlink: a module path that is a link into a dotfiles
// repository is followed: install rewrites the target, the link stays;
// uninstall removes both. A dangling link, or one to a directory, is
// refused and left as it is.
func TestHooksModuleSymlink(t *testing.T) {
	home, dots := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "LOGWATCH_SOCKET=/nonexistent/lw.sock"}
	dir := filepath.Join(home, ".pi", "agent", "extensions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ext, target := filepath.Join(dir, "logwatch.ts"), filepath.Join(dots, "logwatch.ts")
	older, err := os.ReadFile("../../parsers/hookmodule/testdata/legacy/4cc041c-pi.ts")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, older, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, ext); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := cli(t, env, "hooks", "install", "--agent", "pi")
	if code != 0 {
		t.Fatalf("install through a link: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if fi, err := os.Lstat(ext); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	b, err := os.ReadFile(target)
	if fi, _ := os.Stat(target); err != nil || !bytes.HasPrefix(b, []byte("// logwatch: pi extension")) || bytes.Equal(b, older) || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the target was not rewritten in place: %v\n%.200s", err, b)
	}
	if _, _, code = cli(t, env, "hooks", "install", "--agent", "pi"); code != 0 {
		t.Fatalf("second install: exit %d", code)
	}
	if stdout, stderr, code = cli(t, env, "hooks", "uninstall", "--agent", "pi"); code != 0 {
		t.Fatalf("uninstall through a link: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, p := range []string{ext, target} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Fatalf("uninstall left %s: %v", p, err)
		}
	}

	for name, to := range map[string]string{"dangling": filepath.Join(dots, "gone.ts"), "to a directory": dots} {
		if err := os.Symlink(to, ext); err != nil {
			t.Fatal(err)
		}
		for _, verb := range []string{"install", "uninstall"} {
			_, stderr, code := cli(t, env, "hooks", verb, "--agent", "pi")
			if got, err := os.Readlink(ext); code == 0 || err != nil || got != to || !strings.Contains(stderr, "is a symlink to "+to) {
				t.Fatalf("%s link, %s: exit %d, link %q %v\n%s", name, verb, code, got, err, stderr)
			}
		}
		if err := os.Remove(ext); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHooksModuleProjectScope: --scope project writes the project's
// .pi/extensions/logwatch.ts and nothing in the user's directory.
func TestHooksModuleProjectScope(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	for _, verb := range []string{"install", "uninstall"} {
		cmd := exec.Command(bin, "hooks", verb, "--agent", "pi", "--scope", "project")
		cmd.Dir, cmd.Env = proj, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", verb, err, out)
		}
		_, statErr := os.Stat(filepath.Join(proj, ".pi", "extensions", "logwatch.ts"))
		if (verb == "install") != (statErr == nil) {
			t.Fatalf("after %s: %v\n%s", verb, statErr, out)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".pi")); !os.IsNotExist(err) {
		t.Fatalf("--scope project wrote under HOME: %v", err)
	}
}

// piDoctor is doctor's pi hooks finding (pi's home exists: the extension
// directory is in it).
func piDoctor(t *testing.T, env []string) doctor.Finding {
	t.Helper()
	return agentDoctor(t, env, "pi hooks")
}

// agentDoctor is doctor's finding named name.
func agentDoctor(t *testing.T, env []string, name string) doctor.Finding {
	t.Helper()
	stdout, stderr, _ := cli(t, env, "doctor", "--json")
	var rep struct {
		Checks []doctor.Finding `json:"checks"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, stdout, stderr)
	}
	return findingOf(rep.Checks, name)
}

// TestVerifyPiCaptures: verify reads the real pi's files through the seam
// (parsers/pi, registered in parsers/all) and every hand-written
// expectation beside them holds, with the retry settings they ran with.
func TestVerifyPiCaptures(t *testing.T) {
	settings, err := filepath.Abs(filepath.Join("..", "..", "parsers", "pi", "testdata", "settings"))
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := cli(t, []string{"PI_CODING_AGENT_DIR=" + settings}, "verify", filepath.Join("..", "..", "parsers", "pi", "testdata", "captures"))
	if code != 0 || !strings.Contains(stdout, "(pi=8)") || strings.Contains(stdout, "MISMATCH") {
		t.Fatalf("verify: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestVerifyOmpCaptures: verify reads the real omp's files through the seam
// (parsers/omp, registered in parsers/all: told from pi's by the title
// record) and every hand-written expectation beside them holds.
func TestVerifyOmpCaptures(t *testing.T) {
	stdout, stderr, code := cli(t, nil, "verify", filepath.Join("..", "..", "parsers", "omp", "testdata", "captures"))
	if code != 0 || !strings.Contains(stdout, "(omp=8)") || strings.Contains(stdout, "MISMATCH") {
		t.Fatalf("verify: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestHooksModuleOmp: `logwatch hooks install --agent omp` writes omp's own
// extension into ~/.omp/agent/extensions (pi's install kind, omp's
// events), doctor checks it through the seam, uninstall removes it, and
// pi's extension is neither written nor taken for it.
func TestHooksModuleOmp(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "LOGWATCH_SOCKET=/nonexistent/lw.sock"}
	ext := filepath.Join(home, ".omp", "agent", "extensions", "logwatch.ts")
	stdout, stderr, code := cli(t, env, "hooks", "install", "--agent", "omp")
	if code != 0 || !strings.Contains(stdout, "installed logwatch's extension") || !strings.Contains(stdout, "restart omp") {
		t.Fatalf("install: exit %d\n%s\n%s", code, stdout, stderr)
	}
	installed, err := os.ReadFile(ext)
	if err != nil || !bytes.HasPrefix(installed, []byte("// logwatch: omp extension")) || !bytes.Contains(installed, []byte(`const AGENT = "omp";`)) ||
		!bytes.Contains(installed, []byte(`"tool_approval_requested"`)) {
		t.Fatalf("installed extension (%v):\n%.400s", err, installed)
	}
	if _, err := os.Stat(filepath.Join(home, ".pi")); !os.IsNotExist(err) {
		t.Fatalf("omp's install wrote under ~/.pi: %v", err)
	}
	if f := agentDoctor(t, env, "omp hooks"); f.Status != doctor.OK || !strings.Contains(f.Summary, "installed and current") {
		t.Fatalf("doctor after install: %+v", f)
	}
	if _, _, code = cli(t, env, "hooks", "uninstall", "--agent", "pi"); code != 0 {
		t.Fatalf("pi's uninstall: exit %d", code)
	}
	if _, err := os.Stat(ext); err != nil {
		t.Fatalf("pi's uninstall touched omp's extension: %v", err)
	}
	stdout, _, code = cli(t, env, "hooks", "uninstall", "--agent", "omp")
	if _, err := os.Stat(ext); code != 0 || !os.IsNotExist(err) || !strings.Contains(stdout, "removed logwatch's extension") {
		t.Fatalf("uninstall: exit %d, %v\n%s", code, err, stdout)
	}
	// No omp binary, no omp logs: the folder install made and uninstall
	// left is no agent to install hooks for.
	if f := agentDoctor(t, env, "omp hooks"); f.Status != doctor.Skip {
		t.Fatalf("doctor after uninstall: %+v", f)
	}
}
