package pi

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/logwatch/logwatch/parsers"
)

// How pi 0.73.1 runs offline (formats/pi.md): PI_OFFLINE=1 (no update
// check, no package fetch), its models.json naming the fake
// chat-completions server as the provider "fake", and settings.json making
// it the default model. It asks no permission (pi.md §2.11): there is no
// dialog to approve.

// OfflineModel is the fake model's id: pi's footer names it once pi is ready.
const OfflineModel = "fake-model"

// Offline is how pi runs against the fake chat-completions server.
func Offline() *parsers.Offline {
	return &parsers.Offline{
		Model:     parsers.ModelOpenAIChat,
		Setup:     offlineSetup,
		Start:     offlineStart,
		Interrupt: "Escape",
		Quit:      "/quit",
	}
}

// offlineSetup writes ~/.pi/agent/models.json and settings.json. The
// compaction and retry settings are the live suite's: a compaction keeps
// little (so /compact has something to do), and a failed request is
// retried once, soon.
func offlineSetup(o parsers.OfflineHome) ([]string, error) {
	dir := filepath.Join(o.Home, ".pi", "agent")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pi offline: %w", err)
	}
	models := fmt.Sprintf(`{ "providers": { "fake": {
    "baseUrl": %q, "api": "openai-completions", "apiKey": "fake-key",
    "compat": { "supportsDeveloperRole": false, "supportsReasoningEffort": false },
    "models": [ { "id": %q, "name": "Fake Model", "contextWindow": 128000, "maxTokens": 4096 } ] } } }
`, o.URL, OfflineModel)
	settings := fmt.Sprintf(`{ "defaultProvider": "fake", "defaultModel": %q,
  "compaction": { "enabled": true, "reserveTokens": 16384, "keepRecentTokens": 1000 },
  "retry": { "enabled": true, "maxRetries": 1, "baseDelayMs": 500, "provider": { "maxRetries": 0 } } }
`, OfflineModel)
	for name, b := range map[string]string{"models.json": models, "settings.json": settings} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o600); err != nil {
			return nil, fmt.Errorf("pi offline: %w", err)
		}
	}
	return []string{"PI_OFFLINE=1"}, nil
}

// offlineStart waits for the footer naming the model: pi asks nothing at
// start and loads logwatch's extension untrusted.
func offlineStart(t parsers.Terminal, _ bool, timeout time.Duration) error {
	return parsers.WaitScreen(t, "pi", OfflineModel, timeout)
}
