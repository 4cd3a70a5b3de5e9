package doctor

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/notify/command"
	"github.com/logwatch/logwatch/notify/webhook"
	"github.com/logwatch/logwatch/relay/wire"
)

// TestCheckNotify: each sink is probed as the daemon would build it (a real
// command lookup, a real HTTP server), and a broken one gets its fix.
func TestCheckNotify(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer up.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(502) }))
	defer down.Close()
	build := func(s config.SinkConfig) (Prober, error) {
		switch s.Type {
		case config.SinkCommand:
			return command.New(s.Command, false)
		case config.SinkWebhook:
			return webhook.New(webhook.Config{URL: s.URL})
		}
		return nil, errors.New("no desktop here")
	}
	env := Env{Sink: build, Sinks: []config.SinkConfig{
		{Type: config.SinkCommand, Command: []string{"sh", "-c", "true"}},
		{Type: config.SinkCommand, Command: []string{"/nonexistent/lw-bell"}},
		{Type: config.SinkWebhook, URL: up.URL + "/secret-topic"},
		{Type: config.SinkWebhook, URL: down.URL + "/secret-topic"},
		{Type: config.SinkDesktop},
	}}
	f := checkNotify(env, nil)
	if f.Status != Fail || f.Summary != "2 of 5 notification sinks work" {
		t.Fatalf("%s: %s", f.Status, f.Summary)
	}
	all := strings.Join(f.Details, "\n") + "\n" + f.Fix
	for _, want := range []string{"sinks[0] command: works", "sinks[1] command:", "sinks[2] webhook: works", "sinks[3] webhook:", "502",
		"sinks[4] desktop: no desktop here", "name an executable command", "check the URL answers", "DBUS_SESSION_BUS_ADDRESS"} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in\n%s", want, all)
		}
	}
	if strings.Contains(all, "secret-topic") {
		t.Errorf("a topic was printed:\n%s", all)
	}
	if f := checkNotify(Env{Sink: build}, nil); f.Status != Skip || !strings.Contains(f.Fix, "notify install") {
		t.Fatalf("no sinks: %+v", f)
	}
}

// TestCheckNotifyDaemonFailures: a sink that probes fine now but whose
// calls failed (or were dropped) in the running daemon is a warning with
// its last error and the fix; a daemon whose sinks all went through is not.
func TestCheckNotifyDaemonFailures(t *testing.T) {
	build := func(s config.SinkConfig) (Prober, error) { return command.New(s.Command, false) }
	env := Env{Sink: build, Sinks: []config.SinkConfig{{Type: config.SinkCommand, Command: []string{"sh", "-c", "true"}}}}
	at := time.Date(2026, 12, 5, 4, 30, 0, 0, time.UTC)
	clean := &wire.Status{Notify: []wire.SinkStats{{Name: "command", Shown: 3, Withdrawn: 2}}}
	if f := checkNotify(env, clean); f.Status != OK || f.Fix != "" {
		t.Fatalf("clean daemon: %+v", f)
	}
	failed := &wire.Status{Notify: []wire.SinkStats{{Name: "command", Shown: 1, Failed: 2, LastError: "/usr/local/bin/lw-bell: exit status 1", LastErrorAt: &at},
		{Name: "webhook", Dropped: 4, LastError: "POST https://ntfy.example/secret-topic: 403 Forbidden", LastErrorAt: &at}}}
	f := checkNotify(env, failed)
	all := strings.Join(f.Details, "\n") + "\n" + f.Fix
	if f.Status != Warn || f.Summary != "1 of 1 notification sinks work, but 2 failed in the running daemon" {
		t.Fatalf("%s: %s\n%s", f.Status, f.Summary, all)
	}
	for _, want := range []string{"command sink since it started: 1 shown, 2 failed", "lw-bell: exit status 1", "exits 0 within notify.timeout",
		"webhook sink since it started: 0 shown, 0 failed, 4 dropped", "403 Forbidden", "faster than the sink took them"} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in\n%s", want, all)
		}
	}
	if strings.Contains(all, "secret-topic") {
		t.Errorf("a topic was printed:\n%s", all)
	}
}
