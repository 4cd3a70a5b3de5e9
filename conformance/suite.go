// Package conformance is the live conformance suite: the real agent CLIs
// (pinned in agents/agents.json) run in a real terminal (a tmux pane) under
// the real `logwatch wrap`, with a real daemon, hooks installed by the real
// `logwatch hooks install`, against fake model servers on loopback; each
// scenario asserts the exact timeline `logwatch events --json` publishes.
//
// The scenario driver (selftest/driver) and the fake model servers
// (selftest/fakemodel) are the product's, shared with `logwatch selftest`;
// this file finds the pinned agents, builds the logwatch binary, and names
// the driver's and the fakes' parts as the suite's tests use them.
package conformance

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/logwatch/logwatch/conformance/agents"
	"github.com/logwatch/logwatch/internal/testsupport"
	"github.com/logwatch/logwatch/selftest/driver"
	"github.com/logwatch/logwatch/selftest/fakemodel"
)

// InstallCommand is the one command that installs the pinned agents.
const InstallCommand = "conformance/install-agents"

// EnvArtifacts, when set, is a directory every scenario keeps its files in
// (daemon log, request logs, pane output, timeline); otherwise they live in
// a temp dir that is removed unless the scenario failed.
const EnvArtifacts = "LOGWATCH_CONFORMANCE_ARTIFACTS"

// AgentsDir is where the pinned agents are looked for: $LOGWATCH_AGENTS_DIR,
// else the install script's default, ~/.cache/logwatch/agents.
func AgentsDir() string { return agents.Dir() }

// RequireAgent returns the pinned agent's executable. Without it the test
// is skipped with the command that installs it, or fails under CI=true.
// Under the race detector the suite is skipped: it tests external binaries
// and runs once, in the plain `go test ./...`.
func RequireAgent(t *testing.T, name string) (agents.Agent, string) {
	t.Helper()
	if raceDetector {
		t.Skip("conformance: skipped under -race (it drives external binaries; the plain `go test ./...` runs it)")
	}
	a, p, msg := findAgent(name, AgentsDir())
	if msg != "" {
		testsupport.Missing(t, "%s", msg)
	}
	return a, p
}

// findAgent looks for the pinned agent's executable under dir, and for
// tmux; msg says what is missing and how to install it.
func findAgent(name, dir string) (a agents.Agent, path, msg string) {
	a, ok := agents.Get(name)
	if !ok {
		return a, "", fmt.Sprintf("conformance: %s is not pinned in conformance/agents/agents.json", name)
	}
	path = a.BinPath(dir)
	if _, err := os.Stat(path); err != nil {
		return a, "", fmt.Sprintf("conformance: %s %s not found at %s; install the pinned agents with `%s` (LOGWATCH_AGENTS_DIR=%s)",
			name, a.Version, path, InstallCommand, dir)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		return a, "", "conformance: tmux not found (the scenarios' terminal); `" + InstallCommand + "` installs it"
	}
	return a, path, ""
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string
)

// Logwatch returns the real logwatch binary, built once per test run.
func Logwatch(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "lwconf-bin")
		if buildErr != nil {
			return
		}
		builtBin = filepath.Join(buildDir, "logwatch")
		// The suite tests a binary it builds itself: reading its sources
		// makes them part of go test's cache key.
		if buildErr = testsupport.ReadSources("..", false); buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", builtBin, "github.com/logwatch/logwatch/cmd/logwatch").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build logwatch: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// Cleanup removes the built binary; TestMain calls it.
func Cleanup() {
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}

// NewScenario makes the world and starts the daemon and the subscription:
// its folder is under $LOGWATCH_CONFORMANCE_ARTIFACTS when that is set.
func NewScenario(t *testing.T, agent string) *Scenario {
	t.Helper()
	o := driver.Options{Bin: Logwatch(t), Agent: agent, Verbose: testing.Verbose()}
	if base := os.Getenv(EnvArtifacts); base != "" {
		o.Dir = filepath.Join(base, driver.Sanitize(t.Name()))
	}
	return driver.New(t, o)
}

// The driver's parts, by the names the suite's tests use.
type (
	Scenario    = driver.Scenario
	Pane        = driver.Pane
	PaneOptions = driver.PaneOptions
	Timeline    = driver.Timeline
	Step        = driver.Step
	Event       = driver.Event
	Latency     = driver.Latency
)

// Any, as a Step field, matches every value.
const Any = driver.Any

// Keep copies the files matching pattern to $env/<name>-<n><ext> when the
// variable env names a folder: the parsers' capture goldens are recorded
// so from the real agents.
func Keep(t *testing.T, env, name, pattern string) {
	t.Helper()
	dst := os.Getenv(env)
	if dst == "" {
		return
	}
	files, _ := filepath.Glob(pattern)
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dst, fmt.Sprintf("%s-%d%s", name, i+1, filepath.Ext(f)))
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Summary is the suite's latency table and wall time, as text.
func Summary(wall time.Duration) string { return driver.Summary(wall) }

// StripANSI removes escape sequences and carriage returns.
func StripANSI(s string) string { return driver.StripANSI(s) }

// ShellQuote quotes s for a shell.
func ShellQuote(s string) string { return driver.ShellQuote(s) }

// ProcessTree describes pid and its descendants, for a failure's log.
func ProcessTree(pid int) string { return driver.ProcessTree(pid) }

// The fake model servers, by the names the suite's tests use.
type (
	Anthropic        = fakemodel.Anthropic
	AnthropicRequest = fakemodel.AnthropicRequest
	OpenAI           = fakemodel.OpenAI
	OpenAIRequest    = fakemodel.OpenAIRequest
	OpenAIReply      = fakemodel.OpenAIReply
	OpenAIScript     = fakemodel.OpenAIScript
	Gemini           = fakemodel.Gemini
	GeminiRequest    = fakemodel.GeminiRequest
)

// StartGemini starts the fake Gemini API with its default script, logging
// into dir.
func StartGemini(ctx context.Context, dir string) (*Gemini, error) {
	return fakemodel.StartGemini(ctx, dir, nil)
}

// StartAnthropic starts the fake Messages server, logging into dir.
func StartAnthropic(dir string) (*Anthropic, error) { return fakemodel.StartAnthropic(dir) }

// StartOpenAI starts the fake Responses server, logging into dir.
func StartOpenAI(ctx context.Context, dir string, script OpenAIScript) (*OpenAI, error) {
	return fakemodel.StartOpenAI(ctx, dir, script)
}

// DefaultOpenAIScript is the fake Responses server's default script.
func DefaultOpenAIScript(r OpenAIRequest) OpenAIReply { return fakemodel.DefaultOpenAIScript(r) }

const (
	AnthHugeTokens     = fakemodel.AnthHugeTokens
	AnthSlow           = fakemodel.AnthSlow
	AnthTool           = fakemodel.AnthTool
	AnthAgent          = fakemodel.AnthAgent
	AnthHuge           = fakemodel.AnthHuge
	AnthShortAnswer    = fakemodel.AnthShortAnswer
	AnthToolDone       = fakemodel.AnthToolDone
	AnthSubagentPrompt = fakemodel.AnthSubagentPrompt
	AnthSubagentAnswer = fakemodel.AnthSubagentAnswer
	AnthAgentDone      = fakemodel.AnthAgentDone
	AnthSummary        = fakemodel.AnthSummary
	AnthTitle          = fakemodel.AnthTitle
	AnthToolCommand    = fakemodel.AnthToolCommand
	AnthReqTitle       = fakemodel.AnthReqTitle
	AnthReqCompact     = fakemodel.AnthReqCompact
	AnthReqSubagent    = fakemodel.AnthReqSubagent
	AnthReqMain        = fakemodel.AnthReqMain

	OpenAIReqTurn         = fakemodel.OpenAIReqTurn
	OpenAIReqToolResult   = fakemodel.OpenAIReqToolResult
	OpenAIReqTitle        = fakemodel.OpenAIReqTitle
	OpenAIReqCompact      = fakemodel.OpenAIReqCompact
	OpenAIReqOther        = fakemodel.OpenAIReqOther
	OpenAISlow            = fakemodel.OpenAISlow
	OpenAITool            = fakemodel.OpenAITool
	OpenAIFail            = fakemodel.OpenAIFail
	OpenAIHuge            = fakemodel.OpenAIHuge
	OpenAISlowStream      = fakemodel.OpenAISlowStream
	OpenAIHugeCommand     = fakemodel.OpenAIHugeCommand
	OpenAIContextWindow   = fakemodel.OpenAIContextWindow
	OpenAIApprovalCommand = fakemodel.OpenAIApprovalCommand

	GeminiSlow            = fakemodel.GeminiSlow
	GeminiTool            = fakemodel.GeminiTool
	GeminiSlowScreen      = fakemodel.GeminiSlowScreen
	GeminiApprovalCommand = fakemodel.GeminiApprovalCommand
)

// Main is each suite package's TestMain. It runs the scenarios more widely
// in parallel than -parallel's default (GOMAXPROCS): they mostly wait on the
// agents and the clock. At the end it prints the key→ready latencies and the
// wall time (go test -v shows them; with LOGWATCH_CONFORMANCE_ARTIFACTS set
// they are also written to summary-<package>.txt there). The scenarios are
// one package per agent so that each has go test's whole time budget.
func Main(m *testing.M) {
	// Every scenario of the suite's packages (and of selftest's test beside
	// them) takes one of the machine's slots.
	if os.Getenv(driver.EnvSlots) == "" {
		os.Setenv(driver.EnvSlots, strconv.Itoa(driver.DefaultSlots()))
	}
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", "4")
	}
	start := time.Now()
	code := m.Run()
	sum := Summary(time.Since(start))
	fmt.Print(sum)
	if dir := os.Getenv(EnvArtifacts); dir != "" {
		name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
		os.WriteFile(filepath.Join(dir, "summary-"+name+".txt"), []byte(sum), 0o644)
	}
	Cleanup()
	os.Exit(code)
}

// WantInterrupts fails the scenario unless the daemon counted exactly
// confirmed and unconfirmed interrupt keys so far.
func WantInterrupts(t *testing.T, s *Scenario, confirmed, unconfirmed int) {
	t.Helper()
	c, err := s.Counters()
	if err != nil {
		t.Fatal(err)
	}
	if c["interrupts_confirmed"] != float64(confirmed) || c["interrupts_unconfirmed"] != float64(unconfirmed) {
		t.Fatalf("interrupts confirmed %v, unconfirmed %v; want %d, %d (counters %v)\ntimeline:\n%s",
			c["interrupts_confirmed"], c["interrupts_unconfirmed"], confirmed, unconfirmed, c, s.Timeline)
	}
}
