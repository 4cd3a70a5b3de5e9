package relay

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
)

// fakeClock is the relay's clock under test: time moves only when a test
// advances it, and due timers fire in order.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	// settle runs after each fired timer, so work the timer enqueued (and
	// the timers that work arms) happens before time moves on.
	settle func()
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// Advance moves time forward by d, firing every timer that falls due, in
// time order (timers they create fire too if they fall within d).
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
		var next *fakeTimer
		for i, t := range c.timers {
			if t.stopped {
				continue
			}
			if !t.at.After(end) {
				next = t
				c.timers = append(c.timers[:i], c.timers[i+1:]...)
			}
			break
		}
		if next == nil {
			c.now = end
			c.timers = pruneStopped(c.timers)
			c.mu.Unlock()
			return
		}
		c.now = next.at
		c.mu.Unlock()
		next.f()
		if c.settle != nil {
			c.settle()
		}
	}
}

func pruneStopped(ts []*fakeTimer) []*fakeTimer {
	out := ts[:0]
	for _, t := range ts {
		if !t.stopped {
			out = append(out, t)
		}
	}
	return out
}

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
	clock  *fakeClock
	follow *fakeFollower
	sub    *Subscription
	ctx    context.Context
	off    map[string]int64 // per session: log bytes "written" so far
	parser map[string]parsers.Parser
}

func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	h := &harness{t: t, clock: newFakeClock(), follow: &fakeFollower{}, ctx: ctx,
		off: map[string]int64{}, parser: map[string]parsers.Parser{}}
	h.r = New(cfg, h.clock, h.follow, zerolog.Nop())
	h.clock.settle = func() { h.r.Status(ctx) }
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
		End: off + int64(len(line)) + 1, Evidence: ev, Malformed: err != nil, Bootstrap: bootstrap})
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
// "state/reason/rule" strings.
func (h *harness) changes() []string {
	h.sync()
	var out []string
	for {
		select {
		case ev, ok := <-h.sub.C():
			if !ok {
				return out
			}
			out = append(out, fmt.Sprintf("%s/%s/%s", ev.State, ev.Reason, ev.Rule))
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
	m := parsers.MarkerInterrupt
	if toolUse {
		m = parsers.MarkerInterruptToolUse
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
