package copilot

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

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
		VersionEnv: pkgCache,
	}
}

// OfflineModel is the model Copilot is told to use: BYOK needs one named.
const OfflineModel = "fake-model"

// pkgCache is the environment that has Copilot read its 235 MB payload
// (COPILOT_PKG_CACHE_HOME) from the user's own Copilot cache, once the
// user's Copilot (or the pinned install's --version) unpacked it there:
// every private home shares it, instead of unpacking it again (1-6 s, 235
// MB) in each. A run with that release's payload there writes nothing to
// it (measured); with none there, a private home unpacks its own, so that
// selftest and try leave the user's home as they found it.
func pkgCache() []string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	dir = filepath.Join(dir, "copilot")
	if fi, err := os.Stat(filepath.Join(dir, "pkg")); err != nil || !fi.IsDir() {
		return nil
	}
	return []string{"COPILOT_PKG_CACHE_HOME=" + dir}
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
	return append([]string{
		"COPILOT_OFFLINE=1", // no login, update or managed-settings fetch
		"COPILOT_PROVIDER_BASE_URL=" + o.URL,
		"COPILOT_PROVIDER_API_KEY=fake-key",
		"COPILOT_MODEL=" + OfflineModel,
	}, pkgCache()...), nil
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
