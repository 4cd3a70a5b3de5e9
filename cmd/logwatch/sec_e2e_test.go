package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EHTTPListener: a real daemon with the HTTP listener makes its
// secret (0600, next to the socket); `hooks install --http` writes Claude
// Code http hooks carrying it; the request Claude Code makes from that entry
// drives the session, a web page's request does not.
func TestE2EHTTPListener(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	e := startE2E(t, "LOGWATCH_HTTP="+addr)
	secretFile := filepath.Join(filepath.Dir(e.socket), "http-secret")
	fi, err := os.Stat(secretFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", fi, err)
	}
	b, _ := os.ReadFile(secretFile)
	secret := strings.TrimSpace(string(b))

	settings := filepath.Join(e.dir, "settings.json")
	cmd := []string{"hooks", "install", "--agent", "claude", "--http", "--file", settings}
	out, errOut, code := cli(t, e.env, cmd...)
	if code != 0 {
		t.Fatalf("hooks install --http: %d %s %s", code, out, errOut)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings holding the secret: mode %v", fi.Mode().Perm())
	}
	var file struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type           string            `json:"type"`
				URL            string            `json:"url"`
				Headers        map[string]string `json:"headers"`
				AllowedEnvVars []string          `json:"allowedEnvVars"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	raw, _ := os.ReadFile(settings)
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	h := file.Hooks["UserPromptSubmit"][0].Hooks[0]
	if h.Type != "http" || h.URL != "http://"+addr+"/hook?agent=claude" || h.Headers["X-Logwatch-Secret"] != secret ||
		h.Headers["X-Logwatch-Tab"] != "$LOGWATCH_TAB" || len(h.AllowedEnvVars) != 1 {
		t.Fatalf("installed http hook %+v", h)
	}

	// What Claude Code sends for that entry: a POST of the payload as JSON,
	// with the entry's headers ($LOGWATCH_TAB filled in).
	payload := hookJSON("UserPromptSubmit", "h1", "prompt", "fix it")
	req, _ := http.NewRequest("POST", h.URL, strings.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h.Headers {
		req.Header.Set(k, strings.ReplaceAll(v, "$LOGWATCH_TAB", "tab7"))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("agent's http hook: %d", resp.StatusCode)
	}
	if ev := e.want("h1", "working", "prompt", "hook"); ev["tab"] != "tab7" {
		t.Fatalf("tab %v", ev["tab"])
	}

	// transcript_path outside the roots is refused on HTTP as on the socket.
	req, _ = http.NewRequest("POST", h.URL, strings.NewReader(hookJSON("PreToolUse", "h1", "transcript_path", "/etc/shadow")))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Logwatch-Secret", secret)
	if resp, err = http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("hook naming /etc/shadow: %v %v", resp, err)
	}
	resp.Body.Close()
	if n := counter(e.status(), "transcripts_refused"); n != 1 {
		t.Fatalf("transcripts_refused over http: %v", n)
	}

	// A page's no-cors fetch of a Stop for the same session.
	stop := hookJSON("Stop", "h1")
	req, _ = http.NewRequest("POST", h.URL, strings.NewReader(stop))
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Sec-Fetch-Mode", "no-cors")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	st := e.status()
	if resp.StatusCode != 403 || counter(st, "http_refused") != 1 {
		t.Fatalf("page's request: %d, http_refused %v", resp.StatusCode, counter(st, "http_refused"))
	}
	for _, s := range st["sessions"].([]any) {
		if m := s.(map[string]any); m["session"] == "h1" && m["state"] != "working" {
			t.Fatalf("the page moved h1 to %v", m["state"])
		}
	}
}

// TestE2ETranscriptOutsideRoots: hooks name a shadow-like file and a JSONL
// file outside every root as their transcript_path; the real daemon opens
// neither (checked in /proc/PID/fd), makes no session of the JSONL, and
// counts both in status.
func TestE2ETranscriptOutsideRoots(t *testing.T) {
	e := startE2E(t)
	shadow := filepath.Join(e.dir, "etc", "shadow")
	stolen := filepath.Join(e.dir, "elsewhere", "stolen.jsonl")
	e.append(shadow, "root:$6$salt$hash:19000:0:99999:7:::")
	os.Chmod(shadow, 0o600)
	e.append(stolen, `{"type":"user","sessionId":"stolen","cwd":"/w/x","message":{"role":"user","content":"private"}}`)
	inside := filepath.Join(e.claude, "-w-app", "in.jsonl")

	e.hook("", "claude", hookJSON("UserPromptSubmit", "h1", "prompt", "x", "transcript_path", shadow))
	e.hook("", "claude", hookJSON("UserPromptSubmit", "h2", "prompt", "x", "transcript_path", stolen))
	e.hook("", "claude", hookJSON("UserPromptSubmit", "h3", "prompt", "x", "transcript_path", e.claude+"/../../../elsewhere/stolen.jsonl"))
	// Under the root: followed (the positive control), and a sync point.
	e.hook("", "claude", hookJSON("UserPromptSubmit", "in", "prompt", "x", "transcript_path", inside))
	e.want("in", "working", "prompt", "hook")
	e.append(inside, `{"type":"user","sessionId":"in","message":{"role":"user","content":"x"}}`,
		`{"type":"user","sessionId":"in","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`)
	e.want("in", "ready", "interrupted", "log")

	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", e.daemon.Process.Pid))
	for _, fd := range fds {
		target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", e.daemon.Process.Pid, fd.Name()))
		if target == shadow || target == stolen {
			t.Errorf("the daemon holds %s open", target)
		}
	}
	st := e.status()
	for _, s := range st["sessions"].([]any) {
		if s.(map[string]any)["session"] == "stolen" {
			t.Error("a JSONL outside the roots became a session")
		}
	}
	if n := counter(st, "transcripts_refused"); n != 3 {
		t.Fatalf("transcripts_refused %v, want 3", n)
	}
	if out, _, _ := cli(t, e.env, "status"); !strings.Contains(strings.Join(strings.Fields(out), " "), "3 transcript paths outside the log roots") {
		t.Errorf("status text does not show the refusals:\n%s", out)
	}
	t.Logf("transcripts_refused %v; %d fds open, none outside the roots", counter(st, "transcripts_refused"), len(fds))
}

// TestHooksInstallHTTPRefusals: --http without a listener configured, or
// for Codex (no http hooks), is a usage error that writes nothing.
func TestHooksInstallHTTPRefusals(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--agent", "claude"}, "--http needs the http listener configured"},
		{[]string{"LOGWATCH_HTTP=127.0.0.1:8765"}, []string{"--agent", "codex"}, "codex has no http hooks"},
	} {
		env := append([]string{"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run")}, tc.env...)
		_, stderr, code := cli(t, env, append([]string{"hooks", "install", "--http", "--file", file}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d %s", tc.args, code, stderr)
		}
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("%v wrote %s", tc.args, file)
		}
	}
}
