package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestNotifyInstallAndTest: install adds each kind of sink to the file
// (dry-run changes nothing), config shows them with the topic masked, test
// sends a test alert through each and says which failed.
func TestNotifyInstallAndTest(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte("# mine\nturn_quiet: 2s\n"), 0o600)
	env := []string{"LOGWATCH_CONFIG=" + cfg, "LW_NTFY_TOKEN=tk_secret"}
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization")+" "+r.Header.Get("Priority")+" "+string(b))
		mu.Unlock()
	}))
	defer srv.Close()
	out, stderr, code := cli(t, env, "notify", "install", "--ntfy", srv.URL+"/secret-topic", "--token-env", "LW_NTFY_TOKEN", "--dry-run")
	if code != 0 || !strings.Contains(out, "would add webhook (ntfy) http://127.0.0.1") || strings.Contains(out, "secret-topic") {
		t.Fatalf("dry run: %d %q %q", code, out, stderr)
	}
	if b, _ := os.ReadFile(cfg); strings.Contains(string(b), "notify") {
		t.Fatalf("dry run changed the file:\n%s", b)
	}
	mark := filepath.Join(dir, "ran")
	for _, args := range [][]string{
		{"--ntfy", srv.URL + "/secret-topic", "--token-env", "LW_NTFY_TOKEN"},
		{"--command", "sh", "--command", "-c", "--command", "cat > " + mark},
		{"--command", "/nonexistent/lw-bell"},
	} {
		if out, stderr, code := cli(t, env, append([]string{"notify", "install"}, args...)...); code != 0 || !strings.Contains(out, "added to") {
			t.Fatalf("install %v: %d %q %q", args, code, out, stderr)
		}
	}
	if _, stderr, code := cli(t, env, "notify", "install", "--desktop", "--command", "x"); code != 2 || !strings.Contains(stderr, "name one sink") {
		t.Fatalf("two sinks at once: %d %q", code, stderr)
	}
	b, _ := os.ReadFile(cfg)
	if !strings.Contains(string(b), "# mine") || !strings.Contains(string(b), "turn_quiet: 2s") {
		t.Fatalf("the file lost its own lines:\n%s", b)
	}
	out, _, _ = cli(t, env, "config")
	if !strings.Contains(out, "notify.sinks") || strings.Contains(out, "secret-topic") || strings.Contains(out, "tk_secret") {
		t.Fatalf("config shows:\n%s", out)
	}
	out, stderr, code = cli(t, env, "notify", "test")
	if code != 1 {
		t.Fatalf("test with a broken sink: exit %d\n%s%s", code, out, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], ": sent") || !strings.HasSuffix(lines[1], ": sent") ||
		!strings.Contains(lines[2], "lw-bell") || strings.Contains(out, "secret-topic") {
		t.Fatalf("notify test:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || !strings.HasPrefix(got[0], "POST /secret-topic Bearer tk_secret high ") {
		t.Fatalf("the ntfy server got %q", got)
	}
	if b, err := os.ReadFile(mark); err != nil || !strings.Contains(string(b), `"session":"logwatch-test"`) {
		t.Fatalf("the command got %q (%v)", b, err)
	}
}
