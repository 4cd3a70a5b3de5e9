package selftest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/internal/proctree"
)

// TestClaimReclaimsGoneOwner: a try's root left by a try that is gone is
// removed and made again, saying whose it was (a process that exited, or a
// pid now reused by another process); what outlived it is stopped first;
// a symlink inside it is removed, never followed. A root whose owner runs,
// one naming no owner and a symlink in the root's place are refused and
// left as they are.
func TestClaimReclaimsGoneOwner(t *testing.T) {
	exited := exec.Command("sleep", "60")
	if err := exited.Start(); err != nil {
		t.Fatal(err)
	}
	exitedStart, err := proctree.StartTime(exited.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	exited.Process.Kill()
	exited.Wait()
	me := os.Getpid()
	myStart, err := proctree.StartTime(me)
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	keep := filepath.Join(outside, "keep")
	if err := os.WriteFile(keep, []byte("the person's"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, c := range []struct {
		name  string
		owner string // the owner file's content; "-": none
		want  string // the error; "": reclaimed
		pid   int
	}{
		{"exited", fmt.Sprintf("%d %d\n", exited.Process.Pid, exitedStart), "", exited.Process.Pid},
		{"pid reused", fmt.Sprintf("%d %d\n", me, myStart+1), "", me},
		{"agent outlived it, now gone", fmt.Sprintf("%d %d\n%d %d\n", exited.Process.Pid, exitedStart, me, myStart+7), "", exited.Process.Pid},
		{"owner runs", fmt.Sprintf("%d %d\n", me, myStart), fmt.Sprintf("in use: another try of pi runs (pid %d)", me), 0},
		{"its agent runs", fmt.Sprintf("%d %d\n%d %d\n", exited.Process.Pid, exitedStart, me, myStart), fmt.Sprintf("(pid %d)", me), 0},
		{"no owner", "-", "names no owner", 0},
		{"bad owner", "x y\n", "names no owner", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(root, strings.ReplaceAll(c.name, " ", "-"))
			home := filepath.Join(dir, "home")
			if err := os.MkdirAll(home, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(home, "link")); err != nil {
				t.Fatal(err)
			}
			if c.owner != "-" {
				if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(c.owner), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var stopped []string
			pid, err := claim(dir, "pi", func(h string) { stopped = append(stopped, h) })
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
					t.Fatalf("claim: %v, want %q naming %s", err, c.want, dir)
				}
				if _, err := os.Lstat(filepath.Join(home, "link")); err != nil || stopped != nil {
					t.Fatalf("a refused root was touched: %v, stopped %v", err, stopped)
				}
				return
			}
			if err != nil || pid != c.pid {
				t.Fatalf("claim: pid %d, %v; want %d", pid, err, c.pid)
			}
			if fmt.Sprint(stopped) != fmt.Sprint([]string{home}) {
				t.Errorf("stopped %v, want the old home", stopped)
			}
			if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
				t.Errorf("the root is not made afresh: %v %v", ents, err)
			}
		})
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "the person's" {
		t.Fatalf("a file outside the try folder went: %q %v", b, err)
	}
	// A symlink where the root should be is neither followed nor removed.
	link := filepath.Join(root, "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if _, err := claim(link, "pi", nil); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("claim of a symlink: %v", err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatal(err)
	}
	// A fresh root is made, nothing to reclaim.
	if pid, err := claim(filepath.Join(root, "fresh"), "pi", nil); err != nil || pid != 0 {
		t.Fatalf("fresh: %d %v", pid, err)
	}
}
