// Command wrapbench measures what `logwatch wrap` costs a terminal user, each
// against a baseline measured in the same run:
//
//   - throughput: 100 MB through `wrap -- cat` and through a minimal Go pty
//     proxy (the plainpty subcommand: pty, raw mode, two io.Copy) in the same
//     pty setup, in both directions: typed/pasted into the terminal and
//     echoed back by cat (the input path with the key decoder), and a file
//     printed by cat (the output path with the mode tracker);
//   - keystroke echo latency: one byte written to the terminal → the byte
//     echoed back by cat, through wrap and through plainpty;
//   - marker → ready: with a key pending, the interrupt marker appended to a
//     transcript → the ready change shown by `logwatch events --json`, with a
//     real daemon.
//
// Each number is printed beside its target.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/logwatch/logwatch/bench/stats"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "plainpty" {
		os.Exit(plainPTY(os.Args[2:]))
	}
	bin := flag.String("bin", os.Getenv("LOGWATCH_BIN"), "logwatch binary")
	mib := flag.Int("mib", 100, "throughput payload, MiB")
	runs := flag.Int("runs", 3, "throughput runs per variant (median)")
	keys := flag.Int("keys", 1000, "keystrokes for the echo latency")
	markers := flag.Int("markers", 200, "marker → ready runs")
	only := flag.String("only", "", "run one part: throughput, echo or marker")
	flag.Parse()
	if *bin == "" {
		stats.Fail("set -bin or LOGWATCH_BIN")
	}
	self, err := os.Executable()
	stats.Check(err)
	dir, err := os.MkdirTemp("", "wrapbench")
	stats.Check(err)
	defer os.RemoveAll(dir)
	// Keys reach no daemon here: only the proxy's own cost is measured.
	noDaemon := append(os.Environ(), "LOGWATCH_SOCKET="+filepath.Join(dir, "none.sock"))
	variants := []variant{
		{"plain pty", []string{self, "plainpty", "--"}},
		{"wrap", []string{*bin, "wrap", "--"}},
	}

	if *only == "" || *only == "throughput" {
		throughput(dir, variants, noDaemon, *mib, *runs)
	}
	if *only == "" || *only == "echo" {
		echoLatency(variants, noDaemon, *keys)
	}
	if *only == "" || *only == "marker" {
		markerToReady(*bin, dir, *markers)
	}
}

type variant struct {
	name   string
	prefix []string // the proxy and its arguments, before the command
}

// rawCat makes the inner pty raw (no line editing, no echo: bytes pass as
// they are) and says so before cat starts copying.
const rawCat = "stty raw -echo; echo ready; exec cat"

// inTerminal starts prefix+cmd on a fresh pty, the benchmark being the
// user's terminal, and waits for "ready" when waitReady.
func inTerminal(prefix []string, env []string, waitReady bool, cmd ...string) (*exec.Cmd, *os.File, *bufio.Reader) {
	argv := append(append([]string{}, prefix...), cmd...)
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = env
	f, err := pty.StartWithSize(c, &pty.Winsize{Rows: 50, Cols: 200})
	stats.Check(err)
	r := bufio.NewReaderSize(f, 64<<10)
	if waitReady {
		line, err := r.ReadString('\n')
		for err == nil && !strings.Contains(line, "ready") {
			line, err = r.ReadString('\n')
		}
		stats.Check(err)
	}
	return c, f, r
}

func stop(c *exec.Cmd, f *os.File) {
	c.Process.Signal(syscall.SIGHUP)
	f.Close()
	c.Wait()
}

func throughput(dir string, variants []variant, env []string, mib, runs int) {
	total := mib << 20
	// Text, as a paste or an agent's output is: no interrupt keys, newlines
	// (which the inner pty's output processing turns into CR LF).
	line := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog 0123456789 ", 2) + "\n")
	payload := bytes.Repeat(line, total/len(line)+1)[:total]
	file := filepath.Join(dir, "payload.txt")
	stats.Check(os.WriteFile(file, payload, 0o644))

	fmt.Printf("throughput, %d MiB, median of %d, variants interleaved (target: wrap/plain <= 1.2)\n", mib, runs)
	for _, dirn := range []string{"typed in, echoed", "printed by cat"} {
		ds := make([][]time.Duration, len(variants))
		for r := range runs {
			// Alternate which variant goes first: a noisy machine then
			// weighs on both alike.
			for k := range variants {
				i := (k + r) % len(variants)
				if dirn == "printed by cat" {
					ds[i] = append(ds[i], printThrough(variants[i], env, file, total))
				} else {
					ds[i] = append(ds[i], typeThrough(variants[i], env, payload))
				}
			}
		}
		for i, v := range variants {
			fmt.Printf("  %-17s %-10s %7.1f MiB/s\n", dirn, v.name, float64(mib)/median(ds[i]).Seconds())
		}
		fmt.Printf("  %-17s ratio wrap/plain = %.2f (target <= 1.2)\n", dirn, median(ds[1]).Seconds()/median(ds[0]).Seconds())
	}
}

// typeThrough writes payload into the terminal and reads it all back from
// cat, concurrently, as a big paste would.
func typeThrough(v variant, env []string, payload []byte) time.Duration {
	c, f, r := inTerminal(v.prefix, env, true, "sh", "-c", rawCat)
	defer stop(c, f)
	t0 := time.Now()
	go func() {
		for off := 0; off < len(payload); off += 4096 {
			if _, err := f.Write(payload[off:min(off+4096, len(payload))]); err != nil {
				return
			}
		}
	}()
	n, err := io.CopyN(io.Discard, r, int64(len(payload)))
	if err != nil {
		stats.Fail(fmt.Sprintf("%s: read %d of %d bytes back: %v", v.name, n, len(payload), err))
	}
	return time.Since(t0)
}

// printThrough runs `cat file` and reads its output from the terminal to the
// end.
func printThrough(v variant, env []string, file string, size int) time.Duration {
	t0 := time.Now()
	c, f, r := inTerminal(v.prefix, env, false, "cat", file)
	n, _ := io.Copy(io.Discard, r) // EIO once the proxy exits
	d := time.Since(t0)
	f.Close()
	c.Wait()
	if n < int64(size) {
		stats.Fail(fmt.Sprintf("%s: read %d of %d bytes", v.name, n, size))
	}
	return d
}

func echoLatency(variants []variant, env []string, keys int) {
	fmt.Printf("keystroke echo latency, %d keys each, variants interleaved key by key: byte written to the terminal → echoed byte read back\n", keys)
	type term struct {
		c  *exec.Cmd
		f  *os.File
		r  *bufio.Reader
		ds []time.Duration
	}
	terms := make([]*term, len(variants))
	for i, v := range variants {
		c, f, r := inTerminal(v.prefix, env, true, "sh", "-c", rawCat)
		terms[i] = &term{c: c, f: f, r: r}
		defer stop(c, f)
	}
	b := make([]byte, 1)
	for k := range keys {
		key := []byte{byte('a' + k%26)}
		for j := range terms {
			tm := terms[(j+k)%len(terms)]
			// Typing pace, so each key travels alone.
			time.Sleep(time.Duration(500+rand.IntN(1500)) * time.Microsecond)
			t0 := time.Now()
			_, err := tm.f.Write(key)
			stats.Check(err)
			_, err = io.ReadFull(tm.r, b)
			stats.Check(err)
			tm.ds = append(tm.ds, time.Since(t0))
			if b[0] != key[0] {
				stats.Fail(fmt.Sprintf("echoed %q, typed %q", b, key))
			}
		}
	}
	for i, v := range variants {
		fmt.Printf("  %-10s p50 %7.1f µs  p99 %7.1f µs\n", v.name, us(pct(terms[i].ds, 50)), us(pct(terms[i].ds, 99)))
	}
	plain, wrap := terms[0].ds, terms[1].ds
	fmt.Printf("  added by wrap: p50 %+.1f µs, p99 %+.1f µs (target: p99 <= 1000 µs added)\n",
		us(pct(wrap, 50)-pct(plain, 50)), us(pct(wrap, 99)-pct(plain, 99)))
}

// markerToReady: a daemon on temp roots, a Claude session bound to a tab
// and working, an Esc reported for the tab; then the interrupt marker is
// appended to the transcript and the time until `logwatch events --json`
// prints the ready change is taken.
func markerToReady(bin, dir string, n int) {
	root := filepath.Join(dir, "claude")
	socket := filepath.Join(dir, "lw.sock")
	env := append(os.Environ(), "LOGWATCH_SOCKET="+socket, "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "cfg"),
		"LOGWATCH_AGENTS_CLAUDE_ROOTS="+root, "LOGWATCH_AGENTS_CODEX_ROOTS="+filepath.Join(dir, "codex"),
		"LOGWATCH_CHECKPOINT="+filepath.Join(dir, "checkpoint.json"), "LOGWATCH_LOG_LEVEL=warn")
	d := exec.Command(bin, "run")
	d.Env, d.Stderr = env, os.Stderr
	stats.Check(d.Start())
	defer func() { d.Process.Signal(syscall.SIGTERM); d.Wait() }()

	ctx := context.Background()
	var c *client.Client
	var err error
	for range 500 {
		if c, err = client.Dial(ctx, socket); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	stats.Check(err)
	defer c.Close()

	ev := exec.Command(bin, "events", "--json")
	ev.Env = env
	out, err := ev.StdoutPipe()
	stats.Check(err)
	stats.Check(ev.Start())
	defer func() { ev.Process.Signal(syscall.SIGTERM); ev.Wait() }()
	events := make(chan wire.Event, 1024)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var e wire.Event
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				events <- e
			}
		}
		close(events)
	}()
	// The subscription is live once the session's first change shows.

	const session, tab = "bench-0000-4000-8000-000000000001", "bench-tab"
	transcript := filepath.Join(root, "-bench", session+".jsonl")
	stats.Check(os.MkdirAll(filepath.Dir(transcript), 0o755))
	logf, err := os.OpenFile(transcript, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	stats.Check(err)
	defer logf.Close()
	hook := func(event string) {
		p, _ := json.Marshal(map[string]string{"hook_event_name": event, "session_id": session, "cwd": "/bench",
			"transcript_path": transcript, "prompt": "go"})
		stats.Check(c.Hook(ctx, "claude", tab, p))
	}
	wait := func(state, source string) {
		timeout := time.After(10 * time.Second)
		for {
			select {
			case e, ok := <-events:
				if !ok {
					stats.Fail("event stream ended")
				}
				if e.Session == session && e.State == state && (source == "" || e.Source == source) {
					return
				}
			case <-timeout:
				stats.Fail("no " + state + " change within 10 s")
			}
		}
	}
	line := func(content string) []byte {
		return []byte(`{"type":"user","sessionId":"` + session + `","cwd":"/bench","version":"2.1.143","message":{"role":"user","content":` + content + "}}\n")
	}
	marker := line(`[{"type":"text","text":"[Request interrupted by user]"}]`)

	hook("SessionStart")
	wait("ready", "")
	var ds []time.Duration
	for i := range n + 5 {
		hook("UserPromptSubmit")
		_, err := logf.Write(line(`"go"`))
		stats.Check(err)
		wait("working", "")
		stats.Check(c.Key(ctx, tab, wire.KeyEsc, time.Now())) // answered once the relay opened the window
		t0 := time.Now()
		_, err = logf.Write(marker)
		stats.Check(err)
		wait("ready", "key+log")
		if i >= 5 { // the first runs warm up
			ds = append(ds, time.Since(t0))
		}
	}
	fmt.Printf("marker appended → ready shown by events, key pending, %d runs\n", n)
	fmt.Printf("  p50 %.2f ms  p99 %.2f ms (target: p99 <= 10 ms)\n", ms(pct(ds, 50)), ms(pct(ds, 99)))
}

// plainPTY is the baseline proxy: the command on a pty, the terminal raw,
// bytes copied both ways, nothing else.
func plainPTY(args []string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	c := exec.Command(args[0], args[1:]...)
	ws, _ := pty.GetsizeFull(os.Stdin)
	f, err := pty.StartWithSize(c, ws)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 126
	}
	if old, err := term.MakeRaw(0); err == nil {
		defer term.Restore(0, old)
	}
	go io.Copy(f, os.Stdin)
	done := make(chan struct{})
	go func() { io.Copy(os.Stdout, f); close(done) }()
	c.Wait()
	select {
	case <-done:
	case <-time.After(100 * time.Millisecond):
	}
	return c.ProcessState.ExitCode()
}

func median(ds []time.Duration) time.Duration { return pct(ds, 50) }

func pct(ds []time.Duration, p float64) time.Duration { return stats.Pct(ds, p) }

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
func ms(d time.Duration) float64 { return stats.Ms(d) }
