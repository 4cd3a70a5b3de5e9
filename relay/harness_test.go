package relay

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
	claudeagent "github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/relay/session"
	"github.com/logwatch/logwatch/relay/vclock"
)

// fakeFollower records what the relay asks of the watcher.
type fakeFollower struct {
	mu      sync.Mutex
	follows []string
	pokes   int
}

func (f *fakeFollower) Follow(p string) { f.mu.Lock(); f.follows = append(f.follows, p); f.mu.Unlock() }
func (f *fakeFollower) Poke(string) bool {
	f.mu.Lock()
	f.pokes++
	f.mu.Unlock()
	return true
}

// harness drives a real Relay on a fake clock.
type harness struct {
	t      *testing.T
	r      *Relay
	clock  *vclock.Clock
	follow *fakeFollower
	sub    *Subscription
	ctx    context.Context
	cancel context.CancelFunc
	off    map[string]int64 // per session: log bytes "written" so far
	parser map[string]parsers.Parser
}

func newHarness(t *testing.T, cfg Config) *harness { return newHarnessFreezing(t, cfg, freezeEager) }

// newHarnessFreezing is newHarness freezing sessions as mode says.
func newHarnessFreezing(t *testing.T, cfg Config, mode freezeMode) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	h := &harness{t: t, clock: vclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)), follow: &fakeFollower{}, ctx: ctx, cancel: cancel,
		off: map[string]int64{}, parser: map[string]parsers.Parser{}}
	h.r = New(cfg, h.clock, h.follow, zerolog.Nop())
	h.r.m.store.freezing = mode // every session at rest frozen after each step: it must change nothing
	h.clock.Settle = func() { h.r.Status(ctx) }
	goldenAdd(h)
	go h.r.Run(ctx)
	sub, err := h.r.Subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h.sub = sub
	return h
}

// hook sends a hook payload built from key=value pairs on tab.
func (h *harness) hook(tab, agent string, payload string) error {
	h.t.Helper()
	return h.r.Hook(h.ctx, agent, tab, []byte(payload))
}

// line appends one log line to session's transcript, parsed by the real
// parser, as the watcher would deliver it.
func (h *harness) line(agent parsers.Agent, session, line string, bootstrap bool) {
	h.t.Helper()
	p := h.parser[session]
	if p == nil {
		p = parsers.New(agent)
		h.parser[session] = p
	}
	ev, err := p.Parse([]byte(line))
	off := h.off[session]
	h.off[session] = off + int64(len(line)) + 1
	h.r.Log(LogLine{Path: "/logs/" + session + ".jsonl", Session: session, Agent: agent, Offset: off,
		End: off + int64(len(line)) + 1, Evidence: ev, Malformed: err != nil, Bootstrap: bootstrap, Raw: []byte(line)})
	// Folded before the test moves the clock: the line, its changes and
	// their since are stamped with the time it was written at, in every run.
	h.sync()
}

// sync waits until the relay processed everything enqueued so far.
func (h *harness) sync() Status {
	h.t.Helper()
	st, err := h.r.Status(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	return st
}

// changes returns the events published since the last call, as
// "state/reason/rule" strings. A change that only retitles a session
// (title_test.go's subject) is left out: these are the state's changes.
func (h *harness) changes() []string {
	h.sync()
	var out []string
	for {
		select {
		case ev, ok := <-h.sub.C():
			if !ok {
				return out
			}
			if (session.Change{Rule: ev.Rule}).Retitled() {
				continue
			}
			out = append(out, fmt.Sprintf("%s/%s/%s", ev.State, ev.Reason, ev.Rule))
		default:
			for _, ev := range h.sub.Resync() {
				out = append(out, fmt.Sprintf("resync %s/%s/%s", ev.State, ev.Reason, ev.Rule))
			}
			return out
		}
	}
}

// drain returns the events published since the last call, each as f
// writes it.
func (h *harness) drain(f func(Event) string) []string {
	h.sync()
	var out []string
	for {
		select {
		case ev := <-h.sub.C():
			out = append(out, f(ev))
		default:
			return out
		}
	}
}

func (h *harness) expect(want ...string) {
	h.t.Helper()
	got := h.changes()
	if strings.Join(got, " ") != strings.Join(want, " ") {
		h.t.Fatalf("changes:\n got  %q\n want %q", got, want)
	}
}

func (h *harness) state(session string) Event {
	h.t.Helper()
	for _, s := range h.sync().Sessions {
		if s.Session == session {
			return s
		}
	}
	h.t.Fatalf("no session %s", session)
	return Event{}
}

// Payload helpers.
func claudeHook(event, session string, extra ...string) string {
	return jsonObj(append([]string{"hook_event_name", event, "session_id", session, "cwd", "/w/app",
		"transcript_path", "/logs/" + session + ".jsonl"}, extra...)...)
}

func jsonObj(kv ...string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteString(",")
		}
		v := kv[i+1]
		if !(strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") || v == "true" || v == "false") {
			v = fmt.Sprintf("%q", v)
		}
		fmt.Fprintf(&b, "%q:%s", kv[i], v)
	}
	b.WriteString("}")
	return b.String()
}

// Claude transcript lines.
func cPrompt(s, text string) string {
	return fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":"/w/app","version":"2.1.143","message":{"role":"user","content":%q}}`, s, text)
}
func cMarker(s string, toolUse bool) string {
	m := claudeagent.MarkerInterrupt
	if toolUse {
		m = claudeagent.MarkerInterruptToolUse
	}
	return fmt.Sprintf(`{"type":"user","sessionId":%q,"message":{"role":"user","content":[{"type":"text","text":%q}]}}`, s, m)
}
func cToolResult(s, text string) string {
	return fmt.Sprintf(`{"type":"user","sessionId":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":%q}]}}`, s, text)
}
func cFinal(s string) string {
	return fmt.Sprintf(`{"type":"assistant","sessionId":%q,"version":"2.1.143","message":{"stop_reason":"end_turn","content":[{"type":"text","text":"ok"}]}}`, s)
}
func cTurnDuration(s string, pending int) string {
	return fmt.Sprintf(`{"type":"system","subtype":"turn_duration","sessionId":%q,"pendingBackgroundAgentCount":%d}`, s, pending)
}
func cCompact(s string) string {
	return fmt.Sprintf(`{"type":"system","subtype":"compact_boundary","sessionId":%q,"compactMetadata":{"trigger":"manual"}}`, s)
}
func cMeta(s string) string {
	return fmt.Sprintf(`{"type":"last-prompt","lastPrompt":"x","sessionId":%q}`, s)
}

// Codex rollout lines.
func xEvent(typ string, extra string) string {
	return fmt.Sprintf(`{"timestamp":"2026-05-16T20:54:07.895Z","type":"event_msg","payload":{"type":%q%s}}`, typ, extra)
}
