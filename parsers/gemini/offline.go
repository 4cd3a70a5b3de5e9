package gemini

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/logwatch/logwatch/parsers"
)

// Offline is how Gemini CLI runs against the fake Gemini API
// (formats/gemini.md §1.2): an API key, the base URL, and settings that
// skip every first-run dialog.
func Offline() *parsers.Offline {
	return &parsers.Offline{
		Model:      parsers.ModelGemini,
		Setup:      offlineSetup,
		Start:      offlineStart,
		Interrupt:  "Escape",
		Permission: "Allow execution of",
		Approve:    "Enter", // 1. Allow once
		Quit:       "/quit",
	}
}

// OfflineReady is on the screen once the input box takes a prompt.
const OfflineReady = "Type your message"

// OfflineSettings are ~/.gemini/settings.json for an offline run: API-key
// auth (no login), no trust, update or telemetry dialogs, the model the
// fake answers as.
func OfflineSettings() map[string]any {
	return map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"},
			"folderTrust": map[string]any{"enabled": false}},
		"general": map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"privacy": map[string]any{"usageStatisticsEnabled": false},
		"model":   map[string]any{"name": "gemini-2.5-flash"},
		"ui":      map[string]any{"hideBanner": true, "hideTips": true},
	}
}

func offlineSetup(o parsers.OfflineHome) ([]string, error) {
	dir := filepath.Join(o.Home, ".gemini")
	tmp := filepath.Join(o.Home, "gemini-tmp")
	for _, d := range []string{dir, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("gemini offline: %w", err)
		}
	}
	b, err := json.MarshalIndent(OfflineSettings(), "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), b, 0o600); err != nil {
		return nil, fmt.Errorf("gemini offline: %w", err)
	}
	return []string{
		"GEMINI_API_KEY=conformance",
		"GOOGLE_GEMINI_BASE_URL=" + o.URL, // no path: the CLI adds /v1beta
		"TMPDIR=" + tmp,
	}, nil
}

// offlineStart waits for the input box: with the settings above Gemini CLI
// asks nothing at start, hooks included.
func offlineStart(t parsers.Terminal, _ bool, timeout time.Duration) error {
	return parsers.WaitScreen(t, Name, OfflineReady, timeout)
}
