package ingest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/parsers/claude"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/watcher/registry"
)

// regWorld is the real registry reader feeding a real relay with one
// subscriber.
type regWorld struct {
	dir string
	r   *relay.Relay
	sub *relay.Subscription
}

func newRegWorld(b *testing.B) *regWorld {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	dir := b.TempDir()
	r := relay.New(relay.Config{}, relay.SystemClock{}, nil, zerolog.Nop())
	go r.Run(ctx)
	sub, err := r.Subscribe(ctx)
	if err != nil {
		b.Fatal(err)
	}
	w := registry.New([]registry.Root{{Dir: dir, Format: claude.Spec().Registry}}, RegistrySink{R: r}, zerolog.Nop())
	go w.Run(ctx)
	<-w.Ready()
	return &regWorld{dir: dir, r: r, sub: sub}
}

func sleeper(b *testing.B) int {
	b.Helper()
	c := exec.Command("sleep", "600")
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c.Process.Pid
}

// write rewrites a registry file in place, as Claude Code 2.1.328 does.
func write(b *testing.B, path string, pid int, session, status, waitingFor string, at int64) {
	start, _ := proctree.StartTime(pid)
	body := fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":"/w","startedAt":1,"procStart":"%d","version":"2.1.328","kind":"interactive","entrypoint":"cli","status":%q,"updatedAt":%d,"statusUpdatedAt":%d`,
		pid, session, start, status, at, at)
	if waitingFor != "" {
		body += fmt.Sprintf(`,"waitingFor":%q`, waitingFor)
	}
	body += "}"
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	f.WriteAt([]byte(body), 0)
	f.Truncate(int64(len(body)))
	f.Close()
}

func logLine(b *testing.B, r *relay.Relay, p parsers.Parser, session, line string) {
	ev, err := p.Parse([]byte(line))
	if err != nil {
		b.Fatal(err)
	}
	r.Log(relay.LogLine{Path: "/logs/" + session + ".jsonl", Session: session, Agent: claude.Name, Evidence: ev})
}

// BenchmarkRegistryToChange: a registry rewrite (waiting, then busy: two
// published changes of a session without hooks inside a turn) until the
// subscriber has the change, through the real reader and relay.
// Reports p50 and p99 per change.
func BenchmarkRegistryToChange(b *testing.B) {
	w := newRegWorld(b)
	pid := sleeper(b)
	p := parsers.New(claude.Name)
	logLine(b, w.r, p, "s1", `{"type":"user","sessionId":"s1","cwd":"/w","version":"2.1.328","message":{"role":"user","content":"go"}}`)
	path := filepath.Join(w.dir, strconv.Itoa(pid)+".json")
	write(b, path, pid, "s1", "busy", "", 1)
	<-w.sub.C() // working/prompt
	var lat []time.Duration
	at := int64(2)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, st := range []string{"waiting", "busy"} {
			wf := ""
			if st == "waiting" {
				wf = "permission prompt"
			}
			at++
			t0 := time.Now()
			write(b, path, pid, "s1", st, wf, at)
			ev := <-w.sub.C()
			lat = append(lat, time.Since(t0))
			if (st == "waiting") != (ev.State == "waiting") {
				b.Fatalf("after %s: %s/%s", st, ev.State, ev.Rule)
			}
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkRegistryLive: live processes with registry files, read by the
// reader and kept by the relay, 0 (the baseline of the same run) and 200.
// Reports the resident memory they add (MB) and the CPU spent while nothing
// changes (ms of CPU per second of wall time, over three sweep periods).
func BenchmarkRegistryLive(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("reads /proc")
	}
	for _, n := range []int{0, 200} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			pids := make([]int, n)
			for i := range pids {
				pids[i] = sleeper(b)
			}
			for i := 0; i < b.N; i++ {
				runtime.GC()
				debug.FreeOSMemory()
				rss0 := rss(b)
				w := newRegWorld(b)
				for j, pid := range pids {
					write(b, filepath.Join(w.dir, strconv.Itoa(pid)+".json"), pid, fmt.Sprintf("s%03d", j), "idle", "", 1)
				}
				for {
					st, _ := w.r.Status(context.Background())
					if st.Counters.RegistryProcesses == int64(n) {
						break
					}
					time.Sleep(5 * time.Millisecond)
				}
				runtime.GC()
				debug.FreeOSMemory()
				rss1 := rss(b)
				cpu0, t0 := cpuTime(), time.Now()
				time.Sleep(6 * time.Second) // three sweep periods
				cpu1, wall := cpuTime(), time.Since(t0)
				b.ReportMetric(float64(rss1-rss0)/(1<<20), "MB-rss")
				b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1000/wall.Seconds(), "cpu-ms/s")
			}
		})
	}
}

func rss(b *testing.B) int64 {
	s, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(s), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
