package relay

import "testing"

// TestSaveChangedByUnpublishedHook: a hook can change what a checkpoint
// holds without publishing anything (a SubagentStart while working books a
// subagent), and the periodic checkpoint is only rewritten when Save says
// Changed. Without it, a kill -9 any time later would restore the session
// without its subagent, and the Stop hook would then say done too early.
func TestSaveChangedByUnpublishedHook(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	save := func() Saved {
		got := make(chan Saved, 1)
		h.r.Save(func(s Saved) { got <- s })
		return <-got
	}
	must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
	h.expect("working/prompt/hook.prompt")
	if !save().Changed {
		t.Fatal("a published change is not Changed")
	}
	if save().Changed {
		t.Fatal("Changed twice with nothing in between")
	}
	must(t, h.hook("", "claude", claudeHook("SubagentStart", "s", "agent_id", "a1")))
	h.expect() // nothing published
	if !save().Changed {
		t.Fatal("a SubagentStart booked a subagent, yet Save says nothing changed: a checkpoint would not hold it")
	}
}

// TestSaveChangedOnlyWhenChanged: the periodic checkpoint asks for the
// state only if it changed (SaveChanged), a checkpoint written anyway gets
// it unchanged too (Save): an idle daemon does not encode 10 000 sessions
// every 5 s for nothing, and a final checkpoint never lacks them.
func TestSaveChangedOnlyWhenChanged(t *testing.T) {
	h := newHarness(t, DefaultConfig())
	save := func(f func(func(Saved))) Saved {
		got := make(chan Saved, 1)
		f(func(s Saved) { got <- s })
		return <-got
	}
	must(t, h.hook("", "claude", claudeHook("UserPromptSubmit", "s")))
	h.expect("working/prompt/hook.prompt")
	if s := save(h.r.SaveChanged); !s.Changed || len(s.State) == 0 || s.Marks == nil {
		t.Fatalf("a change: Changed %v, %d bytes of state, marks %v", s.Changed, len(s.State), s.Marks)
	}
	if s := save(h.r.SaveChanged); s.Changed || s.State != nil || s.Marks != nil {
		t.Fatalf("nothing changed, yet Changed %v, %d bytes of state, marks %v", s.Changed, len(s.State), s.Marks)
	}
	if s := save(h.r.Save); s.Changed || len(s.State) == 0 || s.Marks == nil {
		t.Fatalf("Save unchanged: Changed %v, %d bytes of state, marks %v", s.Changed, len(s.State), s.Marks)
	}
}
