package opencode

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/logwatch/logwatch/parsers"
)

// How OpenCode 1.18.33 runs with no network against a local fake
// OpenAI-compatible server (formats/opencode.md §1, re-measured in
// docs/opencode.md). It runs no server of its own that outlives the TUI
// (§2: no other process, no listening socket), so nothing is left to Stop.

// Offline is how OpenCode runs against the fake chat-completions server.
func Offline() *parsers.Offline {
	return &parsers.Offline{
		Model: parsers.ModelOpenAIChat,
		Setup: OfflineSetup,
		Start: offlineStart,
		// Esc twice within 5 s: the first only shows the hint.
		Interrupt:      "Escape",
		InterruptAgain: "esc again",
		// bash asks for anything but echo and sleep (OfflineConfig).
		Permission: "Permission required",
		Approve:    "Enter", // Allow once
		Quit:       "/exit",
	}
}

// offlineReady is the TUI's footer once it takes keys: keys typed before
// are lost.
const offlineReady = "ctrl+p commands"

func offlineStart(t parsers.Terminal, _ bool, timeout time.Duration) error {
	return parsers.WaitScreen(t, "opencode", offlineReady, timeout)
}

// Where Setup puts OpenCode's directories under the private home: the
// scenario driver's XDG layout (selftest/driver), so that a hook install
// run in the same environment finds the same config dir.
var offlineDirs = map[string]string{
	"XDG_CONFIG_HOME": ".config",
	"XDG_DATA_HOME":   filepath.Join(".local", "share"),
	"XDG_STATE_HOME":  ".state",
	"XDG_CACHE_HOME":  ".cache",
}

// The fake model: its id under the provider "fake" (its name,
// "Fake Model", is on the TUI's prompt line once OpenCode is ready).
const (
	OfflineProvider = "fake"
	OfflineModel    = "fake-model"
)

// OfflineConfig is OpenCode's opencode.json for the fake server at url (its
// base URL, …/v1): a custom provider through @ai-sdk/openai-compatible
// (bundled in the binary, so nothing is downloaded), as the model and the
// small model (titles), no autoupdate, no sharing, and bash asking before
// it runs anything but echo and sleep.
func OfflineConfig(url string) []byte {
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{
			OfflineProvider: map[string]any{
				"npm":     "@ai-sdk/openai-compatible",
				"name":    "Fake",
				"options": map[string]any{"baseURL": url, "apiKey": "sk-fake"},
				"models": map[string]any{
					OfflineModel: map[string]any{"name": "Fake Model", "tool_call": true,
						"limit": map[string]any{"context": 200000, "output": 8192}},
				},
			},
		},
		"model":       OfflineProvider + "/" + OfflineModel,
		"small_model": OfflineProvider + "/" + OfflineModel,
		"autoupdate":  false,
		"share":       "disabled",
		// A compound command needs every part allowed (formats §1.1).
		"permission": map[string]any{"bash": map[string]any{"*": "ask", "echo *": "allow", "sleep *": "allow"}},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return append(b, '\n')
}

// offlineLock is the package-lock.json that makes OpenCode skip its
// start-up npm install of @opencode-ai/plugin in a config dir: it skips it
// when node_modules/ exists and the lock's root package names every
// dependency (versions are not compared). Offline the install would fail
// only after about 70 s.
const offlineLock = `{"packages":{"":{"dependencies":{"@opencode-ai/plugin":"*"}}}}` + "\n"

// OfflineSetup writes OpenCode's configuration for the fake server into the
// private home o.Home (its config dir, with the stub that skips the npm
// install), makes the work dir o.Work a git repository (OpenCode keys its
// project by the repository; a dir without one was not measured) and
// returns the environment OpenCode runs with: private XDG dirs, no
// models.dev catalogue fetch, no autoupdate.
func OfflineSetup(o parsers.OfflineHome) ([]string, error) {
	env := []string{"HOME=" + o.Home, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1"}
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"} {
		env = append(env, k+"="+filepath.Join(o.Home, offlineDirs[k]))
	}
	dir := OfflineConfigDir(o.Home)
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		return nil, fmt.Errorf("opencode offline: %w", err)
	}
	for name, b := range map[string][]byte{"opencode.json": OfflineConfig(o.URL), "package-lock.json": []byte(offlineLock)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return nil, fmt.Errorf("opencode offline: %w", err)
		}
	}
	if o.Work != "" {
		if out, err := exec.Command("git", "init", "-q", o.Work).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("opencode offline: git init %s: %w: %s", o.Work, err, out)
		}
	}
	return env, nil
}

// OfflineConfigDir is OpenCode's config dir under a home OfflineSetup wrote.
func OfflineConfigDir(home string) string {
	return filepath.Join(home, offlineDirs["XDG_CONFIG_HOME"], "opencode")
}

// OfflineDataDir is OpenCode's data dir (its database) under that home.
func OfflineDataDir(home string) string {
	return filepath.Join(home, offlineDirs["XDG_DATA_HOME"], "opencode")
}
