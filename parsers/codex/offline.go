package codex

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/logwatch/logwatch/parsers"
)

// How Codex runs offline (../shared/formats/real-agents.md): its own
// CODEX_HOME with a config.toml naming the fake Responses server as the
// model provider and the work dir as trusted, `-a on-request -s read-only`
// so an escalated exec_command asks for approval, and the hooks trusted at
// the "Hooks need review" screen as a person does it. The TUI starts a
// background server (`codex app-server --managed-daemon`) that outlives it;
// a private CODEX_HOME has its own, which Stop stops.

// OfflineModel is the model name the offline configuration sets: the
// status line names it once the TUI is connected to its server.
const OfflineModel = "fake-model"

// OfflineKeyEnv holds the fake provider's key.
const OfflineKeyEnv = "CONFORMANCE_OPENAI_KEY"

// Offline is how Codex runs against the fake Responses server.
func Offline() *parsers.Offline {
	return &parsers.Offline{
		Model:      parsers.ModelOpenAI,
		Setup:      offlineSetup,
		Args:       []string{"-a", "on-request", "-s", "read-only"},
		Start:      offlineStart,
		Interrupt:  "Escape",
		Permission: "Would you like to run the following command?",
		Approve:    "Enter", // 1. Yes, proceed
		Quit:       "/exit",
		Stop:       func(home string) { StopServer(filepath.Join(home, ".codex")) },
	}
}

// offlineSetup writes CODEX_HOME/config.toml.
func offlineSetup(o parsers.OfflineHome) ([]string, error) {
	dir := filepath.Join(o.Home, ".codex")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("codex offline: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(OfflineConfig(o.URL, o.Work)), 0o600); err != nil {
		return nil, fmt.Errorf("codex offline: %w", err)
	}
	return []string{"CODEX_HOME=" + dir, OfflineKeyEnv + "=sk-conformance-fake"}, nil
}

// OfflineConfig is config.toml for the fake provider at url, work trusted.
func OfflineConfig(url, work string) string {
	return fmt.Sprintf(`model = %q
model_provider = "fake"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[features]
enable_request_compression = false
in_app_updates = false

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
env_key = %q
request_max_retries = 0
stream_max_retries = 0

[projects.%q]
trust_level = "trusted"
`, OfflineModel, url, OfflineKeyEnv, work)
}

// offlineReady is on the status line once the TUI is connected to its
// server (before, the prompt says "loading").
const offlineReady = OfflineModel + " default"

// offlineStart trusts the hooks at their review screen when asked to, then
// waits until the prompt is connected to its server.
func offlineStart(t parsers.Terminal, trustHooks bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	wait := func(what string, ok func(string) bool) error {
		for !ok(t.Screen()) {
			if time.Now().After(deadline) {
				return fmt.Errorf("codex: %s within %s; the screen:\n%s", what, timeout, t.Screen())
			}
			t.Wait(100 * time.Millisecond)
		}
		return nil
	}
	if trustHooks {
		if err := wait(`"Hooks need review" never appeared`, func(s string) bool { return strings.Contains(s, "Hooks need review") }); err != nil {
			return err
		}
		if err := trustAll(t, deadline); err != nil {
			return err
		}
		if err := wait(`"Hooks need review" stayed`, func(s string) bool { return !strings.Contains(s, "Hooks need review") }); err != nil {
			return err
		}
	}
	return wait(fmt.Sprintf("%q never appeared", offlineReady), func(s string) bool { return strings.Contains(s, offlineReady) })
}

// trustAll picks "2. Trust all and continue" on the hooks review screen.
// A Down typed while the screen is still being drawn can be lost (Enter
// would then open "1. Review hooks"), so it moves the selection until the
// screen shows it on the second choice, then confirms.
func trustAll(t parsers.Terminal, deadline time.Time) error {
	for !strings.Contains(t.Screen(), "› 2. Trust all and continue") {
		if time.Now().After(deadline) {
			return fmt.Errorf("codex: the hooks review screen never selected \"Trust all and continue\":\n%s", t.Screen())
		}
		if strings.Contains(t.Screen(), "› 3. Continue without trusting") {
			t.Key("Up") // a late Down landed after all
		} else {
			t.Key("Down")
		}
		t.Wait(300 * time.Millisecond)
	}
	t.Key("Enter")
	return nil
}

// StopServer stops the background server of the Codex whose CODEX_HOME is
// home (the app server and its pid-update loop, each in its own session,
// named in home/app-server-daemon/*.pid), then any process still running
// from home's installed server package. Only processes whose command line
// names home are signalled.
func StopServer(home string) {
	dir := filepath.Join(home, "app-server-daemon")
	var pids []int
	for _, f := range []string{"daemon.pid", "daemon-updater.pid"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		var rec struct {
			PID int `json:"pid"`
		}
		// The file is a JSON record, possibly followed by other text.
		if err := json.NewDecoder(strings.NewReader(string(b))).Decode(&rec); err == nil && rec.PID > 0 {
			pids = append(pids, rec.PID)
		}
	}
	pids = append(pids, procsUnder(home)...)
	mine := func(pid int) bool {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		return err == nil && strings.Contains(string(b), home)
	}
	var live []int
	for _, pid := range pids {
		if mine(pid) && !slices.Contains(live, pid) {
			live = append(live, pid)
		}
	}
	for _, pid := range live {
		if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
			_ = syscall.Kill(-pid, syscall.SIGTERM)
		} else {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for _, pid := range live {
		for mine(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if mine(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// procsUnder lists processes whose command line names dir (the server runs
// from CODEX_HOME/packages/…).
func procsUnder(dir string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), dir) {
			out = append(out, pid)
		}
	}
	return out
}
