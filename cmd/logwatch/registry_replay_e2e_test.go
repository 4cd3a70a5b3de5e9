package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A registry scenario recorded by the real daemon (`run --record`) replays
// to the same changes, tab binding by ancestry and the pidfd-told exit
// included, after every process it names is gone: the recording holds the
// registry's entries, the exit and what /proc answered.
func TestRegistryRecordReplayE2E(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "registry.rec.jsonl")
	e := startE2EArgs(t, []string{"--record", rec})
	const s1 = "5fb9e89c-5625-4458-ba8b-7d74a8860e11"
	shell, agent := agentProc(t)
	log1 := e.registeredTurn(agent, s1)
	cmd := exec.Command(bin, "key", "--tab", "T1", "--pid", strconv.Itoa(shell), "esc")
	cmd.Env = e.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("key: %v %s", err, out)
	}
	e.append(log1, `{"type":"user","sessionId":"`+s1+`","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}`)
	if ev := e.want(s1, "ready", "interrupted", "key+log"); ev["tab"] != "T1" {
		t.Fatalf("interrupt %v: want tab T1", ev)
	}
	syscall.Kill(agent, syscall.SIGKILL)
	e.want(s1, "ended", "process_gone", "registry")
	e.daemon.Process.Signal(syscall.SIGTERM)
	e.daemon.Wait()
	syscall.Kill(shell, syscall.SIGKILL) // nothing the recording names runs any more

	live := recordedTimeline(t, rec)
	out, stderr, code := cli(t, nil, "replay", "--json", rec)
	if code != 0 {
		t.Fatalf("replay: %d %s", code, stderr)
	}
	var got struct {
		Timeline []struct {
			Seq                                       uint64
			Session, Tab, State, Reason, Source, Rule string
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	var replayed []string
	for _, ev := range got.Timeline {
		replayed = append(replayed, fmt.Sprintf("%d %s %s/%s/%s/%s tab=%s", ev.Seq, ev.Session, ev.State, ev.Reason, ev.Source, ev.Rule, ev.Tab))
	}
	if strings.Join(replayed, "\n") != strings.Join(live, "\n") {
		t.Fatalf("replayed timeline differs from the recorded one:\nlive:\n  %s\nreplayed:\n  %s",
			strings.Join(live, "\n  "), strings.Join(replayed, "\n  "))
	}
}

// recordedTimeline is recordedEvents with their seq and tab.
func recordedTimeline(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, ev := range recordedEvents(t, path) {
		out = append(out, fmt.Sprintf("%d %s %s/%s/%s/%s tab=%s", ev.Seq, ev.Session, ev.State, ev.Reason, ev.Source, ev.Rule, ev.Tab))
	}
	return out
}
