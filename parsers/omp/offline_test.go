package omp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers"
)

// TestOfflineSetup: omp's models.yml names the fake at the URL given as the
// provider "fake" with the model its ready screen waits for, and config.yml
// makes it the default with the setup wizard and the update check off.
func TestOfflineSetup(t *testing.T) {
	home := t.TempDir()
	if _, err := Offline().Setup(parsers.OfflineHome{Home: home, URL: "http://127.0.0.1:9/v1"}); err != nil {
		t.Fatal(err)
	}
	for name, wants := range map[string][]string{
		"models.yml": {"  fake:\n", `baseUrl: "http://127.0.0.1:9/v1"`, "api: openai-completions", "- id: fake-model\n        name: " + offlineReady + "\n"},
		"config.yml": {"default: fake/fake-model", "setupWizard: false", "checkUpdate: false"},
	} {
		b, err := os.ReadFile(filepath.Join(home, ".omp", "agent", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wants {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s lacks %q:\n%s", name, w, b)
			}
		}
	}
}
