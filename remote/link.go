// Package remote links this machine's daemon to the logwatch daemons of
// remote hosts (SPEC §11), through the system's ssh client: each link runs
// `ssh -T DEST logwatch remote serve`, so the user's keys, agent,
// ProxyJump, ControlMaster and known_hosts apply, and nothing listens
// anywhere. What the remote sends (its snapshot, its changes) and what
// becomes of the link are reported to a Sink as wire.RemoteUpdates; the
// relay turns them into sessions with a host. Requests for a remote
// session (an acknowledgement) go back up the same ssh.
package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/logwatch/logwatch/relay/wire"
)

// Config is one remote.
type Config struct {
	Name string // how sessions name it (their host field)
	Dest string // the ssh destination: [user@]host, or a Host of ~/.ssh/config
	// Command is the remote's logwatch as its shell finds it (default
	// "logwatch"; "~/go/bin/logwatch" works: the remote shell expands it).
	Command string
	// SSH is extra arguments for ssh, before the destination (-p 2222,
	// -F FILE, -o …).
	SSH []string
}

// Sink receives a link's updates (the relay).
type Sink interface {
	Remote(wire.RemoteUpdate)
}

// Options tune every link; zero values take the defaults.
type Options struct {
	SSH string // the ssh client (default "ssh" from PATH)
	// Retry is the first wait after a link drops, doubling to RetryMax;
	// Unusable the first wait after the remote's logwatch proved missing
	// or foreign, doubling to UnusableMax: a human has to act there, so
	// asking again often only costs.
	Retry, RetryMax       time.Duration
	Unusable, UnusableMax time.Duration
	// Hello bounds the wait for the remote's first line (ssh's own
	// connection, authentication and the remote's start).
	Hello time.Duration
}

func (o Options) withDefaults() Options {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if o.SSH == "" {
		o.SSH = "ssh"
	}
	def(&o.Retry, 500*time.Millisecond)
	def(&o.RetryMax, 30*time.Second)
	def(&o.Unusable, time.Minute)
	def(&o.UnusableMax, 15*time.Minute)
	def(&o.Hello, 30*time.Second)
	return o
}

// stable is how long a link must have been up for its next drop to retry
// from the first wait again.
const stable = 30 * time.Second

// maxLine bounds a line from the remote (an event is a few hundred bytes).
const maxLine = wire.MaxRequest

// stderrKeep is how much of ssh's stderr is kept to explain a failure.
const stderrKeep = 2048

// Links is every configured remote's link.
type Links struct {
	links map[string]*Link
	order []*Link
}

// New makes the links; Run runs them.
func New(remotes []Config, opt Options, sink Sink, log zerolog.Logger) *Links {
	opt = opt.withDefaults()
	ls := &Links{links: map[string]*Link{}}
	for _, c := range remotes {
		if c.Command == "" {
			c.Command = "logwatch"
		}
		l := &Link{cfg: c, opt: opt, sink: sink, send: make(chan wire.Request, 64),
			log: log.With().Str("component", "remote").Str("host", c.Name).Logger()}
		ls.links[c.Name] = l
		ls.order = append(ls.order, l)
	}
	return ls
}

// Empty reports whether no remote is configured.
func (ls *Links) Empty() bool { return len(ls.order) == 0 }

// Run runs every link until ctx ends.
func (ls *Links) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, l := range ls.order {
		wg.Add(1)
		go func() { defer wg.Done(); l.Run(ctx) }()
	}
	wg.Wait()
	return ctx.Err()
}

// Send forwards req to the remote's daemon (relay.RemoteSender). It never
// waits: a link that is down, or 64 requests behind, refuses.
func (ls *Links) Send(remote string, req wire.Request) error {
	l := ls.links[remote]
	if l == nil {
		return fmt.Errorf("no remote %q", remote)
	}
	return l.Send(req)
}

// Link is one remote's subscription through ssh.
type Link struct {
	cfg  Config
	opt  Options
	sink Sink
	log  zerolog.Logger
	send chan wire.Request
	mu   sync.Mutex
	up   bool
	// skipped counts the lines from the remote that were no event (read
	// by the link's own goroutine only).
	skipped int64
	authed  atomic.Bool // ssh said it logged in, this link
}

// Send queues req for the remote's daemon.
func (l *Link) Send(req wire.Request) error {
	l.mu.Lock()
	up := l.up
	l.mu.Unlock()
	if !up {
		return fmt.Errorf("remote %s: link down", l.cfg.Name)
	}
	select {
	case l.send <- req:
		return nil
	default:
		return fmt.Errorf("remote %s: 64 requests queued already", l.cfg.Name)
	}
}

func (l *Link) setUp(up bool) {
	l.mu.Lock()
	l.up = up
	l.mu.Unlock()
}

// failure is why a link ended: unusable ones wait long before the next try.
type failure struct {
	err      error
	fix      string
	unusable bool
	protocol int
}

// Run keeps the link up until ctx ends: it reconnects after every drop,
// with backoff, and converges on the remote's snapshot each time.
func (l *Link) Run(ctx context.Context) {
	l.sink.Remote(wire.RemoteUpdate{Remote: l.cfg.Name, Dest: l.cfg.Dest, Kind: wire.RemoteConnecting})
	wait, wasUnusable := l.opt.Retry, false
	for ctx.Err() == nil {
		start := time.Now()
		f := l.once(ctx)
		l.setUp(false)
		if ctx.Err() != nil {
			return
		}
		kind, first, most := wire.RemoteDown, l.opt.Retry, l.opt.RetryMax
		if f.unusable {
			kind, first, most = wire.RemoteUnusable, l.opt.Unusable, l.opt.UnusableMax
		}
		if f.unusable != wasUnusable || time.Since(start) >= stable {
			wait = first // another kind of failure, or a link that held: its first wait
		}
		wasUnusable = f.unusable
		l.sink.Remote(wire.RemoteUpdate{Remote: l.cfg.Name, Kind: kind, Error: f.err.Error(), Fix: f.fix, Protocol: f.protocol})
		l.log.Warn().Err(f.err).Str("state", kind).Dur("retry_in", wait).Msg("remote link ended")
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, most)
	}
}

// once runs one ssh subscription to its end.
func (l *Link) once(ctx context.Context) failure {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// ssh gives up on a host that answers no keepalive at the fourth
	// (ServerAliveCountMax+1) interval: a frozen host is stale 40 s after
	// its last word. VERBOSE makes ssh say it logged in (tailBuffer notes
	// it), so a remote that logs in but never answers is told from one
	// that cannot log in.
	args := append([]string{"-T", "-o", "BatchMode=yes", "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3",
		"-o", "LogLevel=VERBOSE"}, l.cfg.SSH...)
	args = append(args, "--", l.cfg.Dest, l.cfg.Command+" remote serve")
	cmd := exec.CommandContext(ctx, l.opt.SSH, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Second
	l.authed.Store(false)
	stderr := &tailBuffer{max: stderrKeep, authed: &l.authed}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return failure{err: err}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return failure{err: err}
	}
	if err := cmd.Start(); err != nil {
		return failure{err: fmt.Errorf("start %s: %w", l.opt.SSH, err), fix: "install an ssh client", unusable: true}
	}
	go l.writeRequests(ctx, stdin)
	f := l.read(ctx, stdout)
	if f.err != nil {
		cancel() // ended here: ssh goes too
	}
	// Its output ended: ssh exits by itself, with the status that says
	// why (a SIGTERM now would turn a remote's 127 into ssh's 255).
	exit := make(chan error, 1)
	go func() { exit <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-exit:
	case <-time.After(5 * time.Second):
		cancel()
		werr = <-exit
	}
	if f.err == nil {
		f = l.exited(werr, stderr.String())
	}
	return f
}

// writeRequests copies queued requests to the remote's stdin.
func (l *Link) writeRequests(ctx context.Context, w io.WriteCloser) {
	defer w.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case req := <-l.send:
			b, _ := json.Marshal(req)
			if _, err := w.Write(append(b, '\n')); err != nil {
				l.log.Warn().Err(err).Str("op", req.Op).Msg("request not forwarded")
				return
			}
		}
	}
}

// errEnded marks a stream that ended without an error of its own: the
// exit status then says why.
var errEnded = errors.New("ended")

// read follows the remote's output: the hello, the subscription's answer,
// its snapshot, then changes. It returns when the stream ends; a failure
// with a nil err means the output just ended (ssh's exit says why).
func (l *Link) read(ctx context.Context, r io.Reader) failure {
	rd := bufio.NewReaderSize(r, 64<<10)
	var silent atomic.Bool
	hello := time.AfterFunc(l.opt.Hello, func() {
		silent.Store(true)
		if c, ok := r.(io.Closer); ok {
			c.Close() // unblocks the read below
		}
	})
	b, err := readLine(rd)
	if !hello.Stop() && silent.Load() {
		return l.silent()
	}
	if err != nil {
		return failure{err: lineErr(err)}
	}
	var h Hello
	if json.Unmarshal(b, &h) != nil || !h.OK || h.Remote == 0 {
		return failure{err: fmt.Errorf("%s answered something that is not logwatch's remote mode: %q", l.cfg.Command, clip(b)),
			fix: "check remotes[].command names logwatch there", unusable: true}
	}
	if h.Protocol != wire.Protocol || h.Remote != RemoteProtocol {
		return failure{err: fmt.Errorf("logwatch %s there speaks protocol %d (remote mode %d); this one speaks %d (%d)",
			h.Logwatch, h.Protocol, h.Remote, wire.Protocol, RemoteProtocol),
			fix: "install the same logwatch release on both hosts", unusable: true, protocol: h.Protocol}
	}
	// The subscription's answer: ok with the snapshot's size, or why not.
	if b, err = readLine(rd); err != nil {
		return failure{err: lineErr(err)}
	}
	var resp wire.Response
	if err := json.Unmarshal(b, &resp); err != nil {
		return failure{err: fmt.Errorf("bad answer from the remote: %w", err)}
	}
	if !resp.OK {
		return failure{err: fmt.Errorf("the remote's daemon: %s", resp.Error),
			fix: "start logwatch there (logwatch run, or logwatch service install)"}
	}
	l.setUp(true)
	l.sink.Remote(wire.RemoteUpdate{Remote: l.cfg.Name, Kind: wire.RemoteUp, Version: h.Logwatch, Protocol: h.Protocol})
	l.log.Info().Str("version", h.Logwatch).Msg("remote link up")
	n := 0
	if resp.Snapshot != nil {
		n = max(*resp.Snapshot, 0) // a count from the wire: never trusted for a size
	}
	// The snapshot is passed on as it arrives, in parts: what a remote
	// announces is neither allocated nor waited for (a billion announced
	// sessions cost what the relay keeps of them, and the ones that came
	// show). It ends after the announced count, or at the first line that
	// is no snapshot line: then that count was not the truth.
	part := make([]wire.Event, 0, min(n, snapPart))
	for read := 0; read < n; {
		ev, stop := l.event(rd)
		if stop != nil {
			return *stop
		}
		if ev == nil {
			read++ // skipped: still one of the announced lines
			continue
		}
		if !ev.Snapshot {
			l.sink.Remote(wire.RemoteUpdate{Remote: l.cfg.Name, Kind: wire.RemoteSnapshot, Events: part})
			l.sink.Remote(wire.RemoteUpdate{Remote: l.cfg.Name, Kind: wire.RemoteEvent, Event: ev})
			part = nil
			break
		}
		part = append(part, *ev)
		if read++; read < n && (len(part) == snapPart || rd.Buffered() == 0) {
			l.sink.Remote(wire.RemoteUpdate{Remote: l.cfg.Name, Kind: wire.RemoteSnapshot, Events: part, More: true})
			part = make([]wire.Event, 0, snapPart)
		}
	}
	if part != nil {
		l.sink.Remote(wire.RemoteUpdate{Remote: l.cfg.Name, Kind: wire.RemoteSnapshot, Events: part})
	}
	for ctx.Err() == nil {
		ev, stop := l.event(rd)
		if stop != nil {
			return *stop
		}
		if ev != nil {
			l.sink.Remote(wire.RemoteUpdate{Remote: l.cfg.Name, Kind: wire.RemoteEvent, Event: ev})
		}
	}
	return failure{err: ctx.Err()}
}

// snapPart is how many snapshot lines one update carries at most: the
// most of a snapshot the link holds.
const snapPart = 256

// silent explains a remote that wrote no hello within opt.Hello: logged in
// (then the remote's shell or logwatch hangs), or not (the host, the
// network or the login).
func (l *Link) silent() failure {
	cmd := l.cfg.Command + " remote serve"
	if l.authed.Load() {
		return failure{err: fmt.Errorf("ssh %s: logged in, but %s printed nothing within %v", l.cfg.Dest, cmd, l.opt.Hello),
			fix: fmt.Sprintf("run `ssh %s %s` by hand: it must print a line at once (a login script there that waits, or a logwatch that hangs, keeps it silent)", l.cfg.Dest, cmd)}
	}
	return failure{err: fmt.Errorf("ssh %s: no answer within %v, and ssh reported no login", l.cfg.Dest, l.opt.Hello),
		fix: fmt.Sprintf("check that `ssh %s` reaches the host and logs in without a prompt (keys or agent; BatchMode)", l.cfg.Dest)}
}

// event reads the stream's next event. A line that is no event (too long,
// not JSON, no session) is reported skipped and gives none: one bad line
// never costs the others. stop says why the stream ended.
func (l *Link) event(rd *bufio.Reader) (*wire.Event, *failure) {
	b, err := readLine(rd)
	if errors.Is(err, errLong) {
		return nil, l.skip(err)
	}
	if err != nil {
		return nil, &failure{err: lineErr(err)}
	}
	var probe struct {
		OK    *bool  `json:"ok"`
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &probe) == nil && probe.OK != nil {
		// A line with ok on a stream is its end (docs/protocol.md).
		return nil, &failure{err: fmt.Errorf("the remote's daemon: %s", probe.Error)}
	}
	var ev wire.Event
	if err := json.Unmarshal(b, &ev); err != nil {
		return nil, l.skip(err)
	}
	if ev.Session == "" {
		return nil, l.skip(errors.New("no session id"))
	}
	// The remote bounds its ids (wire.BoundID) as this daemon does; one
	// that was not is known here by the same short form.
	ev.Session = wire.BoundID(ev.Session)
	return &ev, nil
}

// skip reports a line from the remote that is no event; the stream goes on.
func (l *Link) skip(why error) *failure {
	l.skipped++
	ev := l.log.Debug()
	if l.skipped == 1 {
		ev = l.log.Warn() // the link's first: the rest go to debug
	}
	ev.Err(why).Int64("skipped", l.skipped).Msg("a line from the remote skipped")
	l.sink.Remote(wire.RemoteUpdate{Remote: l.cfg.Name, Kind: wire.RemoteSkipped, Error: "bad event from the remote: " + why.Error()})
	return nil
}

// errLong is a line over maxLine bytes: read to its end and skipped.
var errLong = errors.New("a line from the remote is longer than " + strconv.Itoa(maxLine) + " bytes")

// readLine reads one line of at most maxLine bytes. A longer one is read
// to its end, never held, and is errLong.
func readLine(rd *bufio.Reader) ([]byte, error) {
	var line []byte
	long := false
	for {
		chunk, err := rd.ReadSlice('\n')
		if !long && len(line)+len(chunk) > maxLine {
			long, line = true, nil
		}
		if !long {
			line = append(line, chunk...)
		}
		switch {
		case err == nil && long:
			return nil, errLong
		case err == nil:
			return bytes.TrimSuffix(line, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, err
		}
	}
}

func lineErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EBADF) ||
		strings.Contains(err.Error(), "file already closed") {
		return nil
	}
	return err
}

// exited explains a link whose output ended, by ssh's exit and stderr.
func (l *Link) exited(err error, stderr string) failure {
	msg := lastLine(stderr)
	code := -1
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	// cobra follows its complaint with suggestions: the line that says it
	// is not always the last.
	unknown := lineWith(stderr, `unknown command "remote"`)
	switch {
	case code == 127 || strings.HasSuffix(msg, "not found") || strings.Contains(msg, "No such file"):
		return failure{err: fmt.Errorf("%s is not found on %s: %s", l.cfg.Command, l.cfg.Dest, msg),
			fix:      "install logwatch there (from a checkout: go install ./cmd/logwatch), or set the remote's command to its path",
			unusable: true}
	case unknown != "":
		return failure{err: fmt.Errorf("the logwatch on %s predates remote hosts: %s", l.cfg.Dest, unknown),
			fix: "update logwatch there to this release", unusable: true}
	case code == 255:
		return failure{err: fmt.Errorf("ssh %s: %s", l.cfg.Dest, orText(msg, "connection failed"))}
	case err == nil:
		return failure{err: fmt.Errorf("ssh %s: the remote ended the link", l.cfg.Dest)}
	default:
		return failure{err: fmt.Errorf("ssh %s: %v: %s", l.cfg.Dest, err, orText(msg, "no message"))}
	}
}

// lineWith is the first line of s holding sub, trimmed ("" if none).
func lineWith(s, sub string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, sub) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func clip(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}

// tailBuffer keeps the last max bytes of ssh's stderr, by line, without
// what LogLevel=VERBOSE adds: the login it notes in authed, the transfer
// figures at the end.
type tailBuffer struct {
	mu      sync.Mutex
	b       []byte
	partial []byte // a line not ended yet
	max     int
	authed  *atomic.Bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.line(t.partial[:i+1])
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > t.max {
		t.line(t.partial) // no end in sight: kept as it is
		t.partial = nil
	}
	t.partial = append([]byte(nil), t.partial...)
	return len(p), nil
}

// line keeps one line of stderr, unless it is ssh's verbose chatter.
func (t *tailBuffer) line(l []byte) {
	switch {
	case bytes.HasPrefix(l, []byte("Authenticated to ")):
		if t.authed != nil {
			t.authed.Store(true)
		}
		return
	case bytes.HasPrefix(l, []byte("Transferred: ")), bytes.HasPrefix(l, []byte("Bytes per second: ")):
		return
	}
	t.b = append(t.b, l...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b) + string(t.partial)
}

// ProbeResult is what a one-off link to a remote found (doctor).
type ProbeResult struct {
	Version  string // the remote's logwatch
	Protocol int
	Sessions int   // in its daemon's snapshot
	Err      error // why no subscription was made
	Fix      string
}

type sinkFunc func(wire.RemoteUpdate)

func (f sinkFunc) Remote(u wire.RemoteUpdate) { f(u) }

// Probe makes one link to the remote, as the daemon would, and ends it
// once the remote's daemon has answered with its snapshot: ssh, the
// remote's logwatch, its protocol and its daemon all checked at once.
func Probe(ctx context.Context, c Config, opt Options) ProbeResult {
	opt = opt.withDefaults()
	if c.Command == "" {
		c.Command = "logwatch"
	}
	// The hello is bounded by opt.Hello (then silent says why); the
	// snapshot after it by as long again.
	ctx, cancel := context.WithTimeout(ctx, 2*opt.Hello)
	defer cancel()
	var res ProbeResult
	subscribed := false
	l := &Link{cfg: c, opt: opt, send: make(chan wire.Request), log: zerolog.Nop(), sink: sinkFunc(func(u wire.RemoteUpdate) {
		switch u.Kind {
		case wire.RemoteUp:
			res.Version, res.Protocol = u.Version, u.Protocol
		case wire.RemoteSnapshot:
			res.Sessions += len(u.Events)
			if !u.More {
				subscribed = true
				cancel()
			}
		}
	})}
	f := l.once(ctx)
	if subscribed {
		return res
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && res.Version != "" {
		f = failure{err: fmt.Errorf("logwatch %s on %s answered, but its snapshot did not end within %v of the start", res.Version, c.Dest, 2*opt.Hello),
			fix: "check the daemon there (logwatch status on it)"}
	}
	res.Err, res.Fix = f.err, f.fix
	return res
}
