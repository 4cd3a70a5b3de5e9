package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/relay"

	"github.com/logwatch/logwatch/internal/testsupport"
)

const scenarios = "../../../shared/realworld/irrlicht-scenarios"

// note is a per-scenario note in testdata/replay: the hook payload fields the
// peer did not record, and the phases where our SPEC deliberately differs
// from the peer, each with the reason.
type note struct {
	Hooks       HookOverride      `json:"hooks"`
	Differences map[string]string `json:"differences"`
}

func readNote(t *testing.T, agent, scenario string) note {
	var n note
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "replay", agent, scenario+".json"))
	if err == nil {
		if err := json.Unmarshal(b, &n); err != nil {
			t.Fatalf("note %s/%s: %v", agent, scenario, err)
		}
	}
	return n
}

// TestPeerCorpus replays every Claude Code and Codex scenario that has a
// recording and an expected.jsonl, and checks the phases. A failing phase
// must be a documented deliberate difference.
func TestPeerCorpus(t *testing.T) {
	testsupport.Realworld(t, scenarios)
	recs, _ := filepath.Glob(filepath.Join(scenarios, "*", "*", "recordings", "*"))
	sort.Strings(recs)
	if len(recs) < 20 {
		t.Fatalf("found only %d recordings", len(recs))
	}
	var table []string
	for _, rec := range recs {
		scenarioDir := filepath.Dir(filepath.Dir(rec))
		agent, scenario := filepath.Base(filepath.Dir(scenarioDir)), filepath.Base(scenarioDir)
		expectPath := filepath.Join(scenarioDir, "expected.jsonl")
		if _, err := os.Stat(expectPath); err != nil {
			continue
		}
		t.Run(agent+"/"+scenario, func(t *testing.T) {
			n := readNote(t, agent, scenario)
			peer, err := ReadPeer(rec, n.Hooks)
			if err != nil {
				t.Fatal(err)
			}
			ex, err := ReadExpectation(expectPath)
			if err != nil {
				t.Fatal(err)
			}
			tl, err := Run(context.Background(), peer.Inputs, Options{Config: relay.DefaultConfig(), Log: zerolog.Nop()})
			if err != nil {
				t.Fatal(err)
			}
			results := Check(ex, Stream(tl, peer.Events), peer.Start)
			passed := 0
			for _, r := range results {
				if r.Pass {
					passed++
					continue
				}
				if why, ok := n.Differences[r.Phase]; ok {
					t.Logf("phase %s fails by design: %s (%s)", r.Phase, why, r.Reason)
					continue
				}
				t.Errorf("phase %s: %s", r.Phase, r.Reason)
			}
			line := fmt.Sprintf("%-45s %d/%d phases passed", agent+"/"+scenario, passed, len(results))
			t.Log(line)
			table = append(table, line)
			if t.Failed() {
				for _, e := range tl {
					t.Logf("  +%6dms %s %s/%s %s %s", e.Offset, short(e.Session), e.State, e.Reason, e.Source, e.Rule)
				}
			}
		})
	}
	fmt.Println(strings.Join(table, "\n"))
}

func short(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

var _ = time.Second
