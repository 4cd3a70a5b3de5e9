// Command replaybench replays every peer recording (shared/realworld/
// irrlicht-scenarios) and prints the turn-end latency distribution: the
// recorded write that ends a turn (Claude turn_duration, an interrupt
// marker, an API error; Codex task_complete or turn_aborted) → our done or
// ready, beside the peer's own ready for the same write. Time is the
// recordings' (replay runs on a virtual clock), so the numbers measure the
// rules, not this machine.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/bench/stats"
	"github.com/logwatch/logwatch/pipeline/replay"
	"github.com/logwatch/logwatch/relay"
)

var turnEnd = []string{`"subtype":"turn_duration"`, `[Request interrupted by user`, `"isApiErrorMessage":true`,
	`"type":"task_complete"`, `"type":"turn_aborted"`}

func main() {
	root := flag.String("scenarios", "../shared/realworld/irrlicht-scenarios", "peer scenarios")
	flag.Parse()
	recs, _ := filepath.Glob(filepath.Join(*root, "*", "*", "recordings", "*"))
	if len(recs) == 0 {
		fmt.Fprintln(os.Stderr, "replaybench: no recordings under", *root)
		os.Exit(1)
	}
	var ours, theirs []time.Duration
	for _, rec := range recs {
		peer, err := replay.ReadPeer(rec, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, rec, err)
			continue
		}
		tl, err := replay.Run(context.Background(), peer.Inputs, replay.Options{Config: relay.DefaultConfig(), Log: zerolog.Nop()})
		if err != nil {
			fmt.Fprintln(os.Stderr, rec, err)
			continue
		}
		for _, in := range peer.Inputs {
			if in.Kind != relay.RecLog || !endsTurn(in.Data) {
				continue
			}
			session := strings.TrimSuffix(filepath.Base(in.Rel), ".jsonl")
			session = replay.NormalizeSession(session)
			if d, ok := firstOurs(tl, session, in.At); ok {
				ours = append(ours, d)
			}
			if d, ok := firstTheirs(peer.Events, session, in.At); ok {
				theirs = append(theirs, d)
			}
		}
	}
	fmt.Printf("turn-end write → idle state, over %d recordings (virtual time)\n", len(recs))
	report("logwatch (done/ready)", ours)
	report("peer (ready)", theirs)
}

func endsTurn(b []byte) bool {
	for _, m := range turnEnd {
		if strings.Contains(string(b), m) {
			return true
		}
	}
	return false
}

func firstOurs(tl []replay.Entry, session string, at time.Time) (time.Duration, bool) {
	for _, e := range tl {
		if e.Session == session && !e.At.Before(at) && (e.State == "done" || e.State == "ready") {
			return e.At.Sub(at), true
		}
	}
	return 0, false
}

func firstTheirs(evs []replay.PeerEvent, session string, at time.Time) (time.Duration, bool) {
	for _, ev := range evs {
		if ev.Kind == "state_transition" && replay.NormalizeSession(ev.SessionID) == session &&
			!ev.TS.Before(at) && ev.NewState == "ready" && ev.PrevState != "" {
			return ev.TS.Sub(at), true
		}
	}
	return 0, false
}

func report(name string, ds []time.Duration) {
	if len(ds) == 0 {
		fmt.Printf("  %-22s no samples\n", name)
		return
	}
	fmt.Printf("  %-22s n=%-3d p50 %8.1f ms  p90 %8.1f ms  max %8.1f ms\n", name, len(ds),
		stats.Ms(stats.Pct(ds, 50)), stats.Ms(stats.Pct(ds, 90)), stats.Ms(stats.Pct(ds, 100)))
}
