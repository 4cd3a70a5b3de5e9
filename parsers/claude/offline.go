package claude

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/logwatch/logwatch/parsers"
)

// OfflineKey is a syntactically valid API key; the fake server takes any.
const OfflineKey = "sk-ant-api03-conformance-0123456789abcdefghijklmnopqrstuv"

// Offline is how Claude Code runs against the fake Messages server.
func Offline() *parsers.Offline {
	return &parsers.Offline{
		Model:      parsers.ModelAnthropic,
		Setup:      offlineSetup,
		Args:       []string{"--permission-mode", "default"},
		Start:      offlineStart,
		Interrupt:  "Escape",
		Permission: "Do you want to proceed?",
		Approve:    "Enter", // 1. Yes
		Quit:       "/exit",
	}
}

// offlineReady is on the screen once the prompt takes input.
const offlineReady = "for shortcuts"

// offlineSetup writes ~/.claude.json with every first-run screen seen and
// the work dir trusted, and points the API at the fake.
func offlineSetup(o parsers.OfflineHome) ([]string, error) {
	seen := o.Version
	if seen == "" {
		seen = "2.1.328"
	}
	tmp := filepath.Join(o.Home, "claude-tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("claude offline: %w", err)
	}
	cfg := map[string]any{
		"hasCompletedOnboarding":   true,
		"lastOnboardingVersion":    seen,
		"lastReleaseNotesSeen":     seen,
		"theme":                    "dark",
		"numStartups":              5,
		"autoUpdates":              false,
		"hasSeenTasksHint":         true,
		"opusProMigrationComplete": true,
		"customApiKeyResponses": map[string]any{
			"approved": []string{OfflineKey[len(OfflineKey)-20:]}, "rejected": []string{}},
		"projects": map[string]any{o.Work: map[string]any{
			"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(o.Home, ".claude.json"), b, 0o600); err != nil {
		return nil, fmt.Errorf("claude offline: %w", err)
	}
	return []string{
		"ANTHROPIC_BASE_URL=" + o.URL,
		"ANTHROPIC_API_KEY=" + OfflineKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_TMPDIR=" + tmp,
	}, nil
}

// offlineStart waits for the prompt: Claude Code asks nothing at a start
// its configuration has seen, and runs its hooks untrusted.
func offlineStart(t parsers.Terminal, _ bool, timeout time.Duration) error {
	return parsers.WaitScreen(t, Name, offlineReady, timeout)
}
