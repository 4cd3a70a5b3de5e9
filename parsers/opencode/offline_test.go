package opencode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/logwatch/logwatch/parsers"
)

func TestOfflineSetup(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env, err := OfflineSetup(parsers.OfflineHome{Home: home, Work: work, URL: "http://127.0.0.1:9/v1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range []string{"HOME=" + home, "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share")} {
		if !slices.Contains(env, kv) {
			t.Errorf("env %q lacks %s", env, kv)
		}
	}
	dir := OfflineConfigDir(home)
	var cfg struct {
		Provider map[string]struct {
			NPM     string `json:"npm"`
			Options struct {
				BaseURL string `json:"baseURL"`
			} `json:"options"`
			Models map[string]json.RawMessage `json:"models"`
		} `json:"provider"`
		Model, SmallModel string
		Autoupdate        *bool `json:"autoupdate"`
		Share             string
		Permission        map[string]map[string]string `json:"permission"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "opencode.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	p := cfg.Provider[OfflineProvider]
	if p.NPM != "@ai-sdk/openai-compatible" || p.Options.BaseURL != "http://127.0.0.1:9/v1" || p.Models[OfflineModel] == nil ||
		cfg.Model != "fake/fake-model" || cfg.Autoupdate == nil || *cfg.Autoupdate || cfg.Share != "disabled" ||
		cfg.Permission["bash"]["*"] != "ask" || cfg.Permission["bash"]["echo *"] != "allow" {
		t.Errorf("opencode.json:\n%s", b)
	}
	var lock struct {
		Packages map[string]struct {
			Dependencies map[string]string `json:"dependencies"`
		} `json:"packages"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil || json.Unmarshal(b, &lock) != nil || lock.Packages[""].Dependencies["@opencode-ai/plugin"] == "" {
		t.Errorf("package-lock.json %s: %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil || !fi.IsDir() {
		t.Errorf("node_modules: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(work, ".git")); err != nil || !fi.IsDir() {
		t.Errorf("the work dir is no git repository: %v", err)
	}
	if OfflineDataDir(home) != filepath.Join(home, ".local", "share", "opencode") {
		t.Errorf("data dir %s", OfflineDataDir(home))
	}
}
