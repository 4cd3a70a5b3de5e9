package main

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

const readme = "../../README.md"

// quickstartCommands are the command lines of the README's quickstart (the
// sh blocks between <!-- quickstart --> and <!-- /quickstart -->), comments
// cut off.
func quickstartCommands(t *testing.T) []string { return readmeCommands(t, "quickstart") }

// readmeCommands are the command lines of the sh blocks in the README's
// <!-- name --> … <!-- /name --> region, comments cut off.
func readmeCommands(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- "+name+" -->")
	region, _, ok2 := strings.Cut(rest, "<!-- /"+name+" -->")
	if !ok || !ok2 {
		t.Fatalf("README has no <!-- %s --> … <!-- /%s --> region", name, name)
	}
	comment := regexp.MustCompile(`\s+#.*$`)
	var cmds []string
	in := false
	for _, line := range strings.Split(region, "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			in = true
		case strings.HasPrefix(line, "```"):
			in = false
		case in && strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "#"):
			cmds = append(cmds, strings.TrimSpace(comment.ReplaceAllString(line, "")))
		}
	}
	return cmds
}

// step is what one quickstart command must do.
type step struct {
	code   []int    // accepted exit codes (default 0)
	stream string   // a long-running command: ready once this appears on stdout, then Ctrl+C
	daemon bool     // the daemon: started in the background, ready once its socket answers
	stdout []string // what the output must hold
}

// TestREADMEQuickstart runs every command of the README's quickstart, as
// written, in a shell from the checkout's root, on a temporary home with one
// Claude session in it: go install puts the real binary on PATH, the daemon
// runs, the others talk to it. A command added to the quickstart without a
// check here, or a check whose command left the README, fails the test.
func TestREADMEQuickstart(t *testing.T) {
	steps := map[string]step{
		"go install ./cmd/logwatch":       {},
		"logwatch version":                {stdout: []string{"logwatch version ", "revision", "agents the conformance suite last passed with: claude "}},
		"logwatch run":                    {daemon: true},
		"logwatch status":                 {stdout: []string{"STATE", "working", "claude", "5f0c2a7e", "hooks 0 received"}},
		"logwatch events":                 {stream: "(snapshot)", stdout: []string{"working", "5f0c2a7e", "claude", "prompt"}},
		"logwatch status --watch":         {stream: "5f0c2a7e", stdout: []string{"working", "claude", "/home/me/app"}},
		"logwatch verify testdata/verify": {stdout: []string{"16 files", "every expectation held"}},
		"logwatch doctor":                 {code: []int{1}, stdout: []string{"[ok]   daemon", "claude hooks", "fix"}}, // hooks not installed yet, as the README says
	}
	cmds := quickstartCommands(t)
	for _, c := range cmds {
		if _, ok := steps[c]; !ok {
			t.Errorf("the README's quickstart runs %q, which this test does not check", c)
		}
	}
	for c := range steps {
		if !slices.Contains(cmds, c) {
			t.Errorf("the README's quickstart no longer runs %q", c)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	root, home, _, gobin, runtimeDir, env := newcomer(t)
	// A machine where Claude Code ran once: a session in progress.
	project := filepath.Join(home, ".claude", "projects", "-home-me-app")
	mkdirs(t, project)
	write(t, filepath.Join(project, "5f0c2a7e-1d3b-4c5a-9e8f-7a6b5c4d3e2f.jsonl"),
		`{"type":"user","sessionId":"5f0c2a7e-1d3b-4c5a-9e8f-7a6b5c4d3e2f","cwd":"/home/me/app","version":"2.1.328","timestamp":"`+
			time.Now().UTC().Format(time.RFC3339)+`","message":{"role":"user","content":"add a test"}}`+"\n")
	socket := filepath.Join(runtimeDir, "logwatch", "logwatch.sock")

	for _, c := range cmds {
		s := steps[c]
		t.Logf("$ %s", c)
		cmd := exec.Command("sh", "-c", "exec "+c)
		cmd.Dir, cmd.Env = root, env
		var stdout, stderr bytes.Buffer
		cmd.Stderr = &stderr
		switch {
		case s.daemon:
			cmd.Stdout = &stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Signal(syscall.SIGINT); cmd.Wait() })
			waitFor(t, c, func() bool {
				conn, err := net.Dial("unix", socket)
				if err == nil {
					conn.Close()
				}
				return err == nil
			})
			continue
		case s.stream != "":
			pipe, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			found := make(chan struct{})
			go func() {
				sc := bufio.NewScanner(pipe)
				seen := false
				for sc.Scan() {
					stdout.WriteString(sc.Text() + "\n")
					if !seen && strings.Contains(sc.Text(), s.stream) {
						seen = true
						close(found)
					}
				}
			}()
			select {
			case <-found:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("%s: no %q within 20s; stdout:\n%s\nstderr:\n%s", c, s.stream, stdout.String(), stderr.String())
			}
			cmd.Process.Signal(syscall.SIGINT) // the README's Ctrl+C
			err = cmd.Wait()
			if err != nil {
				t.Errorf("%s: after Ctrl+C: %v\nstderr:\n%s", c, err, stderr.String())
			}
		default:
			cmd.Stdout = &stdout
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("%s: %v", c, err)
			}
			want := s.code
			if want == nil {
				want = []int{0}
			}
			if !slices.Contains(want, code) {
				t.Errorf("%s: exit %d, want %v\nstdout:\n%s\nstderr:\n%s", c, code, want, stdout.String(), stderr.String())
			}
		}
		t.Logf("%s", stdout.String()) // what a newcomer sees, with -v
		for _, want := range s.stdout {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%s: stdout lacks %q:\n%s\nstderr:\n%s", c, want, stdout.String(), stderr.String())
			}
		}
		if c == "go install ./cmd/logwatch" {
			if _, err := os.Stat(filepath.Join(gobin, "logwatch")); err != nil {
				t.Fatalf("go install put no logwatch in GOBIN: %v\n%s", err, stderr.String())
			}
		}
	}
}

// newcomer is a fresh machine for a newcomer's first steps: a temporary
// home, runtime dir and GOBIN (first on PATH), the user's Go setup
// (caches, proxy, flags), and the checkout's root to run from.
func newcomer(t *testing.T) (root, home, tmp, gobin, runtimeDir string, env []string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp, err = os.MkdirTemp("", "lwqs") // short: unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	home, gobin, runtimeDir = filepath.Join(tmp, "home"), filepath.Join(tmp, "bin"), filepath.Join(tmp, "run")
	for _, d := range []string{home, gobin, runtimeDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env = []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + runtimeDir, "GOBIN=" + gobin,
		"PATH=" + gobin + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "GONOSUMDB", "GOPRIVATE"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, k+"="+strings.TrimSpace(string(out)))
	}
	return root, home, tmp, gobin, runtimeDir, env
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not ready within 20s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestREADMEFacts keeps what the README states about the repository true:
// the Go version is go.mod's, and every fuzz target is listed.
func TestREADMEFacts(t *testing.T) {
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(string(mod))
	if goLine == nil {
		t.Fatal("go.mod has no go line")
	}
	if !strings.Contains(doc, "Go "+goLine[1]+" or newer") {
		t.Errorf("README does not say \"Go %s or newer\" (go.mod's go line)", goLine[1])
	}
	var fuzz []string
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	err = filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
				fuzz = append(fuzz, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(fuzz) < 6 {
		t.Fatalf("found only %v", fuzz)
	}
	_, dev, _ := strings.Cut(doc, "## Development")
	for _, f := range fuzz {
		if !regexp.MustCompile(`\b` + f + `\b`).MatchString(dev) {
			t.Errorf("README's Development section does not list the fuzz target %s", f)
		}
	}
}

// TestDocsStayInside: the README and docs/ stand alone. Every Markdown link
// resolves to a file of the repository, none leaves it (no web address, no
// path above the checkout), and no page sends the reader to the project
// workspace's contract (`../shared/…`), which a clone does not have.
func TestDocsStayInside(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, readme)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "shared/SPEC") || strings.Contains(string(b), "SPEC §") {
			t.Errorf("%s sends the reader to the workspace's SPEC, which a clone lacks", p)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" {
				continue // an anchor on the same page
			}
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				t.Errorf("%s links outside the repository: %s", p, m[1])
				continue
			}
			abs, err := filepath.Abs(filepath.Join(filepath.Dir(p), target))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(abs, root+string(filepath.Separator)) {
				t.Errorf("%s links above the checkout: %s", p, m[1])
				continue
			}
			if _, err := os.Stat(abs); err != nil {
				t.Errorf("%s links to a file that is not there: %s", p, m[1])
			}
		}
	}
}
