// Command watchbench measures the watcher for bench/watcher.sh: delivery
// latency against a raw fsnotify round trip, the idle cost of 10 000 quiet
// files, a sustained write load, and the nxadm/tail follower the watcher
// replaced. Each measurement prints its number next to its target.
//
//	watchbench latency -dir D [-n 300]
//	watchbench idle    -dir D [-files 10000 -dirs 500 -for 60s]
//	watchbench load    -dir D [-files 200 -rate 50 -for 30s]
//	watchbench nxadm   -dir D [-n 50]
//	watchbench serve   -root R   (the watcher process idle and load measure)
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/logwatch/logwatch/bench/stats"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: watchbench latency|idle|load|nxadm|serve [flags]")
		os.Exit(2)
	}
	cmds := map[string]func([]string) error{
		"latency": latency, "idle": idle, "load": load, "nxadm": nxadm, "serve": serve,
	}
	cmd, ok := cmds[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := cmd(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "watchbench %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// pct returns the p-th percentile (0-100) of samples.
func pct(samples []time.Duration, p float64) time.Duration { return stats.Pct(samples, p) }

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// verdict prints one measurement against its target ("<=" targets).
func verdict(name string, got, target float64, unit string) {
	mark := "ok"
	if got > target {
		mark = "MISSED"
	}
	fmt.Printf("  %-34s %10.2f %-4s target <= %-8g ratio %.2f  %s\n", name, got, unit, target, got/target, mark)
}

// transcript line whose Evidence.At carries id.
func line(id string, pad int) string {
	return fmt.Sprintf(`{"type":"system","subtype":"informational","timestamp":%q,"sessionId":"s","pad":"%0*d"}`+"\n", id, pad, 0)
}

func appendTo(path, s string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
