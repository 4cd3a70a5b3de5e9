//go:build !darwin

package desktop

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/desktoptest"
	"github.com/logwatch/logwatch/notify"
)

// wait bounds how long the real server may take to answer or to show.
const wait = 10 * time.Second

func call(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

// waiting is a permission wait of session key, detail its text.
func waiting(key, title, detail string) notify.Alert {
	return notify.Alert{Key: key, Session: key, Agent: "claude", Title: title, State: "waiting",
		Reason: "permission", Detail: detail, Cwd: "/src/api", Since: time.Unix(1700000000, 0)}
}

// notifies are the Notify calls seen, with the id each was given.
func notifies(ev []desktoptest.Event) []desktoptest.Event {
	var out []desktoptest.Event
	for _, e := range ev {
		if e.Member == "Notify" {
			out = append(out, e)
		}
	}
	return out
}

func has(member string, id uint32, reason uint32) func([]desktoptest.Event) bool {
	return func(ev []desktoptest.Event) bool {
		return slices.ContainsFunc(ev, func(e desktoptest.Event) bool {
			return e.Member == member && e.ID == id && (reason == 0 || e.Reason == reason)
		})
	}
}

func nNotifies(n int) func([]desktoptest.Event) bool {
	return func(ev []desktoptest.Event) bool {
		got := notifies(ev)
		return len(got) >= n && got[n-1].ID != 0
	}
}

// displayed waits until dunst shows n notifications.
func displayed(t *testing.T, srv *desktoptest.Server, n int) {
	t.Helper()
	srv.WaitDisplayed(n, wait)
}

// fresh clears dunst for a subtest and returns a sink on its bus.
func fresh(t *testing.T, srv *desktoptest.Server, cfg Config) *Sink {
	t.Helper()
	srv.Dunstctl("close-all")
	displayed(t, srv, 0)
	cfg.Address = srv.Address
	s := New(cfg, zerolog.Nop())
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestSink(t *testing.T) {
	srv := desktoptest.Start(t)

	// A waiting alert appears with its title and reason; the session's next
	// alert replaces it (the same notification); another session's is its
	// own; moving on closes it, and only it.
	t.Run("appear, replace, close", func(t *testing.T) {
		s := fresh(t, srv, Config{})
		before := len(notifies(srv.Events()))
		if err := s.Show(call(t), waiting("a", "fix the flaky test", "Claude needs your permission to use Bash")); err != nil {
			t.Fatal(err)
		}
		ev := notifies(srv.WaitFor(wait, "the first Notify answered", nNotifies(before+1)))
		first := ev[before]
		if first.ReplacesID != 0 || first.Summary != "fix the flaky test — needs your permission" ||
			first.Body != "Claude needs your permission to use Bash" || first.Urgency != urgencyCritical ||
			first.Category != "x-logwatch.waiting" || first.Expire != 0 || !slices.Equal(first.Actions, []string{"default", "Open"}) {
			t.Fatalf("first alert:\n%s", desktoptest.Format([]desktoptest.Event{first}))
		}
		displayed(t, srv, 1)

		if err := s.Show(call(t), waiting("a", "fix the flaky test", "Claude has a question")); err != nil {
			t.Fatal(err)
		}
		ev = notifies(srv.WaitFor(wait, "the replacing Notify answered", nNotifies(before+2)))
		if r := ev[before+1]; r.ReplacesID != first.ID || r.ID != first.ID || r.Body != "Claude has a question" {
			t.Fatalf("the next alert does not replace the first (id %d):\n%s", first.ID, desktoptest.Format(ev[before:]))
		}
		displayed(t, srv, 1)

		if err := s.Show(call(t), waiting("b", "", "Codex asks: go test ./...")); err != nil {
			t.Fatal(err)
		}
		ev = notifies(srv.WaitFor(wait, "the other session's Notify answered", nNotifies(before+3)))
		other := ev[before+2]
		if other.ReplacesID != 0 || other.ID == first.ID || other.Summary != "claude · api — needs your permission" {
			t.Fatalf("another session's alert:\n%s", desktoptest.Format(ev[before:]))
		}
		displayed(t, srv, 2)

		if err := s.Withdraw(call(t), waiting("a", "", "")); err != nil {
			t.Fatal(err)
		}
		srv.WaitFor(wait, "the first alert closed by the call", has("NotificationClosed", first.ID, 3))
		displayed(t, srv, 1)
		if h := srv.History(); len(h) == 0 || h[0].ID != int(first.ID) || h[0].Body != "Claude has a question" {
			t.Errorf("dunst's history does not end with the replaced alert %d: %+v", first.ID, h)
		}
		n := len(srv.Events())
		// A second withdrawal has nothing to close: no call at all.
		if err := s.Withdraw(call(t), waiting("a", "", "")); err != nil {
			t.Fatal(err)
		}
		if s.shownCount() != 1 {
			t.Errorf("the sink remembers %d alerts, want 1 (b's)", s.shownCount())
		}
		if err := s.Withdraw(call(t), waiting("b", "", "")); err != nil {
			t.Fatal(err)
		}
		ev = srv.WaitFor(wait, "the other alert closed", has("NotificationClosed", other.ID, 3))
		for _, e := range ev[n:] {
			if e.Member == "CloseNotification" && e.ID != other.ID {
				t.Errorf("closed %d, which was already withdrawn", e.ID)
			}
		}
		displayed(t, srv, 0)
	})

	// A finished turn is a quiet checkmark: low urgency, the server's own
	// timeout.
	t.Run("done is low", func(t *testing.T) {
		s := fresh(t, srv, Config{})
		before := len(notifies(srv.Events()))
		a := notify.Alert{Key: "d", Agent: "codex", Cwd: "/src/web", State: "done", Reason: "turn_end", Detail: "src/app.ts"}
		if err := s.Show(call(t), a); err != nil {
			t.Fatal(err)
		}
		d := notifies(srv.WaitFor(wait, "the done Notify answered", nNotifies(before+1)))[before]
		if d.Urgency != urgencyLow || d.Category != "x-logwatch.done" || d.Expire != -1 || d.Summary != "codex · web — done" || d.Body != "src/app.ts" {
			t.Fatalf("done alert:\n%s", desktoptest.Format([]desktoptest.Event{d}))
		}
	})

	// dunst reads body markup here (markup = full): text from a log reaches
	// it escaped, so a tag in it is shown, never rendered or followed.
	t.Run("markup stays text", func(t *testing.T) {
		s := fresh(t, srv, Config{})
		if _, caps, err := s.Probe(call(t)); err != nil || !slices.Contains(caps, "body-markup") {
			t.Fatalf("dunst does not advertise body-markup: %q %v", caps, err)
		}
		before := len(notifies(srv.Events()))
		if err := s.Show(call(t), waiting("m", "t", `run <b>rm</b> & <a href="http://x">click</a>?`)); err != nil {
			t.Fatal(err)
		}
		m := notifies(srv.WaitFor(wait, "the Notify answered", nNotifies(before+1)))[before]
		if want := `run &lt;b&gt;rm&lt;/b&gt; &amp; &lt;a href="http://x"&gt;click&lt;/a&gt;?`; m.Body != want {
			t.Fatalf("body sent %q, want %q", m.Body, want)
		}
	})

	// An alert the person dismissed is gone: the session's next alert is a
	// new one, not a replacement of nothing.
	t.Run("dismissed is forgotten", func(t *testing.T) {
		s := fresh(t, srv, Config{})
		before := len(notifies(srv.Events()))
		if err := s.Show(call(t), waiting("x", "t", "first")); err != nil {
			t.Fatal(err)
		}
		first := notifies(srv.WaitFor(wait, "answered", nNotifies(before+1)))[before]
		displayed(t, srv, 1)
		srv.Dunstctl("close")
		srv.WaitFor(wait, "dismissed", has("NotificationClosed", first.ID, 2))
		deadline := time.Now().Add(wait)
		for s.shownCount() != 0 {
			if time.Now().After(deadline) {
				t.Fatal("the sink still remembers the dismissed alert")
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := s.Show(call(t), waiting("x", "t", "second")); err != nil {
			t.Fatal(err)
		}
		if next := notifies(srv.WaitFor(wait, "answered", nNotifies(before+2)))[before+1]; next.ReplacesID != 0 {
			t.Errorf("the next alert replaces %d, which the person dismissed", next.ReplacesID)
		}
		displayed(t, srv, 1)
	})

	// A click on the alert (dunst's default action) names its session.
	t.Run("activated", func(t *testing.T) {
		got := make(chan notify.Alert, 1)
		s := fresh(t, srv, Config{Activated: func(a notify.Alert) { got <- a }})
		if err := s.Show(call(t), waiting("k", "jump here", "question")); err != nil {
			t.Fatal(err)
		}
		displayed(t, srv, 1)
		srv.Dunstctl("action", "0")
		select {
		case a := <-got:
			if a.Key != "k" || a.Title != "jump here" {
				t.Errorf("activated %+v, want session k", a)
			}
		case <-time.After(wait):
			t.Fatalf("no activation; the bus saw:\n%s", desktoptest.Format(srv.Events()))
		}
	})

	// Past the bound the oldest session's alert is closed, never left
	// on screen untracked.
	t.Run("bounded", func(t *testing.T) {
		s := fresh(t, srv, Config{MaxAlerts: 2})
		before := len(notifies(srv.Events()))
		for _, k := range []string{"1", "2", "3"} {
			if err := s.Show(call(t), waiting(k, "t"+k, "r")); err != nil {
				t.Fatal(err)
			}
		}
		oldest := notifies(srv.WaitFor(wait, "answered", nNotifies(before+3)))[before]
		srv.WaitFor(wait, "the oldest closed", has("NotificationClosed", oldest.ID, 3))
		displayed(t, srv, 2)
		if s.shownCount() != 2 {
			t.Errorf("remembers %d alerts, want 2", s.shownCount())
		}
	})

	t.Run("probe", func(t *testing.T) {
		s := fresh(t, srv, Config{})
		server, caps, err := s.Probe(call(t))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(server, "dunst ") || !slices.Contains(caps, "body-markup") || !slices.Contains(caps, "actions") {
			t.Errorf("probe = %q %q", server, caps)
		}
	})

	// Every call keeps to its deadline.
	t.Run("deadline", func(t *testing.T) {
		s := fresh(t, srv, Config{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := s.Show(ctx, waiting("late", "t", "r")); !errors.Is(err, context.Canceled) {
			t.Errorf("Show with an ended context: %v, want context.Canceled", err)
		}
	})
}

// A session bus that drops and comes back costs a reconnection, not an
// alert.
func TestSinkReconnects(t *testing.T) {
	srv := desktoptest.Start(t)
	s := New(Config{Address: srv.Address}, zerolog.Nop())
	defer s.Close()
	if err := s.Show(call(t), waiting("a", "t", "before")); err != nil {
		t.Fatal(err)
	}
	displayed(t, srv, 1)
	srv.StopBus()
	srv.StartBus()
	srv.StartDunst()
	if err := s.Show(call(t), waiting("a", "t", "after")); err != nil {
		t.Fatalf("Show after the bus came back: %v", err)
	}
	ev := notifies(srv.WaitFor(wait, "answered on the new bus", nNotifies(1)))
	if ev[0].Body != "after" {
		t.Errorf("new bus saw %q", ev[0].Body)
	}
	displayed(t, srv, 1)
	if err := s.Withdraw(call(t), waiting("a", "", "")); err != nil {
		t.Fatal(err)
	}
	displayed(t, srv, 0)
}

// Without a session bus the error says what to do.
func TestSinkNoBus(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	s := New(Config{}, zerolog.Nop())
	err := s.Show(call(t), waiting("a", "t", "r"))
	if !errors.Is(err, ErrNoBus) || !strings.Contains(err.Error(), "DBUS_SESSION_BUS_ADDRESS") {
		t.Fatalf("Show without a bus: %v", err)
	}
	if _, _, err := s.Probe(call(t)); !errors.Is(err, ErrNoBus) {
		t.Fatalf("Probe without a bus: %v", err)
	}
}
