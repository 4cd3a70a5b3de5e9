package copilot

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/parsers"
)

// Offline is how Copilot CLI runs against the fake chat-completions
// server: its BYOK mode, which needs no GitHub login (formats/copilot.md
// §1.2).
func Offline() *parsers.Offline {
	return &parsers.Offline{
		Model: parsers.ModelOpenAIChat,
		Setup: offlineSetup,
		Start: offlineStart,
		// Esc does not stop a streaming answer (§2.4): Ctrl+C does.
		Interrupt: "C-c",
		// The answer is drawn whole once it has streamed (§4): the status
		// line says it is on its way.
		Streaming:  "Working",
		Permission: "Do you want to run this command?",
		Approve:    "Enter", // 1. Yes
		Quit:       "/exit",
	}
}

// OfflineModel is the model Copilot is told to use: BYOK needs one named.
const OfflineModel = "fake-model"

// PkgCache is where Copilot extracts its 235 MB payload on a first run
// (COPILOT_PKG_CACHE_HOME; it unpacks under its pkg/): the user's own
// Copilot cache, which every private home shares, so that the payload a
// user's Copilot (or the pinned install's --version) unpacked is used as
// it is, not unpacked again (5-6 s and 235 MB) in each run's home.
func PkgCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = filepath.Join(agents.Dir(), "cache") // no HOME: beside the pinned agents
	}
	return filepath.Join(dir, "copilot")
}

// offlineReady is on the status line once the prompt takes input.
const offlineReady = "/ commands"

// offlineSetup trusts the work dir in ~/.copilot/config.json (the trust
// dialog is skipped only from there, §1.2) and points BYOK at the fake.
func offlineSetup(o parsers.OfflineHome) ([]string, error) {
	dir := filepath.Join(o.Home, ".copilot")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("copilot offline: %w", err)
	}
	b, err := json.Marshal(map[string]any{"trustedFolders": []string{o.Work}})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), append(b, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("copilot offline: %w", err)
	}
	return []string{
		"COPILOT_OFFLINE=1", // no login, update or managed-settings fetch
		"COPILOT_PROVIDER_BASE_URL=" + o.URL,
		"COPILOT_PROVIDER_API_KEY=fake-key",
		"COPILOT_MODEL=" + OfflineModel,
		"COPILOT_PKG_CACHE_HOME=" + PkgCache(),
	}, nil
}

// offlineStart waits for the idle prompt's status line; a trust dialog
// (a work dir the setup did not name) is answered for this session only.
func offlineStart(t parsers.Terminal, _ bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		screen := t.Screen()
		switch {
		case strings.Contains(screen, offlineReady):
			return nil
		case strings.Contains(screen, "Do you trust the files in this folder?"):
			t.Key("1")
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("copilot: %q never appeared on the screen within %s", offlineReady, timeout)
		}
		t.Wait(100 * time.Millisecond)
	}
}
