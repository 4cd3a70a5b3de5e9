package pi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/logwatch/logwatch/parsers"
)

// TestOfflineSetup: pi's models.json names the fake at the URL given as
// the provider "fake", settings.json makes its model the default, and pi
// runs offline.
func TestOfflineSetup(t *testing.T) {
	home := t.TempDir()
	env, err := Offline().Setup(parsers.OfflineHome{Home: home, URL: "http://127.0.0.1:9/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(env, "PI_OFFLINE=1") {
		t.Errorf("env %q", env)
	}
	var models struct {
		Providers map[string]struct {
			BaseURL, API string
			Models       []struct{ ID string }
		}
	}
	var settings struct{ DefaultProvider, DefaultModel string }
	for name, v := range map[string]any{"models.json": &models, "settings.json": &settings} {
		b, err := os.ReadFile(filepath.Join(home, ".pi", "agent", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
	}
	f := models.Providers["fake"]
	if f.BaseURL != "http://127.0.0.1:9/v1" || f.API != "openai-completions" || len(f.Models) != 1 || f.Models[0].ID != OfflineModel ||
		settings.DefaultProvider != "fake" || settings.DefaultModel != OfflineModel {
		t.Errorf("models %+v, settings %+v", models, settings)
	}
}
