package omp

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/logwatch/logwatch/parsers"
)

// How omp 18.2.3 runs offline (formats/pi.md §5): its models.yml naming the
// fake chat-completions server as the provider "fake", and config.yml
// making it the default model with the setup wizard and the update check
// off. `--approval-mode always-ask` makes it ask before a tool runs.

// offlineReady is on omp's status line once it is ready: the model's name.
const offlineReady = "Fake Model"

// Offline is how omp runs against the fake chat-completions server. omp is
// a bun script: bun must be on the PATH (its pinned install, in
// conformance/agents, installs bun beside it).
func Offline() *parsers.Offline {
	return &parsers.Offline{
		Model:      parsers.ModelOpenAIChat,
		Setup:      offlineSetup,
		Args:       []string{"--approval-mode", "always-ask"},
		Start:      offlineStart,
		Interrupt:  "Escape",
		Permission: "Allow tool",
		Approve:    "Enter", // Approve (the first of Approve / Deny)
		Quit:       "/quit",
	}
}

// offlineSetup writes ~/.omp/agent/models.yml and config.yml. Compaction
// keeps 10 tokens: the live suite's /compact has something to do.
func offlineSetup(o parsers.OfflineHome) ([]string, error) {
	dir := filepath.Join(o.Home, ".omp", "agent")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("omp offline: %w", err)
	}
	models := fmt.Sprintf(`providers:
  fake:
    baseUrl: %q
    api: openai-completions
    apiKey: fake-key
    compat:
      supportsDeveloperRole: false
      supportsReasoningEffort: false
    models:
      - id: fake-model
        name: %s
        contextWindow: 128000
        maxTokens: 4096
`, o.URL, offlineReady)
	const config = `modelRoles:
  default: fake/fake-model
startup:
  setupWizard: false
  checkUpdate: false
compaction:
  keepRecentTokens: 10
`
	for name, b := range map[string]string{"models.yml": models, "config.yml": config} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o600); err != nil {
			return nil, fmt.Errorf("omp offline: %w", err)
		}
	}
	return nil, nil
}

// offlineStart waits for the status line naming the model.
func offlineStart(t parsers.Terminal, _ bool, timeout time.Duration) error {
	return parsers.WaitScreen(t, "omp", offlineReady, timeout)
}
