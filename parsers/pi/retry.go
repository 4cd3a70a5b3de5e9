package pi

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
)

// pi 0.73.1 retries by itself a run whose answer failed with an error its
// AgentSession._isRetryableError accepts (a server error, overload, rate
// limit, a lost connection; never a context overflow, which compaction
// handles), up to retry.maxRetries times (default 3) with a backoff of
// retry.baseDelayMs doubling (default 2 s), unless retry.enabled is false
// (dist/core/agent-session.js, settings-manager.js). It writes nothing
// while it waits nor while the retry streams (formats/pi.md §2.7).

// retryable is _isRetryableError's test on the error message.
var retryable = regexp.MustCompile(`(?i)overloaded|provider.?returned.?error|rate.?limit|too many requests|429|500|502|503|504|service.?unavailable|server.?error|internal.?error|network.?error|connection.?error|connection.?refused|connection.?lost|websocket.?closed|websocket.?error|other side closed|fetch failed|upstream.?connect|reset before headers|socket hang up|ended without|http2 request did not get a response|timed? out|timeout|terminated|retry delay`)

// overflow is pi-ai's isContextOverflow on an error message: its overflow
// patterns, unless a non-overflow one matches.
var (
	overflow    = regexp.MustCompile(`(?i)prompt is too long|request_too_large|input is too long for requested model|exceeds the context window|input token count.*exceeds the maximum|maximum prompt length is \d+|reduce the length of the messages|maximum context length is \d+ tokens|exceeds the limit of \d+|exceeds the available context size|greater than the context length|context window exceeds limit|exceeded model token limit|too large for model with \d+ maximum context length|model_context_window_exceeded|prompt too long; exceeded (?:max )?context length|context[_ ]length[_ ]exceeded|too many tokens|token limit exceeded|^4(?:00|13)\s*(?:status code)?\s*\(no body\)`)
	notOverflow = regexp.MustCompile(`(?i)^(Throttling error|Service unavailable):|rate limit|too many requests`)
)

// maxSettings bounds a settings file read.
const maxSettings = 1 << 20

// retrySettings are the settings' retry members pi reads.
type retrySettings struct {
	Retry struct {
		Enabled    *bool `json:"enabled"`
		MaxRetries *int  `json:"maxRetries"`
	} `json:"retry"`
}

// retries reports whether pi retries the answer of a session in cwd that
// failed with errm, the attempt-th failure in a row: by its own test and
// its settings, the project's (cwd/.pi/settings.json) over the user's
// (agent dir's settings.json) as pi merges them. A file that cannot be
// read or parsed counts as empty, as pi takes it.
func retries(cwd, errm string, attempt int) bool {
	if !retryable.MatchString(errm) || overflow.MatchString(errm) && !notOverflow.MatchString(errm) {
		return false
	}
	enabled, max := true, 3
	files := []string{filepath.Join(agentDir(), "settings.json")}
	if cwd != "" {
		files = append(files, filepath.Join(cwd, ".pi", "settings.json"))
	}
	for _, f := range files {
		var s retrySettings
		if readSettings(f, &s) != nil {
			continue
		}
		if s.Retry.Enabled != nil {
			enabled = *s.Retry.Enabled
		}
		if s.Retry.MaxRetries != nil {
			max = *s.Retry.MaxRetries
		}
	}
	return enabled && attempt <= max
}

func readSettings(path string, s *retrySettings) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSettings))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, s)
}

// agentDir is pi's agent directory (Spec's Home): PI_CODING_AGENT_DIR, or
// ~/.pi/agent.
func agentDir() string {
	if d := os.Getenv("PI_CODING_AGENT_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".pi", "agent")
}
