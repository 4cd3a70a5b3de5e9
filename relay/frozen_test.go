package relay

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
)

// uid is a session id in the UUID form real agents use.
func uid(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }

// frozenScenario drives h through sessions of every kind: history folded
// at start-up (UUID ids and not, finished, mid-turn and ending on quiet), a tab-bound
// session, a hooked one, a worktree's, Codex, a late bootstrap, an ack, a
// key and a tab close, each step far enough apart for checkpoints and
// quiet periods to run.
func frozenScenario(h *harness) {
	t := h.t
	for i := 0; i < 6; i++ {
		id := uid(i)
		h.line(claude, id, cPrompt(id, "hi"), true)
		h.line(claude, id, cFinal(id), true)
		if i%2 == 0 {
			h.line(claude, id, cTurnDuration(id, 0), true)
		}
	}
	h.line(claude, "s-plain", cPrompt("s-plain", "x"), true)
	h.line(codex, uid(40), xEvent("task_started", ""), true)
	// Two OpenCode sessions in one database: one finished, one mid-turn.
	for i, id := range []string{ocID(1), ocID(2)} {
		ocLine(h, id, 10*i+1, `{"sessionID":"`+id+`","info":{"id":"msg_u`+id+`","sessionID":"`+id+`","role":"user","time":{"created":1764662400000}}}`)
		if i == 0 {
			ocLine(h, id, 10*i+2, `{"sessionID":"`+id+`","info":{"id":"msg_a`+id+`","sessionID":"`+id+`","role":"assistant","time":{"created":1764662400001,"completed":1764662400002},"finish":"stop"}}`)
		}
	}
	h.r.BootstrapDone()
	save := func() {
		done := make(chan struct{})
		h.r.SaveChanged(func(Saved) { close(done) })
		<-done
	}
	save()
	must(t, h.hook("tab-1", "claude", claudeHook("UserPromptSubmit", uid(1))))
	must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", uid(2))))
	must(t, h.hook("", "claude", claudeHook("Stop", uid(2))))
	h.sync() // the lines are folded at this time, not the next
	h.clock.Advance(4 * time.Second)
	save()
	save()
	h.line(claude, uid(3), cPrompt(uid(3), "again"), false)
	h.line(claude, uid(3), cFinal(uid(3)), false)
	h.sync() // the lines are folded at this time, not the next
	h.clock.Advance(4 * time.Second)
	save()
	must(t, h.r.Ack(h.ctx, uid(0)))
	must(t, h.r.Key(h.ctx, "tab-1", KeyEsc, time.Time{}))
	h.line(claude, uid(50), cPrompt(uid(50), "late"), true) // history after start-up
	save()
	save()
	if _, err := h.r.TabClosed(h.ctx, "tab-1"); err != nil {
		t.Fatal(err)
	}
	h.line(claude, uid(4), cMeta(uid(4)), false)
	h.sync() // the lines are folded at this time, not the next
	h.clock.Advance(4 * time.Second)
	save()
	save()
	// Saved inside a quiet period: after a restart, the restored quiet
	// period ends this turn.
	h.line(claude, uid(5), cPrompt(uid(5), "last"), false)
	h.line(claude, uid(5), cFinal(uid(5)), false)
	h.sync()
	save()
}

// ocDB is the OpenCode database the scenarios' OpenCode sessions are in.
const ocDB = "/home/u/.local/share/opencode/opencode.db"

// ocID is an OpenCode session id.
func ocID(i int) string { return fmt.Sprintf("ses_%012x%014d", 0xfeed, i) }

// ocLine delivers one of OpenCode's event rows (a message.updated.1 with
// data) as the store feed does: bootstrap history at rowid.
func ocLine(h *harness, id string, rowid int, data string) {
	h.t.Helper()
	ocRow(h, id, rowid, data, true)
}

// ocRow delivers one of OpenCode's event rows at rowid, read at start-up
// (bootstrap) or live.
func ocRow(h *harness, id string, rowid int, data string, bootstrap bool) {
	h.t.Helper()
	line := fmt.Sprintf(`{"type":"message.updated.1","session":%q,"parent":"","seq":%d,"rowid":%d,"data":%s}`, id, rowid, rowid, data)
	p := h.parser[ocDB]
	if p == nil {
		p = parsers.New(agOpenCode)
		h.parser[ocDB] = p
	}
	ev, err := p.Parse([]byte(line))
	if err != nil {
		h.t.Fatal(err)
	}
	h.r.Log(LogLine{Path: ocDB, Session: id, Agent: agOpenCode, Offset: int64(rowid - 1), End: int64(rowid), Evidence: ev, Bootstrap: bootstrap, Raw: []byte(line)})
	h.sync()
}

// snapshot is what the relay shows and saves: its events, its status and
// its checkpoint, as bytes.
func snapshot(h *harness) (events, status, state string) {
	h.sync()
	var evs []string
	for {
		select {
		case ev := <-h.sub.C():
			b, _ := json.Marshal(ev)
			evs = append(evs, string(b))
			continue
		default:
		}
		break
	}
	st := h.sync()
	b, _ := json.Marshal(st)
	saved := make(chan Saved, 1)
	h.r.Save(func(s Saved) { saved <- s })
	sv := <-saved
	m, _ := json.Marshal(sv.Marks)
	for _, ev := range st.Sessions { // how far each log was received (replay waits on it)
		off, err := h.r.LogOffset(h.ctx, "/logs/"+ev.Session+".jsonl")
		if err != nil {
			h.t.Fatal(err)
		}
		b = append(b, fmt.Sprintf(" %s@%d", ev.Session, off)...)
	}
	return strings.Join(evs, "\n"), string(b), string(m) + "\x00" + string(sv.State)
}

// TestFrozenStore: a session whose log is its agent's database, which every
// session of it shares (OpenCode's), freezes with the database's path and
// leaves the database's mark where every session finds it; a database of
// another name is no session's log and keeps it thawed.
func TestFrozenStore(t *testing.T) {
	for _, c := range []struct {
		path string
		ok   bool
	}{
		{ocDB, true},
		{"/home/u/.local/share/opencode/opencode-beta.db", false}, // a name the agent's Store does not list
		{"opencode.db", false},
	} {
		r := New(DefaultConfig(), nil, nil, zerolog.Nop())
		ids := []string{ocID(1), ocID(2)}
		for i, id := range ids {
			r.m.logLine(LogLine{Path: c.path, Session: id, Agent: agOpenCode, Offset: int64(i), End: int64(i + 1), Evidence: parsers.Evidence{Kind: parsers.KindTurnStart}, Bootstrap: true})
		}
		r.m.bootstrapDone()
		if got := r.m.store.frozenCount(); got != map[bool]int{true: 2}[c.ok] {
			t.Errorf("%s: %d frozen, want %d", c.path, got, map[bool]int{true: 2}[c.ok])
			continue
		}
		if mk, ok := r.m.store.files[c.path]; !ok || mk.End != 2 {
			t.Errorf("%s: the database's mark %+v (%v), want End 2 in store.files", c.path, mk, ok)
		}
		if m := r.m.store.marks(); len(m) != 1 || m[c.path].End != 2 {
			t.Errorf("%s: marks %v, want the database's once", c.path, m)
		}
		if r.m.store.frozenFile(c.path) != nil {
			t.Errorf("%s: the database found as one session's log", c.path)
		}
		for _, id := range ids {
			if e := r.m.store.get(id); e == nil || e.path != c.path {
				t.Errorf("%s: %s thawed with another path", c.path, id)
			}
		}
		if mk := r.m.store.files[c.path]; mk.End != 2 {
			t.Errorf("%s: mark after thawing %+v", c.path, mk)
		}
	}
}

func frozenCount(h *harness) int {
	n := make(chan int, 1)
	h.r.enqueue(func() { n <- h.r.m.store.frozenCount() })
	return <-n
}

// TestFrozenChangesNothing: the same inputs to a relay that never freezes,
// one that freezes every session at rest after each step and one that
// freezes at its own times give byte-identical events, status, checkpoint
// and marks; and so do all three restarted over their checkpoints, through
// the restored quiet period.
func TestFrozenChangesNothing(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Worktrees = []string{"/w/app"}
	modes := []freezeMode{freezeNever, freezeEager, freezeAtRest}
	names := []string{"never", "eager", "at rest"}
	var hs []*harness
	var got [][3]string
	for _, m := range modes {
		h := newHarnessFreezing(t, cfg, m)
		frozenScenario(h)
		e, s, st := snapshot(h)
		hs = append(hs, h)
		got = append(got, [3]string{e, s, st})
	}
	compare := func(when string, got [][3]string) {
		for i, what := range []string{"events", "status", "checkpoint"} {
			for m := 1; m < len(modes); m++ {
				if got[m][i] != got[0][i] {
					t.Errorf("%s: %s differ:\n%s %s\n%s %s", when, what, names[0], got[0][i], names[m], got[m][i])
				}
			}
		}
	}
	compare("first run", got)
	if n := frozenCount(hs[1]); n < 4 {
		t.Errorf("eager: %d sessions frozen", n)
	}
	if n := frozenCount(hs[2]); n < 2 {
		t.Errorf("at rest: %d sessions frozen at checkpoints", n)
	}
	var again [][3]string
	for i, m := range modes {
		_, _, st := snapshot(hs[i])
		_, state, _ := strings.Cut(st, "\x00")
		h2 := newHarnessFreezing(t, cfg, m)
		h2.r.Restore([]byte(state))
		h2.r.BootstrapDone()
		h2.sync()
		h2.clock.Advance(cfg.TurnQuiet + time.Second)
		e, s, st2 := snapshot(h2)
		if !strings.Contains(e, "log.quiet_after_final") {
			t.Errorf("%s: no restored session went quiet: %s", names[i], e)
		}
		again = append(again, [3]string{e, s, st2})
	}
	compare("restarted", again)
}

// TestFrozenPath: a frozen session keeps its log's name in a form an agent
// gives (parsers.LogName; its own agent's first), gives it back exactly and
// finds itself by it; any other name keeps the session thawed.
func TestFrozenPath(t *testing.T) {
	id := uid(7)
	claude := "/home/u/.claude/projects/-w-p/" + id + ".jsonl"
	codex := "/home/u/.codex/sessions/2026/12/01/rollout-2026-12-01T08-00-00-" + id + ".jsonl"
	for _, c := range []struct {
		agent  parsers.Agent
		path   string
		ok     bool
		others []string // names that are not this log
	}{
		{agClaude, claude, true, []string{"/home/u/.claude/projects/-w-q/" + id + ".jsonl", "/home/u/.claude/projects/-w-p/rollout-2026-12-01T08-00-00-" + id + ".jsonl"}},
		{agCodex, codex, true, []string{"/home/u/.codex/sessions/2026/12/01/rollout-2026-12-01T08-00-01-" + id + ".jsonl",
			"/home/u/.codex/sessions/2026/12/01/" + id + ".jsonl", "/home/u/.codex/sessions/2026/12/02/rollout-2026-12-01T08-00-00-" + id + ".jsonl"}},
		{agClaude, codex, true, nil}, // a name another agent gives
		{agCodex, claude, true, nil},
		{agClaude, "/logs/s1.jsonl", false, nil}, // another session's
		{agCodex, "/home/u/.codex/sessions/rollout-2026-13-01T08-00-00-" + id + ".jsonl", false, nil}, // no such month
		{agCodex, "/home/u/.codex/sessions/rollout-1999-12-31T23-59-59-" + id + ".jsonl", false, nil}, // before the epoch
		{agClaude, "/home/u/x/" + id + ".json", false, nil},
		{agClaude, id + ".jsonl", false, nil},
		{parsers.Agent("toy"), "/home/u/x/" + id + ".jsonl", true, nil}, // an agent nobody registered
		{parsers.Agent("toy"), "/home/u/x/" + id + ".log", false, nil},
	} {
		r := New(DefaultConfig(), nil, nil, zerolog.Nop())
		r.m.logLine(LogLine{Path: c.path, Session: id, Agent: c.agent, End: 10, Line: 1, Evidence: parsers.Evidence{Kind: parsers.KindPrompt}, Bootstrap: true})
		r.m.store.booted = true
		r.m.settle(r.m.store.sessions[id])
		r.m.freezeIdle(true)
		if got := r.m.store.frozenCount() == 1; got != c.ok {
			t.Errorf("%s: frozen %v, want %v", c.path, got, c.ok)
			continue
		}
		if !c.ok {
			continue
		}
		if f := r.m.store.frozenFile(c.path); f == nil || f.path(id) != c.path || f.mark().End != 10 {
			t.Errorf("%s: not found by its name, or given back otherwise", c.path)
		}
		for _, o := range c.others {
			if r.m.store.frozenFile(o) != nil {
				t.Errorf("%s: found by %s", c.path, o)
			}
		}
		if e := r.m.store.get(id); e == nil || e.path != c.path || r.m.store.files[c.path].End != 10 {
			t.Errorf("%s: thawed with another path or mark", c.path)
		}
	}
}
