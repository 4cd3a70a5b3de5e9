package session

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/parsers/codex"
)

// TestFrozenSize: the point of freezing is its size (the relay keeps one
// per idle session).
func TestFrozenSize(t *testing.T) {
	if n := unsafe.Sizeof(Frozen{}); n > 80 {
		t.Fatalf("Frozen is %d bytes, want ≤ 80", n)
	}
}

// TestFreezeThawRoundTrip walks sessions through random hooks and log
// evidence; after every step a freezable session thaws to exactly itself
// (what View shows too), and the thawed copy then judges the next input as
// the original does. A session that is not freezable is one of the table
// in TestNotFreezable.
func TestFreezeThawRoundTrip(t *testing.T) {
	evs := walkEvidence()
	ids := []string{"s", "0b1e8f3a-5c2d-4e6f-8a9b-0c1d2e3f4a5b", "0B1E8F3A-5C2D-4E6F-8A9B-0C1D2E3F4A5B", "0b1e8f3a_5c2d-4e6f-8a9b-0c1d2e3f4a5b"}
	frozen := 0
	for seed := int64(0); seed < 60; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		agent := claude.Name
		if seed%3 == 0 {
			agent = codex.Name
		}
		s := New(agent)
		s.ID = ids[seed%int64(len(ids))]
		for i := 0; i < 80; i++ {
			f, ok := s.Freeze()
			if why := notFreezable(s); ok != (why == "") {
				t.Fatalf("seed %d step %d: Freeze %v, but the table says %q: %+v", seed, i, ok, why, s)
			}
			if ok {
				frozen++
				r := Thaw(&f)
				if !reflect.DeepEqual(r, s) {
					t.Fatalf("seed %d step %d: thawed\n %+v\nwant\n %+v", seed, i, r, s)
				}
				var v Session
				f.View(&v, true)
				if !reflect.DeepEqual(&v, s) || f.ID() != s.ID || f.State() != s.State || f.Cwd() != s.Cwd || f.Phantom() != s.Phantom() {
					t.Fatalf("seed %d step %d: viewed\n %+v\nwant\n %+v", seed, i, v, s)
				}
				s = r // go on with the thawed one: it must behave as the original would
			}
			randomInput(rnd, s.ID, evs)(s)
		}
	}
	if frozen < 1000 {
		t.Fatalf("only %d freezable states visited", frozen)
	}
}

// TestOwnStrings: frozen sessions whose strings were packed into one block
// view and thaw exactly as before, each its own strings (UUID ids have
// none, details may be empty).
func TestOwnStrings(t *testing.T) {
	var ss []*Session
	var fs []Frozen
	for i, c := range []struct{ id, detail, title string }{
		{"ses_00000000feed00000000000001", "bash: go test ./...", "Fix the flaky test"},
		{"0b1e8f3a-5c2d-4e6f-8a9b-0c1d2e3f4a5b", "Read main.go", ""},
		{"ses_00000000feed00000000000002", "", "only a title"},
		{"s", "é ✓", "é ✓"},
		{"s2", "", ""},
	} {
		s := New(claude.Name)
		s.ID, s.Detail, s.Title, s.Turns = c.id, c.detail, c.title, i
		f, ok := s.Freeze()
		if !ok {
			t.Fatalf("%s: not freezable", c.id)
		}
		ss, fs = append(ss, s), append(fs, f)
	}
	OwnStrings(len(fs), func(i int) *Frozen { return &fs[i] })
	for i := range fs {
		if r := Thaw(&fs[i]); !reflect.DeepEqual(r, ss[i]) {
			t.Errorf("%d: thawed\n %+v\nwant\n %+v", i, r, ss[i])
		}
	}
	OwnStrings(0, nil) // nothing to pack
}

// notFreezable is the table of sessions Freeze refuses, with the reason.
func notFreezable(s *Session) string {
	switch {
	case s.ID == "":
		return "no id"
	case len(s.subagents) > 0:
		return "running subagents"
	case s.waitedTool != "":
		return "a registry wait's tool"
	case s.Turns < 0 || s.turn < 0 || s.hook.pos < 0 || s.log.pos < 0 || s.logPending < 0 || s.listed < 0:
		return "a negative counter"
	case s.Turns > 1<<32-1 || s.turn > 1<<32-1 || s.hook.pos > 1<<32-1 || s.log.pos > 1<<32-1:
		return "a turn count past 32 bits"
	case s.logPending > 1<<16-1 || s.listed > 1<<16-1:
		return "a pending count past 16 bits"
	case len(s.Cwd) > maxInternLen || len(s.AgentVersion) > maxInternLen:
		return "a cwd or version too long to intern"
	case len(s.Title) > 255:
		return "a title past 255 bytes"
	}
	return ""
}

// TestNotFreezable: each state the table names stays unfrozen, and a
// session one step away from it freezes.
func TestNotFreezable(t *testing.T) {
	base := func() *Session {
		s := New(claude.Name)
		s.ID = "s1"
		s.Turns, s.turn = 3, 3
		return s
	}
	if _, ok := base().Freeze(); !ok {
		t.Fatal("a plain session is not freezable")
	}
	for name, mod := range map[string]func(*Session){
		"no id":                        func(s *Session) { s.ID = "" },
		"running subagents":            func(s *Session) { s.subagents = map[string]bool{"a1": true} },
		"a registry wait's tool":       func(s *Session) { s.waitedTool = "Bash: ls" },
		"a negative counter":           func(s *Session) { s.logPending = -1 },
		"a turn count past 32 bits":    func(s *Session) { s.Turns = 1 << 33 },
		"a pending count past 16 bits": func(s *Session) { s.listed = 1 << 17 },
		"a cwd too long to intern":     func(s *Session) { s.Cwd = "/" + strings.Repeat("d", maxInternLen) },
		"a title past 255 bytes":       func(s *Session) { s.Title = strings.Repeat("t", 256) },
	} {
		s := base()
		mod(s)
		if _, ok := s.Freeze(); ok {
			t.Errorf("%s: frozen", name)
		}
		if notFreezable(s) == "" {
			t.Errorf("%s: the table does not name it", name)
		}
	}
	// An empty (not nil) subagent set freezes: Pending tells the two apart.
	s := base()
	s.subagents = map[string]bool{}
	s.logPending = 2
	f, ok := s.Freeze()
	if !ok || Thaw(&f).Pending() != 0 {
		t.Fatal("an empty subagent set did not survive freezing")
	}
}

// TestFrozenIDOrder: frozen ids order as the strings do, UUIDs or not.
func TestFrozenIDOrder(t *testing.T) {
	ids := []string{"0b1e8f3a-5c2d-4e6f-8a9b-0c1d2e3f4a5b", "0b1e8f3a-5c2d-4e6f-8a9b-0c1d2e3f4a5c", "f0000000-0000-4000-8000-000000000000",
		"00000000-0000-4000-8000-000000000001", "s1", "0b1e8f3a-5c2d-4e6f-8a9b", "1", "A", "ff"}
	for _, a := range ids {
		sa := New(claude.Name)
		sa.ID = a
		fa, _ := sa.Freeze()
		for _, b := range ids {
			sb := New(claude.Name)
			sb.ID = b
			fb, _ := sb.Freeze()
			k := Key(b)
			if got, want := fa.CompareID(&k), compare(a, b); got != want {
				t.Errorf("CompareID(%s, %s) = %d, want %d", a, b, got, want)
			}
			if got, want := fa.Compare(&fb), compare(a, b); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
}
