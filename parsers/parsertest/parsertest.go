// Package parsertest holds what the agents' parser tests share: evidence
// checks, the fuzz invariants, and the scan-path-against-parse check.
package parsertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/logwatch/logwatch/parsers"
)

// Want is the evidence a line must give (empty strings: not checked).
type Want struct {
	Kind      parsers.Kind
	Typ       string
	Unknown   bool
	Interrupt string
	End       parsers.End
	Trigger   string
	Tool      string
	Final     bool
	Retry     bool
	Pending   int
	Session   string
	// hasPending: the line states the background counts (every turn_duration).
	HasPending bool
}

// Check fails t where ev differs from w.
func Check(t *testing.T, ev parsers.Evidence, w Want) {
	t.Helper()
	if ev.Kind != w.Kind {
		t.Errorf("kind = %v, want %v", ev.Kind, w.Kind)
	}
	if w.Typ != "" && ev.Type != w.Typ {
		t.Errorf("type = %q, want %q", ev.Type, w.Typ)
	}
	if ev.Unknown != w.Unknown {
		t.Errorf("unknown = %v, want %v", ev.Unknown, w.Unknown)
	}
	if ev.Interrupt != w.Interrupt {
		t.Errorf("interrupt = %q, want %q", ev.Interrupt, w.Interrupt)
	}
	if ev.End != w.End {
		t.Errorf("end = %q, want %q", ev.End, w.End)
	}
	if ev.Trigger != w.Trigger {
		t.Errorf("trigger = %q, want %q", ev.Trigger, w.Trigger)
	}
	if ev.Tool != w.Tool {
		t.Errorf("tool = %q, want %q", ev.Tool, w.Tool)
	}
	if ev.Retry != w.Retry {
		t.Errorf("retry = %v, want %v", ev.Retry, w.Retry)
	}
	if ev.Final != w.Final {
		t.Errorf("final = %v, want %v", ev.Final, w.Final)
	}
	if ev.PendingAgents+ev.PendingWorkflows != w.Pending {
		t.Errorf("pending = %d, want %d", ev.PendingAgents+ev.PendingWorkflows, w.Pending)
	}
	if ev.HasPending != w.HasPending {
		t.Errorf("has pending = %v, want %v", ev.HasPending, w.HasPending)
	}
	if w.Session != "" && ev.SessionID != w.Session {
		t.Errorf("session = %q, want %q", ev.SessionID, w.Session)
	}
}

// Fuzz checks what must hold for any input: no panic, valid JSON
// objects are never called malformed, and an interrupt is only ever reported
// for a line that holds the exact marker as a whole JSON string.
func Fuzz(t *testing.T, p parsers.Parser, line []byte, markers ...string) {
	ev, err := p.Parse(line)
	trimmed := bytes.TrimSpace(line)
	if err != nil {
		if !errors.Is(err, parsers.ErrMalformed) {
			t.Fatalf("error %v is not parsers.ErrMalformed", err)
		}
		if json.Valid(line) && len(trimmed) > 0 && trimmed[0] == '{' {
			t.Fatalf("valid JSON object reported malformed: %q", line)
		}
		return
	}
	if ev.Kind != parsers.KindInterrupt {
		return
	}
	for _, m := range markers {
		q, _ := json.Marshal(m)
		if bytes.Contains(line, q) {
			return
		}
	}
	// The marker may be written with escapes; decode to be sure.
	var v any
	if json.Unmarshal(line, &v) == nil && containsString(v, markers) {
		return
	}
	t.Fatalf("interrupt %q reported for a line without the exact marker: %q", ev.Interrupt, line)
}

func containsString(v any, want []string) bool {
	switch x := v.(type) {
	case string:
		for _, w := range want {
			if x == w {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if containsString(e, want) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if containsString(e, want) {
				return true
			}
		}
	}
	return false
}

// parseRef is each parser's whole-document path, the reference for the scan
// path and for the prepared one (Preparer, then ParseScanned): the same
// evidence for every line, in every parser state.
func parseRef(p parsers.Parser) func([]byte) (parsers.Evidence, error) {
	full, ok := p.(interface {
		ParseFull([]byte) (parsers.Evidence, error)
	})
	if !ok {
		panic("parser has no ParseFull reference path")
	}
	return full.ParseFull
}

// Same feeds lines to a parser and to its reference in step.
func Same(t *testing.T, newParser func() parsers.Parser, name string, lines [][]byte) {
	t.Helper()
	fast, ref, split := newParser(), newParser(), newParser().(parsers.ScanParser)
	agent := fast.Agent()
	refParse := parseRef(ref)
	pr := split.NewPreparer()
	var s parsers.Scanned
	for i, l := range lines {
		got, gerr := fast.Parse(l)
		want, werr := refParse(l)
		if !reflect.DeepEqual(got, want) || gerr != werr {
			t.Fatalf("%s: %s line %d: scan path %+v, %v; full parse %+v, %v", name, agent, i+1, got, gerr, want, werr)
		}
		pr.Prepare(l, &s)
		got, gerr = split.ParseScanned(l, &s)
		if !reflect.DeepEqual(got, want) || gerr != werr {
			t.Fatalf("%s: %s line %d: prepared %+v, %v; full parse %+v, %v", name, agent, i+1, got, gerr, want, werr)
		}
	}
}
