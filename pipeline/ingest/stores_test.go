package ingest

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/opencode"
	"github.com/logwatch/logwatch/parsers/opencode/store/storetest"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/watcher"
	"github.com/logwatch/logwatch/watcher/storefeed"
)

// TestPumpStores: a session database's rows reach the relay beside the
// watcher's lines, through the real feed, pump and relay over a real
// OpenCode database: its present state at start-up (history: the relay is
// booted only once both sources are), then a prompt and its answer as
// they are written.
func TestPumpStores(t *testing.T) {
	root := t.TempDir()
	db := filepath.Join(root, "opencode", "opencode.db")
	w := storetest.NewWriter(t, db)
	s := w.Session("")
	w.Turn(s, 1, 0)
	w.Now = time.Now().UnixMilli()
	w.Tx(func(tx *sql.Tx) { w.Touch(tx, s) }) // changed now: within the start-up read's week

	ctx, r, _ := pumpStore(t, db)
	state := func() string {
		st, err := r.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range st.Sessions {
			if x.Session == s {
				return x.State + "/" + x.Reason
			}
		}
		return "unknown"
	}
	if got := state(); got != "done/turn_end" {
		t.Fatalf("after start-up: %s, want done/turn_end", got)
	}
	waitFor := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for got := state(); got != want; got = state() {
			if time.Now().After(deadline) {
				t.Fatalf("state %s, want %s", got, want)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	w.Prompt(s)
	waitFor("working/prompt")
	w.Finish(s)
	waitFor("done/turn_end")
}

// TestPumpStoresEverySession: at start-up every stored session is known,
// its state folded from its latest turn, however many rows the sessions
// hold in all: here more than 20 000, the newest session's turn alone
// (once, a start-up read of 20 000 rows in all, newest sessions first,
// knew only that one).
func TestPumpStoresEverySession(t *testing.T) {
	root := t.TempDir()
	db := filepath.Join(root, "opencode", "opencode.db")
	w := storetest.NewWriter(t, db)
	w.Now = time.Now().Add(-time.Hour).UnixMilli()
	const n = 30
	want := map[string]string{}
	w.Batch(func() {
		for i := 0; i < n; i++ {
			s := w.Session("")
			w.Turn(s, 2, 1)
			want[s] = "done/turn_end"
		}
	})
	long := w.Session("")
	w.Prompt(long)
	w.Stream(long, 20001)
	want[long] = "working/prompt"

	ctx, r, feed := pumpStore(t, db)
	st, err := r.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, x := range st.Sessions {
		got[x.Session] = x.State + "/" + x.Reason
	}
	for s, w := range want {
		if got[s] != w {
			t.Errorf("%s: %q after start-up, want %s", s, got[s], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d sessions known, want %d", len(got), len(want))
	}
	if rows := feed.Stats().Rows; rows > int64(len(want))*(16+1) {
		t.Errorf("%d rows read at start-up, over 17 a session", rows)
	}
}

// pumpStore runs the daemon's pipeline over the OpenCode database db (a
// watcher with no log root, the store feed, the pump, a relay) until the
// test ends, and returns once the relay has booted, with the feed.
func pumpStore(t *testing.T, db string) (context.Context, *relay.Relay, *storefeed.Feed) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	wt, err := watcher.New(watcher.Config{Roots: map[parsers.Agent][]string{}}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	feed := storefeed.New(storefeed.Config{Roots: map[parsers.Agent][]string{opencode.Name: {filepath.Dir(db)}}}, zerolog.Nop())
	r := relay.New(relay.Config{}, relay.SystemClock{}, wt, zerolog.Nop())
	go r.Run(ctx)
	go wt.Run(ctx)
	go feed.Run(ctx)
	go Pump(ctx, wt, r, Options{Stores: feed})
	select {
	case <-r.Booted():
	case <-time.After(20 * time.Second):
		t.Fatal("the relay never booted")
	}
	return ctx, r, feed
}
