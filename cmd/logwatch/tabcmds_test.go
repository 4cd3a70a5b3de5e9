package main

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestVerbFlags: what key, ack, tab-closed, status and events hand to
// their run, and the flags they refuse with exit 2 before reaching the
// daemon (-1: cobra's own refusal, a usage error for main).
func TestVerbFlags(t *testing.T) {
	for _, tc := range []struct {
		verb, tab string // tab: $LOGWATCH_TAB
		args      []string
		code      int
		want      any
	}{
		{verb: "key", args: []string{"--tab", "T1", "--pid", "42", "ESC"}, want: keyOptions{Tab: "T1", Pid: 42, Key: "esc"}},
		{verb: "key", tab: "T9", args: []string{"ctrl-c"}, want: keyOptions{Tab: "T9", Key: "ctrl-c"}},
		{verb: "key", tab: "T9", args: []string{"--tab", "T1", "enter"}, want: keyOptions{Tab: "T1", Key: "enter"}},
		{verb: "key", args: []string{"esc"}, code: exitUsage},
		{verb: "key", args: []string{"--tab", "T1", "space"}, code: exitUsage},
		{verb: "key", args: []string{"--tab", "T1", "--pid", "-1", "esc"}, code: exitUsage},
		{verb: "key", args: []string{"--tab", "T1"}, code: -1},
		{verb: "ack", args: []string{"--session", "a1f0"}, want: ackOptions{Session: "a1f0"}},
		{verb: "ack", code: exitUsage},
		{verb: "tab-closed", args: []string{"--tab", "T1", "--pid", "7"}, want: tabClosedOptions{Tab: "T1", Pid: 7}},
		{verb: "tab-closed", code: exitUsage},
		{verb: "tab-closed", args: []string{"--tab", "T1", "--pid", "-3"}, code: exitUsage},
		{verb: "status", args: []string{"--all", "-w"}, want: statusOptions{All: true, Watch: true}},
		{verb: "status", args: []string{"--json"}, want: statusOptions{JSON: true}},
		{verb: "status", args: []string{"--watch", "--json"}, code: exitUsage},
		{verb: "events", args: []string{"--json"}, want: eventsOptions{JSON: true}},
	} {
		t.Setenv("LOGWATCH_TAB", tc.tab)
		var ran any
		a := &app{}
		cmd := map[string]func() *cobra.Command{
			"key": func() *cobra.Command {
				return newKeyCmd(a, func(o *keyOptions) error {
					if time.Since(o.At) > time.Minute {
						t.Errorf("key %v: the press is stamped %v", tc.args, o.At)
					}
					k := *o
					k.At = time.Time{}
					ran = k
					return nil
				})
			},
			"ack": func() *cobra.Command { return newAckCmd(a, func(o *ackOptions) error { ran = *o; return nil }) },
			"tab-closed": func() *cobra.Command {
				return newTabClosedCmd(a, func(o *tabClosedOptions) error { ran = *o; return nil })
			},
			"status": func() *cobra.Command { return newStatusCmd(a, func(o *statusOptions) error { ran = *o; return nil }) },
			"events": func() *cobra.Command { return newEventsCmd(a, func(o *eventsOptions) error { ran = *o; return nil }) },
		}[tc.verb]()
		cmd.SetArgs(tc.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		code := exitOK
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		} else if err != nil {
			code = -1
		}
		if code != tc.code || ran != tc.want {
			t.Errorf("%s %v: exit %d (%v), ran with %+v; want exit %d, %+v", tc.verb, tc.args, code, err, ran, tc.code, tc.want)
		}
	}
}
