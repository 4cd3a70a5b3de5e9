package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/parsers/opencode/store/storetest"
)

// TestE2EOpenCodeDatabaseReplaced (issue 32 item 9): another database of
// 500 finished sessions (300 of them 30 days old) is moved over
// opencode.db while the daemon runs. It is read as at start-up: the
// sessions changed in the last week become known, each once and as
// bootstrap, the old ones not at all; no live change is published (it
// published 1 500, three per session, as live turns).
func TestE2EOpenCodeDatabaseReplaced(t *testing.T) {
	e := newE2E(t, nil, "LOGWATCH_LOG_LEVEL=info")
	dir := filepath.Join(e.dir, "home", ".local", "share", "opencode")
	db := filepath.Join(dir, "opencode.db")
	w := storetest.NewWriter(t, db)
	w.Now = time.Now().UnixMilli()
	first := w.Session("")
	w.Turn(first, 1, 0)
	e.start()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasPrefix(view(t, e.status(), first), "done/") {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s, want done", first, view(t, e.status(), first))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// OpenCode quits (its close checkpoints and removes the WAL); another
	// machine's database is moved in.
	w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	w.Close()
	next := filepath.Join(dir, "next.db")
	o := storetest.NewWriter(t, next)
	old := map[string]bool{}
	recent := map[string]bool{}
	o.Batch(func() {
		for i := range 500 {
			o.Now = time.Now().Add(-time.Hour).UnixMilli()
			if i < 300 {
				o.Now = time.Now().Add(-30 * 24 * time.Hour).UnixMilli()
			}
			s := o.Session("")
			o.Turn(s, 1, 1)
			if i < 300 {
				old[s] = true
			} else {
				recent[s] = true
			}
		}
	})
	o.Close()
	for _, sfx := range []string{"-wal", "-shm"} {
		os.Remove(next + sfx)
	}
	if err := os.Rename(next, db); err != nil {
		t.Fatal(err)
	}
	// Every recent session becomes known; then nothing more comes.
	seen := map[string]int{}
	var live []string
	quiet := time.After(30 * time.Second)
	for len(seen) < len(recent) || quiet != nil {
		select {
		case ev := <-e.events:
			id, _ := ev["session"].(string)
			if id == first {
				continue
			}
			seen[id]++
			if ev["bootstrap"] != true || old[id] || !recent[id] {
				live = append(live, id+" "+ev["state"].(string)+" "+ev["rule"].(string))
			}
			if len(seen) == len(recent) {
				quiet = time.After(time.Second)
			}
		case <-quiet:
			if len(seen) < len(recent) {
				t.Fatalf("%d of %d recent sessions known", len(seen), len(recent))
			}
			quiet = nil
		}
	}
	changes := 0
	for _, n := range seen {
		changes += n
	}
	t.Logf("database moved in: %d sessions published, %d changes, %d live or old", len(seen), changes, len(live))
	if len(live) > 0 {
		t.Errorf("%d changes not bootstrap or of old sessions, e.g. %s", len(live), live[0])
	}
	if changes != len(recent) {
		t.Errorf("%d changes for %d recent sessions, want one each", changes, len(recent))
	}
}
