package doctor

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/notify/command"
	"github.com/logwatch/logwatch/notify/webhook"
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
	f := checkNotify(env)
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
	if f := checkNotify(Env{Sink: build}); f.Status != Skip || !strings.Contains(f.Fix, "notify install") {
		t.Fatalf("no sinks: %+v", f)
	}
}
