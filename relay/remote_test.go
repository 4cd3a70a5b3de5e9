package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// The remote rules (remote.go): what a remote's link reports, folded into
// sessions with a host; the local tab bound by its submit; a key here
// confirmed by the remote's interrupt; staleness and convergence.

// rev is a remote session's state as its daemon publishes it.
func rev(id, state, reason, source string, since time.Time) Event {
	return Event{Session: id, Agent: "claude", Cwd: "/srv/app", Worktree: "/srv", State: state, Reason: reason,
		Source: source, Rule: source + "." + reason, Since: since, Tab: "their-tab", Pid: 4242, Live: true, Seq: 99}
}

func (h *harness) remote(u RemoteUpdate) {
	h.t.Helper()
	h.r.Remote(u)
	h.sync()
}

func (h *harness) remoteUp(name string, evs ...Event) {
	h.t.Helper()
	h.remote(RemoteUpdate{Remote: name, Dest: "me@" + name, Kind: RemoteUp, Version: "v1", Protocol: Protocol})
	h.remote(RemoteUpdate{Remote: name, Kind: RemoteSnapshot, Events: evs})
}

func (h *harness) remoteEvent(name string, ev Event) {
	h.t.Helper()
	h.remote(RemoteUpdate{Remote: name, Kind: RemoteEvent, Event: &ev})
}

// hosted returns the changes since the last call as
// "host:session state/reason/source/rule@tab[ stale][ boot]".
func (h *harness) hosted() []string {
	return h.drain(func(ev Event) string {
		s := fmt.Sprintf("%s:%s %s/%s/%s/%s@%s", ev.Host, ev.Session, ev.State, ev.Reason, ev.Source, ev.Rule, ev.Tab)
		if ev.Stale {
			s += " stale(" + ev.StaleReason + ")"
		}
		if ev.Bootstrap {
			s += " boot"
		}
		if ev.Pid != 0 || ev.Live {
			s += " pid!" // a remote pid means nothing here
		}
		return s
	})
}

func (h *harness) expectHosted(want ...string) {
	h.t.Helper()
	if got := h.hosted(); strings.Join(got, " | ") != strings.Join(want, " | ") {
		h.t.Fatalf("changes:\n got  %q\n want %q", got, want)
	}
}

// sender records what the relay forwards to remotes.
type sender struct {
	mu   sync.Mutex
	sent []string
}

func (s *sender) Send(remote string, req Request) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, remote+" "+req.Op+" "+req.Session)
	return nil
}

func TestRemoteSessions(t *testing.T) {
	h := newHarness(t, Config{})
	t0 := h.clock.Now()
	h.remoteUp("box", rev("r1", "done", "turn_end", "log", t0.Add(-time.Hour)), rev("r2", "working", "prompt", "hook", t0))
	// The first snapshot is the remote's history: published once, as start-up's.
	h.expectHosted("box:r1 done/turn_end/log/log.turn_end@ boot", "box:r2 working/prompt/hook/hook.prompt@ boot")

	// A change is published with its host; a repeat of the same state is not.
	h.clock.Advance(time.Second)
	h.remoteEvent("box", rev("r2", "waiting", "permission", "hook", h.clock.Now()))
	h.remoteEvent("box", rev("r2", "waiting", "permission", "hook", h.clock.Now()))
	h.expectHosted("box:r2 waiting/permission/hook/hook.permission@")

	// Status: the remote, its sessions after the local ones, its worktree row.
	st := h.sync()
	if len(st.Remotes) != 1 || st.Remotes[0].State != RemoteUp || st.Remotes[0].Sessions != 2 || st.Remotes[0].Links != 1 {
		t.Fatalf("remotes: %+v", st.Remotes)
	}
	if len(st.Sessions) != 2 || st.Sessions[0].Host != "box" || st.Sessions[1].Session != "r2" {
		t.Fatalf("sessions: %+v", st.Sessions)
	}
	if len(st.Worktrees) != 1 || st.Worktrees[0] != (WorktreeState{Host: "box", Path: "/srv", State: "waiting", Sessions: 2}) {
		t.Fatalf("worktrees: %+v", st.Worktrees)
	}

	// The link drops: the last states stand, marked stale.
	h.clock.Advance(time.Second)
	h.remote(RemoteUpdate{Remote: "box", Kind: RemoteDown, Error: "ssh box: connection reset"})
	h.expectHosted("box:r1 done/turn_end/log/remote.stale@ stale(ssh box: connection reset)",
		"box:r2 waiting/permission/hook/remote.stale@ stale(ssh box: connection reset)")
	if st := h.sync(); st.Remotes[0].State != RemoteDown || st.Remotes[0].Attempts != 1 || !st.Sessions[0].Stale || st.Sessions[0].StaleSince == nil {
		t.Fatalf("down: %+v %+v", st.Remotes, st.Sessions)
	}
	// A second report of the drop repeats nothing.
	h.remote(RemoteUpdate{Remote: "box", Kind: RemoteDown, Error: "ssh box: connection refused"})
	h.expectHosted()

	// The reconnect converges on the new snapshot: a session that moved
	// meanwhile, one that did not (no longer stale), one the remote lost.
	h.clock.Advance(time.Second)
	h.remoteUp("box", rev("r2", "ready", "interrupted", "log", h.clock.Now()), rev("r3", "working", "prompt", "hook", h.clock.Now()))
	h.expectHosted("box:r2 ready/interrupted/log/log.interrupted@", "box:r3 working/prompt/hook/hook.prompt@",
		"box:r1 ended/gone_from_host/remote/remote.gone@")
	h.remoteUp("box", rev("r2", "ready", "interrupted", "log", h.clock.Now()), rev("r3", "working", "prompt", "hook", h.clock.Now()))
	h.expectHosted() // the same snapshot again: nothing moved
	// After a drop, a snapshot that moved nothing says so: remote.snapshot.
	h.remote(RemoteUpdate{Remote: "box", Kind: RemoteDown, Error: "gone"})
	h.hosted()
	h.remoteUp("box", rev("r2", "ready", "interrupted", "log", h.clock.Now()), rev("r3", "working", "prompt", "hook", h.clock.Now()))
	h.expectHosted("box:r2 ready/interrupted/log/remote.snapshot@", "box:r3 working/prompt/hook/remote.snapshot@")

	// A new subscriber's snapshot has them too.
	sub, err := h.r.Subscribe(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Snapshot() != 2 {
		t.Fatalf("snapshot of %d sessions, want 2", sub.Snapshot())
	}
	for range 2 {
		if ev := <-sub.C(); ev.Host != "box" || !ev.Snapshot {
			t.Fatalf("snapshot line %+v", ev)
		}
	}
}

func TestRemoteKeys(t *testing.T) {
	h := newHarness(t, Config{})
	h.remoteUp("box", rev("r1", "ready", "session_start", "hook", h.clock.Now()))
	h.hosted()

	// remote.bind.submit: the Enter in T1 started the remote's turn.
	h.enter("T1", 0)
	h.clock.Advance(80 * time.Millisecond)
	h.remoteEvent("box", rev("r1", "working", "prompt", "hook", h.clock.Now()))
	h.expectHosted("box:r1 working/prompt/hook/hook.prompt@T1")

	// Esc in T1, the remote's log shows the marker: key+log, counted.
	h.clock.Advance(time.Second)
	must(t, h.r.Key(h.ctx, "T1", KeyEsc, h.clock.Now()))
	h.clock.Advance(300 * time.Millisecond)
	h.remoteEvent("box", rev("r1", "ready", "interrupted", "log", h.clock.Now()))
	h.expectHosted("box:r1 ready/interrupted/key+log/key.confirmed@T1")
	if c := h.sync().Counters; c.InterruptsConfirmed != 1 || c.KeyToMarkerLastMs != 300 || c.BindsSubmit != 1 {
		t.Fatalf("counters %+v", c)
	}

	// Esc at the idle prompt: nothing, no candidate.
	must(t, h.r.Key(h.ctx, "T1", KeyEsc, h.clock.Now()))
	h.clock.Advance(3 * time.Second)
	h.expectHosted()

	// The next turn, from T1's Enter (the tab is already its: no rebinding).
	h.enter("T1", 0)
	h.remoteEvent("box", rev("r1", "working", "prompt", "hook", h.clock.Now()))
	h.expectHosted("box:r1 working/prompt/hook/hook.prompt@T1")
	// An Esc the log never confirms: the window closes, nothing changes...
	must(t, h.r.Key(h.ctx, "T1", KeyEsc, h.clock.Now()))
	h.clock.Advance(3 * time.Second)
	h.expectHosted()
	// ...and an interrupt after it is the log's own.
	h.remoteEvent("box", rev("r1", "ready", "interrupted", "log", h.clock.Now()))
	h.expectHosted("box:r1 ready/interrupted/log/log.interrupted@T1")
	if c := h.sync().Counters; c.InterruptCandidates != 2 || c.InterruptsUnconfirmed != 1 {
		t.Fatalf("counters %+v", c)
	}

	// A key while the link is down opens nothing: the stale state may be old.
	h.enter("T1", 0)
	h.remoteEvent("box", rev("r1", "working", "prompt", "hook", h.clock.Now()))
	h.hosted()
	h.remote(RemoteUpdate{Remote: "box", Kind: RemoteDown, Error: "lost"})
	h.hosted()
	must(t, h.r.Key(h.ctx, "T1", KeyEsc, h.clock.Now()))
	if c := h.sync().Counters; c.InterruptCandidates != 2 {
		t.Fatalf("a key on a stale session made a candidate: %+v", c)
	}

	// The tab closes: the session is shown in no tab; its state is the
	// remote's to say.
	h.remoteUp("box", rev("r1", "working", "prompt", "hook", h.clock.Now()))
	h.hosted()
	if n, err := h.r.TabClosed(h.ctx, "T1"); err != nil || n != 0 {
		t.Fatalf("tab_closed: %d %v", n, err)
	}
	h.expectHosted("box:r1 working/prompt/hook/remote.tab_closed@")
}

func TestRemoteBindAmbiguous(t *testing.T) {
	h := newHarness(t, Config{})
	h.remoteUp("box", rev("r1", "ready", "session_start", "hook", h.clock.Now()))
	h.hosted()
	h.enter("T1", 0)
	h.enter("T2", 0)
	h.clock.Advance(50 * time.Millisecond)
	h.remoteEvent("box", rev("r1", "working", "prompt", "hook", h.clock.Now()))
	h.expectHosted("box:r1 working/prompt/hook/hook.prompt@")
	if c := h.sync().Counters; c.BindsAmbiguous != 1 || c.BindsSubmit != 0 {
		t.Fatalf("counters %+v", c)
	}
	// An Enter too long before the turn binds nothing either.
	h.remoteEvent("box", rev("r1", "done", "turn_end", "hook", h.clock.Now()))
	h.enter("T3", 0)
	h.clock.Advance(3 * time.Second)
	h.remoteEvent("box", rev("r1", "working", "prompt", "hook", h.clock.Now()))
	h.expectHosted("box:r1 done/turn_end/hook/hook.turn_end@", "box:r1 working/prompt/hook/hook.prompt@")
	// A turn start in a reconnect's snapshot was made while no link was
	// up: an Enter just before the snapshot did not start it.
	h.remote(RemoteUpdate{Remote: "box", Kind: RemoteDown, Error: "lost"})
	h.hosted()
	h.clock.Advance(time.Second)
	h.enter("T4", 0)
	h.remoteUp("box", rev("r1", "working", "prompt", "hook", h.clock.Now()))
	h.expectHosted("box:r1 working/prompt/hook/hook.prompt@")
}

// TestRemoteBindLateSubmit: remote.bind.submit_late. The Enter that
// started a remote turn, reported after the turn start arrived (the
// remote's hook beat wrap's report in a CI-like run), binds the session
// to its tab, once; an Enter pressed after the turn began binds nothing,
// nor does one that two remote turn starts could be for.
func TestRemoteBindLateSubmit(t *testing.T) {
	h := newHarness(t, Config{})
	h.remoteUp("box", rev("r1", "ready", "session_start", "hook", h.clock.Now()),
		rev("r2", "ready", "session_start", "hook", h.clock.Now()), rev("r3", "ready", "session_start", "hook", h.clock.Now()))
	h.hosted()
	h.remoteEvent("box", rev("r1", "working", "prompt", "hook", h.clock.Now()))
	h.expectHosted("box:r1 working/prompt/hook/hook.prompt@")
	h.clock.Advance(20 * time.Millisecond)
	h.enter("T1", 50*time.Millisecond)
	h.expectHosted("box:r1 working/prompt/hook/remote.bind.submit_late@T1")
	if c := h.sync().Counters; c.BindsSubmit != 1 || c.SubmitToTurnLastMs != 30 {
		t.Fatalf("counters %+v", c)
	}
	h.enter("T1", 0) // bound: its Enters are the session's
	h.expectHosted()

	// An Enter after the turn began (a prompt typed while it runs).
	h.remoteEvent("box", rev("r2", "working", "prompt", "hook", h.clock.Now()))
	h.expectHosted("box:r2 working/prompt/hook/hook.prompt@")
	h.clock.Advance(time.Second)
	h.enter("T2", 0)
	h.expectHosted()

	// Two turn starts this Enter could have made: neither is bound.
	h.clock.Advance(time.Minute) // T2's Enter is nobody's now
	h.remoteEvent("box", rev("r3", "working", "prompt", "hook", h.clock.Now()))
	h.remoteEvent("box", rev("r2", "done", "turn_end", "hook", h.clock.Now()))
	h.remoteEvent("box", rev("r2", "working", "prompt", "hook", h.clock.Now().Add(time.Millisecond)))
	h.hosted()
	h.clock.Advance(20 * time.Millisecond)
	h.enter("T3", 40*time.Millisecond)
	h.expectHosted()
	if c := h.sync().Counters; c.BindsSubmit != 1 || c.BindsAmbiguous != 1 {
		t.Fatalf("counters %+v", c)
	}
}

func TestRemoteAck(t *testing.T) {
	h := newHarness(t, Config{})
	s := &sender{}
	h.r.remotes = s // before any ack: the relay reads it on its own goroutine
	h.remoteUp("box", rev("r1", "done", "turn_end", "hook", h.clock.Now()))
	h.remoteUp("vm", rev("r2", "done", "turn_end", "hook", h.clock.Now()), rev("r1", "done", "turn_end", "hook", h.clock.Now()))
	h.hosted()
	if err := h.r.AckHost(h.ctx, "", "r2"); err != nil {
		t.Fatal(err)
	}
	if err := h.r.AckHost(h.ctx, "box", "r1"); err != nil {
		t.Fatal(err)
	}
	// Forwarded only: the remote's change answers it.
	h.expectHosted()
	if err := h.r.AckHost(h.ctx, "", "r1"); err == nil || !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "name the host") {
		t.Fatalf("ack of an id two remotes have: %v", err)
	}
	if err := h.r.AckHost(h.ctx, "box", "r9"); !errors.Is(err, ErrUnknownSession) {
		t.Fatalf("ack of an unknown remote session: %v", err)
	}
	h.remote(RemoteUpdate{Remote: "vm", Kind: RemoteDown, Error: "lost"})
	if err := h.r.AckHost(h.ctx, "vm", "r2"); !errors.Is(err, ErrRemoteDown) {
		t.Fatalf("ack through a link that is down: %v", err)
	}
	h.sync()
	s.mu.Lock()
	defer s.mu.Unlock()
	if got := strings.Join(s.sent, " | "); got != "vm ack r2 | box ack r1" {
		t.Fatalf("forwarded: %q", got)
	}
}

// A remote that sends sessions without end costs it, not this daemon: past
// maxRemoteSessions (here 50) new ones are counted and dropped.
func TestRemoteSessionsBounded(t *testing.T) {
	h := newHarness(t, Config{})
	h.r.m.rem.cap = 50 // before the first input: the relay reads it after
	const maxRemoteSessions = 50
	evs := make([]Event, maxRemoteSessions+5)
	for i := range evs {
		evs[i] = rev(fmt.Sprintf("r%05d", i), "ready", "session_start", "hook", h.clock.Now())
	}
	h.remoteUp("box", evs...)
	st := h.sync()
	if st.Remotes[0].Sessions != maxRemoteSessions || st.Remotes[0].Dropped != 5 || len(st.Sessions) != maxRemoteSessions {
		t.Fatalf("kept %d, dropped %d, shown %d", st.Remotes[0].Sessions, st.Remotes[0].Dropped, len(st.Sessions))
	}
	// The ones kept still move.
	h.hosted()
	h.remoteEvent("box", rev("r00000", "working", "prompt", "hook", h.clock.Now()))
	h.expectHosted("box:r00000 working/prompt/hook/hook.prompt@")
}

// A snapshot arrives in parts (a remote may announce more than it sends):
// each part shows at once, the cap holds across them, and only the last
// part ends the sessions the snapshot lacks. A line the link skipped is
// counted in the remote's status.
func TestRemoteSnapshotInParts(t *testing.T) {
	h := newHarness(t, Config{})
	h.r.m.rem.cap = 4 // before the first input: the relay reads it after
	now := h.clock.Now()
	h.remoteUp("box", rev("old", "done", "turn_end", "hook", now))
	h.hosted()
	h.remote(RemoteUpdate{Remote: "box", Kind: RemoteDown, Error: "gone"})
	h.hosted()
	h.remote(RemoteUpdate{Remote: "box", Kind: RemoteUp, Version: "v1", Protocol: Protocol})
	part := func(more bool, ids ...string) {
		var evs []Event
		for _, id := range ids {
			evs = append(evs, rev(id, "working", "prompt", "hook", now))
		}
		h.remote(RemoteUpdate{Remote: "box", Kind: RemoteSnapshot, Events: evs, More: more})
	}
	part(true, "a", "b")
	h.expectHosted("box:a working/prompt/hook/hook.prompt@", "box:b working/prompt/hook/hook.prompt@")
	part(true, "c", "d") // "old" is one of the four kept till the end: d is past the cap
	h.expectHosted("box:c working/prompt/hook/hook.prompt@")
	h.remote(RemoteUpdate{Remote: "box", Kind: RemoteSkipped, Error: "bad event from the remote: no session id"})
	part(false, "a")
	h.expectHosted("box:old ended/gone_from_host/remote/remote.gone@")
	st := h.sync()
	if r := st.Remotes[0]; r.Sessions != 3 || r.Dropped != 1 || r.Skipped != 1 || len(st.Sessions) != 3 {
		t.Fatalf("kept %d, dropped %d, skipped %d, shown %d", r.Sessions, r.Dropped, r.Skipped, len(st.Sessions))
	}
}

// A remote's interrupt its hook reported (OpenCode's plugin there) confirms
// a key here as key+hook, as for a local session.
func TestRemoteKeyConfirmedByHook(t *testing.T) {
	h := newHarness(t, Config{})
	h.remoteUp("box", rev("r1", "ready", "session_start", "hook", h.clock.Now()))
	h.hosted()
	h.enter("T1", 0)
	h.clock.Advance(80 * time.Millisecond)
	h.remoteEvent("box", rev("r1", "working", "prompt", "hook", h.clock.Now()))
	h.expectHosted("box:r1 working/prompt/hook/hook.prompt@T1")
	must(t, h.r.Key(h.ctx, "T1", KeyEsc, h.clock.Now()))
	h.clock.Advance(300 * time.Millisecond)
	h.remoteEvent("box", rev("r1", "ready", "interrupted", "hook", h.clock.Now()))
	h.expectHosted("box:r1 ready/interrupted/key+hook/key.confirmed@T1")
	if c := h.sync().Counters; c.InterruptsConfirmed != 1 || c.InterruptsUnconfirmed != 0 {
		t.Fatalf("counters %+v", c)
	}
}

// BenchmarkEnterBesideRemotes is an Enter's report (the key op) with a
// remote host's 20 000 sessions kept, none waiting for its submit: what
// remote.bind.submit_late adds to every Enter. (Looking at each session
// kept, it took 0.45 ms an Enter; it looks at recent unbound turn starts
// only.)
func BenchmarkEnterBesideRemotes(b *testing.B) {
	r := New(DefaultConfig(), nil, nil, zerolog.Nop())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.Run(ctx)
	evs := make([]Event, 20000)
	for i := range evs {
		evs[i] = rev(fmt.Sprintf("r%05d", i), "done", "turn_end", "hook", time.Now())
	}
	r.Remote(RemoteUpdate{Remote: "box", Dest: "me@box", Kind: RemoteUp, Version: "v1", Protocol: Protocol})
	for i := 0; i < len(evs); i += 256 {
		r.Remote(RemoteUpdate{Remote: "box", Kind: RemoteSnapshot, Events: evs[i:min(i+256, len(evs))], More: i+256 < len(evs)})
	}
	if st, err := r.Status(ctx); err != nil || len(st.Sessions) != len(evs) {
		b.Fatalf("%d sessions, %v", len(st.Sessions), err)
	}
	for b.Loop() {
		if err := r.Key(ctx, "T1", KeyEnter, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
}
