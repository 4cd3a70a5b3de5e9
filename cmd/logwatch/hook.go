package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/valyala/fastjson"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/hookdebug"
	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/keytap/proxy"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

// Bounds of the hook client (SPEC §3): it must never slow or block the agent.
const (
	hookStdinWait = time.Second // at most this long waiting for the payload (--detached: the cap)
	// Connect, send and answer, all told. 500 ms is the promise for the
	// whole process; starting the binary takes some of it.
	hookRelayCap = 450 * time.Millisecond
	// The same for a sender that never waits for the hook process (the pi
	// and omp extensions, --detached): the agent loses no time to it, while
	// a busy machine can take longer than 450 ms to start the binary, and
	// a hook given up on is a state never shown.
	hookDetachedCap = 5 * time.Second
)

// runHook is `logwatch hook [--agent NAME]`: read the hook payload
// from stdin and relay it to the daemon. It runs outside cobra so that
// nothing (a bad flag, a bad config, a missing or hung daemon) can make it
// print or exit non-zero: a hook's exit code is a decision to the agent.
func runHook(args []string, stdin *os.File) int {
	start := time.Now()
	var agent, socket, event string
	var detached bool
	fs := pflag.NewFlagSet("hook", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.StringVar(&agent, "agent", "", "")
	fs.StringVar(&socket, "socket", "", "")
	fs.BoolVar(&detached, "detached", false, "")
	fs.StringVar(&event, "event", "", "")
	configFile := fs.String("config", "", "")
	_ = fs.Parse(args)
	agent = strings.ToLower(agent)
	if socket == "" {
		socket = hookSocket(*configFile)
	}
	// A dropped event is a state never shown: its reason goes to the file
	// LOGWATCH_HOOK_DEBUG names, else beside a socket that exists (a daemon
	// runs, or crashed), for doctor, and nowhere else.
	drop := func(reason string) int {
		path := os.Getenv(hookdebug.Env)
		if path == "" {
			if _, err := os.Lstat(socket); err != nil {
				return 0
			}
			path = hookdebug.Beside(socket)
		}
		_ = hookdebug.Record(path, time.Now(), agent, reason, time.Since(start))
		return 0
	}
	limit := hookRelayCap
	if detached {
		limit = hookDetachedCap
	}

	ctx, cancel := context.WithDeadline(context.Background(), start.Add(limit))
	defer cancel()
	c, err := client.Dial(ctx, socket)
	if err != nil {
		return drop(fmt.Sprintf("no daemon: %v", err)) // nothing to tell, and no time to lose
	}
	defer c.Close()

	// A detached sender's event loop writes the payload when it gets to
	// it, and nothing waits on this process: it waits as long as its cap
	// allows, not the second an agent waiting on it can spare.
	stdinWait := hookStdinWait
	if detached {
		stdinWait = max(time.Until(start.Add(limit)), hookStdinWait)
	}
	payload, why := readBounded(stdin, wire.MaxRequest, stdinWait)
	if why != "" {
		return drop(why)
	}
	// Slow stdin may have used up the cap; the send still gets a moment.
	deadline := start.Add(limit)
	if min := time.Now().Add(100 * time.Millisecond); deadline.Before(min) {
		deadline = min
	}
	ctx2, cancel2 := context.WithDeadline(context.Background(), deadline)
	defer cancel2()
	// The daemon refuses a request line that is not UTF-8 (an id with bad
	// bytes would name nothing), so a stray byte in, say, a command would
	// lose the whole hook. Bad bytes can only sit inside JSON strings:
	// replacing them keeps the payload JSON, as encoding/json would decode it.
	payload = bytes.ToValidUTF8(payload, []byte("\uFFFD"))
	payload = withEvent(payload, event)
	if saysNothing(agent, payload) {
		return 0
	}
	pid, pstart := agentProcess(agent)
	// The tab, unless the wrap that set it is not this hook's ancestor (a
	// stale LOGWATCH_TAB inherited through Codex's background server).
	if err := c.HookFrom(ctx2, agent, proxy.TabFromEnv(), pid, pstart, payload); err != nil {
		return drop(fmt.Sprintf("send: %v", err))
	}
	return 0
}

// agentProcess names the named agent's own process among this one's
// ancestors, by the agent's measured rule (parsers.Hooks.Process): its pid
// and start time, or 0, 0 when it has none or none matches.
func agentProcess(agent string) (int, uint64) {
	s := parsers.Lookup(parsers.Agent(agent))
	if s == nil || s.Hooks.Process.Is == nil {
		return 0, 0
	}
	pid, start, ok := proctree.Nearest(os.Getppid(), s.Hooks.Process.Hops, s.Hooks.Process.Is)
	if !ok {
		return 0, 0
	}
	return pid, start
}

// withEvent names the event in a payload that names none (Copilot CLI's:
// its hook command says which event it was installed for), as
// hook_event_name, the first member: the daemon records the payload as
// sent, so a replay reads the same event. Anything else is left as it is.
func withEvent(payload []byte, event string) []byte {
	if event == "" {
		return payload
	}
	var p fastjson.Parser
	v, err := p.ParseBytes(payload)
	if err != nil || v.Type() != fastjson.TypeObject || v.Exists("hook_event_name") {
		return payload
	}
	i := bytes.IndexByte(payload, '{')
	name, _ := json.Marshal(event)
	out := make([]byte, 0, len(payload)+len(name)+20)
	out = append(append(append(out, payload[:i+1]...), `"hook_event_name":`...), name...)
	if v.GetObject().Len() > 0 {
		out = append(out, ',')
	}
	return append(out, payload[i+1:]...)
}

// saysNothing reports an event that the named agent's own hook dialect
// reads as nothing of the state (Gemini CLI's PreCompress with trigger
// auto, on every prompt): not news, so not sent, and no bad request. A
// payload that names no event is not one: the daemon refuses and counts it
// (a hook command installed without its event).
func saysNothing(agent string, payload []byte) bool {
	s := parsers.Lookup(parsers.Agent(agent))
	if s == nil || s.Hooks.Decode == nil {
		return false
	}
	var p fastjson.Parser
	if v, err := p.ParseBytes(payload); err != nil || len(v.GetStringBytes("hook_event_name")) == 0 {
		return false
	}
	_, err := parsers.ParseAgentHook(s.Name, payload)
	return errors.Is(err, parsers.ErrBadHook)
}

// hookSocket resolves the socket without letting a configuration problem
// surface, and reading no more of the configuration than its socket, when
// there is a file to read at all (most machines have none): the hook
// starts with no work it does not need.
func hookSocket(configFile string) string {
	if s := os.Getenv("LOGWATCH_SOCKET"); s != "" {
		return config.ExpandPath(s)
	}
	if f := config.FilePath(configFile); f == "" {
		return relay.DefaultSocket()
	} else if _, err := os.Lstat(f); errors.Is(err, fs.ErrNotExist) {
		return relay.DefaultSocket()
	}
	// A configuration error is not the hook's to report: a file that does
	// not parse leaves the default.
	s, _ := config.FileSocket(configFile)
	return fallbackSocket(s)
}

// fallbackSocket is the socket of a client whose configuration may not
// have loaded whole: $LOGWATCH_SOCKET, then read (what was read of the
// file), then the default.
func fallbackSocket(read string) string {
	if s := os.Getenv("LOGWATCH_SOCKET"); s != "" {
		return config.ExpandPath(s)
	}
	if read != "" {
		return read
	}
	return relay.DefaultSocket()
}

// readBounded reads r until it holds one whole JSON object or ends, giving
// up after wait or past max bytes; why says what went wrong ("" when
// nothing did). A whole object is the payload even if r never ends: a
// process the agent spawns at the same moment can inherit the pipe's write
// end and hold it open (omp, starting up, did: its SessionStart waited 5 s
// for an end of input that never came, and was lost).
func readBounded(r io.Reader, max int, wait time.Duration) (b []byte, why string) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		buf := make([]byte, 0, 4096)
		for {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := r.Read(buf[len(buf):min(cap(buf), max+1)])
			buf = buf[:len(buf)+n]
			switch {
			case len(buf) > max:
				done <- result{buf, nil}
				return
			case err == io.EOF:
				done <- result{buf, nil}
				return
			case err != nil:
				done <- result{nil, err}
				return
			case n > 0 && wholeObject(buf):
				done <- result{buf, nil}
				return
			}
		}
	}()
	select {
	case res := <-done:
		switch {
		case res.err != nil:
			return nil, fmt.Sprintf("stdin: %v", res.err)
		case len(res.b) > max:
			return nil, fmt.Sprintf("stdin: the payload is over %d bytes", max)
		case len(res.b) == 0:
			return nil, "stdin: no payload"
		}
		return res.b, ""
	case <-time.After(wait):
		return nil, fmt.Sprintf("stdin: no end of the payload within %s", wait)
	}
}

// wholeObject reports whether b is one complete JSON object (with space
// around it): it ends with '}' and is valid, so a chunk that ends inside
// the object reads on.
func wholeObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 1 && b[0] == '{' && b[len(b)-1] == '}' && json.Valid(b)
}

// newHookCmd documents the hook client in help output; main runs it before
// cobra sees the arguments.
func newHookCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook [--agent " + strings.Join(parsers.Names(), "|") + "]",
		Short: "Relay an agent hook event from stdin to the daemon (always exits 0, prints nothing)",
		Long: `Configure this as the agents' hook command (logwatch hooks install does). It
reads the event JSON on stdin (at most 1 s, 1 MiB), adds LOGWATCH_TAB from its
environment and the agent's own process (found among its nearest ancestors by
the agent's rule; the session ends when it exits), and relays it to the daemon
with a 500 ms cap. It always exits 0 and prints nothing: a missing or hung
daemon never slows or blocks the agent.
Each event it drops while the daemon's socket exists is appended, with the
reason, to hook-drops.log beside the socket (bounded), and doctor shows the
last ones; LOGWATCH_HOOK_DEBUG names a file that takes every drop instead.
Only an explicit --help prints (this).`,
		Args: cobra.NoArgs,
		// Only `hook --help` reaches cobra (main); this is its help.
		RunE: func(cmd *cobra.Command, args []string) error {
			runHook(os.Args[2:], os.Stdin)
			return nil
		},
	}
	cmd.Flags().String("agent", "", "the agent whose hook this is: "+strings.Join(parsers.Names(), ", "))
	cmd.Flags().String("event", "", "the event, for an agent whose payloads do not name it (copilot)")
	cmd.Flags().Bool("detached", false, "the sender does not wait for it (pi, omp): allow 5 s instead of 500 ms")
	return cmd
}

// hookHelp says whether the hook client was asked for its help: only an
// explicit --help or -h, which no agent passes.
func hookHelp(args []string) bool {
	return slices.ContainsFunc(args, func(a string) bool { return a == "--help" || a == "-h" })
}
