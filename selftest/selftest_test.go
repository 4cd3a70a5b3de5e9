package selftest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/parsers"
	_ "github.com/logwatch/logwatch/parsers/all"
	"github.com/logwatch/logwatch/selftest/driver"
	"github.com/logwatch/logwatch/selftest/fakemodel"
)

var _ driver.TB = (*runT)(nil)

// TestRunTFatal: Fatalf ends the scenario where it is called, as testing's
// does; the cleanups run last first, a Fatal in one ends only that one,
// and a panic is a failure.
func TestRunTFatal(t *testing.T) {
	rt := newRunT(context.Background(), "x")
	var order []string
	rt.run(func() {
		rt.Cleanup(func() { order = append(order, "first") })
		rt.Cleanup(func() { rt.Fatalf("cleanup failed"); order = append(order, "never") })
		rt.Cleanup(func() { order = append(order, "last") })
		rt.Fatalf("stop %d", 1)
		order = append(order, "after fatal")
	})
	if got := strings.Join(order, ","); got != "last,first" {
		t.Errorf("ran %q, want last,first", got)
	}
	if !rt.Failed() || rt.firstError() != "stop 1" {
		t.Errorf("failed %v, first error %q", rt.Failed(), rt.firstError())
	}
	p := newRunT(context.Background(), "p")
	p.run(func() { panic("boom") })
	if !p.Failed() || !strings.Contains(p.firstError(), "boom") {
		t.Errorf("a panic: failed %v %q", p.Failed(), p.firstError())
	}
}

// TestEveryAgentHasAFake: each agent selftest can drive speaks an API a
// fake serves, and names its screens and keys.
func TestEveryAgentHasAFake(t *testing.T) {
	n := 0
	for _, s := range parsers.All() {
		o := s.Offline
		if o == nil {
			continue
		}
		n++
		if s.Bin == "" || o.Setup == nil || o.Start == nil || o.Interrupt == "" || o.Quit == "" || (o.Permission != "") != (o.Approve != "") {
			t.Errorf("%s: incomplete Offline %+v", s.Name, o)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		f, err := fakemodel.Start(ctx, o.Model, t.TempDir())
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
		} else {
			f.Close()
		}
		cancel()
	}
	if n < 2 {
		t.Errorf("%d agents selftest can drive", n)
	}
}

// TestWriteText: a failure's reason is under its row, escaped; the folder
// to attach is named.
func TestWriteText(t *testing.T) {
	r := &Report{Results: []Result{
		{Agent: "claude", Version: "9.9.9\x1b[2J", Scenario: "esc", Result: Fail, Error: "want ready/interrupted\nmore",
			Published: []Change{{State: "working", Reason: "prompt"}}, Took: time.Second},
		{Agent: "claude", Version: "9.9.9", Scenario: "permission", Result: Skipped},
	}, Kept: "/tmp/x"}
	var b strings.Builder
	r.WriteText(&b)
	out := b.String()
	for _, want := range []string{"↳ want ready/interrupted", "working/prompt", "attach the folder /tmp/x", "1 of 1 scenarios failed", "(the agent has none)"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") || strings.Contains(out, "more") {
		t.Errorf("unescaped or multi-line:\n%q", out)
	}
	if r.Passed() {
		t.Error("a failed report passed")
	}
}

// TestFindUnknownAgent: a misspelt agent is refused with the one meant.
func TestFindUnknownAgent(t *testing.T) {
	_, err := Find(context.Background(), []string{"cluade"}, "")
	if err == nil || !strings.Contains(err.Error(), `unknown agent "cluade", did you mean claude?`) {
		t.Fatalf("got %v", err)
	}
}
