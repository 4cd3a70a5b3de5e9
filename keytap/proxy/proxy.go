// Package proxy runs a command under a pseudo-terminal placed between the
// user's terminal and the command, and reports the interrupt keys typed into
// it: the engine of `logwatch wrap`, usable as a library.
//
// The user's bytes reach the command unchanged, in the chunks they were read
// in and without added delay: each chunk is written to the pty first and only
// then handed to a keytap.Decoder. Decoded presses go to a Reporter from a
// separate goroutine through a bounded queue; when the reporter is slow,
// reports are dropped, never bytes. The command's output is copied back and
// shown to the decoder, which follows the keyboard modes the command asks the
// terminal for.
//
// While it runs, Run owns the process's handling of SIGWINCH, SIGINT,
// SIGQUIT, SIGTERM, SIGHUP and SIGTSTP (see Run).
package proxy

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/logwatch/logwatch/keytap"
)

// TabEnv is the environment variable that names the command's tab; the hook
// client reports it with every hook so the relay can bind the tab to the
// conversation.
const TabEnv = "LOGWATCH_TAB"

// Reporter receives what the proxy observes. Run calls it from one goroutine
// of its own, never from the copy paths, so an implementation may block: a
// slow one only loses reports, and one stuck at exit is left behind after a
// second (a call may then still be under way when Run returns).
type Reporter interface {
	// TabOpened reports that tab's command started as process pid; it comes
	// before every other report of the tab.
	TabOpened(tab string, pid int)
	// Key reports an interrupt key typed into tab, whose command is pid.
	Key(tab string, pid int, p keytap.Press)
	// TabClosed reports that tab's command, pid, exited.
	TabClosed(tab string, pid int)
}

// Config configures Run. The zero value proxies os.Stdin and os.Stdout under
// a fresh tab id and reports nothing.
type Config struct {
	// Tab is the command's LOGWATCH_TAB; "" picks a fresh random id.
	Tab string
	// EscTimeout is the decoder's lone-ESC timeout (<= 0: the default).
	EscTimeout time.Duration
	// Reporter gets the presses and the tab's close; nil reports nothing.
	Reporter Reporter
	// Stdin is the user's side, os.Stdin if nil. A terminal is put in raw
	// mode for the run and gives the pty its size. An *os.File is read so
	// that Run can stop reading it when the command exits; another reader
	// is abandoned mid-read at that point.
	Stdin io.Reader
	// Stdout gets the command's output (stdout and stderr, as a terminal
	// shows them), os.Stdout if nil.
	Stdout io.Writer
}

// Result is how a run ended.
type Result struct {
	Tab string
	// Pid is the command's process id (0 if it never started).
	Pid int
	// ExitCode is the command's exit status, or 128+signal when a signal
	// killed it, as a shell reports it.
	ExitCode int
	// Presses counts the keys decoded; Dropped those the reporter was too
	// slow to take.
	Presses, Dropped int
}

const (
	bufSize    = 32 << 10
	queueLen   = 64                     // presses waiting for a slow reporter
	drainIdle  = 100 * time.Millisecond // output drain after exit ends after this much silence
	reportWait = time.Second            // how long Run waits at exit for the last reports
)

// NewTab returns a fresh random tab id.
func NewTab() string {
	var b [8]byte
	rand.Read(b[:])
	return "wrap-" + hex.EncodeToString(b[:])
}

// Run starts cmd on a new pty in its own session (cmd's Stdin, Stdout,
// Stderr and SysProcAttr are replaced) with LOGWATCH_TAB set in its
// environment, proxies it until it exits and returns its exit status. The
// error is non-nil only when the command could not be started; the user's
// terminal is then left as it was.
//
// Signals, as a terminal user expects them: with a raw terminal Ctrl+C,
// Ctrl+\ and Ctrl+Z reach the command as bytes and its pty turns them into
// signals. SIGINT, SIGQUIT, SIGTERM and SIGHUP sent to this process are
// forwarded to the command. SIGTSTP restores the terminal and stops this
// process; on continue the terminal is raw again and the size re-read.
// SIGWINCH copies the terminal's size to the pty.
func Run(cmd *exec.Cmd, cfg Config) (Result, error) {
	p := &proxy{
		tab:    cfg.Tab,
		stdout: cfg.Stdout,
		dec:    keytap.New(cfg.EscTimeout),
		rep:    cfg.Reporter,
		inFd:   -1,
	}
	// Enter is reported too: the relay binds a Codex session, whose hooks
	// run in a shared server with a stale LOGWATCH_TAB, to the tab whose
	// submit its turn start follows.
	p.dec.SubmitKeys()
	if p.tab == "" {
		p.tab = NewTab()
	}
	in := cfg.Stdin
	if in == nil {
		in = os.Stdin
	}
	if p.stdout == nil {
		p.stdout = os.Stdout
	}
	res := Result{Tab: p.tab}
	if f, ok := in.(*os.File); ok {
		p.inFd = rawFd(f)
	}

	var err error
	if p.stop, err = newWaker(); err != nil {
		return res, err
	}
	defer p.stop.close()
	if p.exit, err = newWaker(); err != nil {
		return res, err
	}
	defer p.exit.close()
	p.in = &input{r: in, fd: p.inFd, stop: p.stop}
	tty, err := p.openPty()
	if err != nil {
		return res, err
	}
	defer p.pty.close()
	defer tty.Close()

	if p.inFd >= 0 && term.IsTerminal(p.inFd) {
		p.terminal = true
		p.resize()
		if err := p.makeRaw(); err != nil {
			return res, fmt.Errorf("terminal raw mode: %w", err)
		}
		defer p.restore()
	}

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, unix.SIGWINCH, unix.SIGINT, unix.SIGQUIT, unix.SIGTERM, unix.SIGHUP, unix.SIGTSTP)
	defer signal.Stop(sigs)

	cmd.Env = withTab(cmd.Env, p.tab)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	// A session of its own with the pty as controlling terminal: job
	// control keys and a hangup reach it through the pty.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		return res, err
	}
	tty.Close() // the child holds it now; EIO on the master then means every holder is gone
	p.pid, res.Pid = cmd.Process.Pid, cmd.Process.Pid

	if p.rep != nil {
		p.queue = make(chan report, queueLen)
		p.reported = make(chan struct{})
		go p.reportLoop()
	}
	p.flushTimer = time.AfterFunc(time.Hour, p.flush)
	p.flushTimer.Stop()

	inDone, outDone := make(chan struct{}), make(chan struct{})
	go func() { defer close(inDone); p.copyIn() }()
	go func() { defer close(outDone); p.copyOut() }()

	waited := make(chan struct{})
	go func() { cmd.Wait(); close(waited) }()
	for running := true; running; {
		select {
		case sig := <-sigs:
			p.signal(cmd.Process, sig.(syscall.Signal))
		case <-waited:
			running = false
		}
	}

	p.exit.wake() // copyOut drains what is left, then ends
	<-outDone
	p.stop.wake() // ends the input read and a write blocked on a full pty
	if p.inFd >= 0 {
		<-inDone
	} // else: a plain reader cannot be interrupted; it is abandoned
	p.flushTimer.Stop()
	p.restore()

	if p.rep != nil {
		p.finishReports()
	}
	res.ExitCode = exitCode(cmd.ProcessState)
	res.Presses, res.Dropped = int(p.presses.Load()), int(p.dropped.Load())
	return res, nil
}

type report struct {
	press  keytap.Press
	closed bool
}

type proxy struct {
	tab    string
	pid    int // the command's, once started
	stdout io.Writer
	dec    *keytap.Decoder
	rep    Reporter
	inFd   int // the user's terminal or input file, -1 for another reader
	in     *input
	pty    *master
	// terminal: inFd is a terminal, raw for the run
	terminal bool
	stop     *waker // woken once the output is drained: ends input and writes
	exit     *waker // woken when the command exited: the output drain begins

	rawMu sync.Mutex
	saved *term.State // the terminal's mode before raw; nil when not raw

	flushTimer *time.Timer
	lastIn     byte // last byte copied in (copyIn only)

	queue            chan report
	reported         chan struct{} // closed when reportLoop ends
	presses, dropped atomic.Int64
}

// openPty opens the pty pair; the master is made non-blocking for master's
// polled I/O (pty.Open leaves it blocking).
func (p *proxy) openPty() (tty *os.File, err error) {
	m, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("open pty: %w", err)
	}
	fd := int(m.Fd())
	if err := unix.SetNonblock(fd, true); err != nil {
		m.Close()
		tty.Close()
		return nil, fmt.Errorf("open pty: %w", err)
	}
	p.pty = &master{f: m, fd: fd, stop: p.stop}
	return tty, nil
}

func (p *proxy) makeRaw() error {
	p.rawMu.Lock()
	defer p.rawMu.Unlock()
	st, err := term.MakeRaw(p.inFd)
	if err != nil {
		return err
	}
	p.saved = st
	return nil
}

// restore puts the user's terminal back as it was; safe to call repeatedly.
func (p *proxy) restore() {
	p.rawMu.Lock()
	defer p.rawMu.Unlock()
	if p.saved != nil {
		term.Restore(p.inFd, p.saved)
		p.saved = nil
	}
}

// resize copies the user's terminal size to the pty (pty.InheritSize on
// descriptors).
func (p *proxy) resize() {
	if ws, err := unix.IoctlGetWinsize(p.inFd, unix.TIOCGWINSZ); err == nil {
		unix.IoctlSetWinsize(p.pty.fd, unix.TIOCSWINSZ, ws)
	}
}

func (p *proxy) signal(child *os.Process, sig syscall.Signal) {
	switch sig {
	case unix.SIGWINCH:
		if p.terminal {
			p.resize()
		}
	case unix.SIGTSTP:
		p.rawMu.Lock()
		wasRaw := p.saved != nil
		p.rawMu.Unlock()
		p.restore()
		// Returns once continued: a stop signal sent to oneself is acted on
		// before the call returns to user code.
		unix.Kill(os.Getpid(), unix.SIGSTOP)
		if wasRaw {
			p.makeRaw()
			p.resize()
		}
	default:
		child.Signal(sig)
	}
}

// copyIn copies the user's input to the pty, then decodes it.
func (p *proxy) copyIn() {
	buf := make([]byte, bufSize)
	wrote := false
	for {
		n, err := p.in.read(buf)
		if n > 0 {
			at := time.Now()
			if p.pty.write(buf[:n]) != nil {
				return
			}
			wrote, p.lastIn = true, buf[n-1]
			var ps []keytap.Press
			if n == len(buf) {
				ps = p.dec.FeedPartial(buf[:n], at) // the read may have cut a write short
			} else {
				ps = p.dec.Feed(buf[:n], at)
			}
			p.report(ps)
			if dl, ok := p.dec.Deadline(); ok {
				p.flushTimer.Reset(time.Until(dl))
			}
		}
		if err != nil {
			if err == io.EOF && !p.terminal {
				p.sendEOF(wrote)
			}
			return
		}
	}
}

// sendEOF passes the end of a non-terminal input (a pipe, a file) on to a
// command reading its pty in canonical mode, as a user would type it: VEOF
// at the start of a line, twice after a partial one (the first only ends
// the line).
func (p *proxy) sendEOF(wrote bool) {
	t, err := unix.IoctlGetTermios(p.pty.fd, ioctlGetTermios)
	if err != nil || t.Lflag&unix.ICANON == 0 {
		return
	}
	eof := []byte{t.Cc[unix.VEOF]}
	if wrote && p.lastIn != '\n' {
		eof = append(eof, eof[0])
	}
	p.pty.write(eof)
}

// flush runs from flushTimer: a pending lone ESC whose timeout passed with
// nothing following is an Esc press.
func (p *proxy) flush() {
	p.report(p.dec.Flush(time.Now()))
	if dl, ok := p.dec.Deadline(); ok {
		p.flushTimer.Reset(time.Until(dl)) // fired a little early
	}
}

// copyOut copies the command's output to the user and shows it to the
// decoder. A failing Stdout does not stop it: the command must not block on
// a full pty. Once the command exited it drains what is left, but not
// forever: a background process may still hold the pty open.
func (p *proxy) copyOut() {
	buf := make([]byte, bufSize)
	wake, timeout := p.exit, time.Duration(-1)
	for {
		n, err := p.pty.read(buf, wake, timeout)
		if err == errStopped {
			wake, timeout = nil, drainIdle
			continue
		}
		if err != nil {
			return // EOF: every holder of the pty's other side is gone
		}
		p.stdout.Write(buf[:n])
		p.dec.ObserveOutput(buf[:n])
	}
}

// report queues presses for the reporter without ever waiting.
func (p *proxy) report(ps []keytap.Press) {
	for _, press := range ps {
		p.presses.Add(1)
		if p.queue == nil {
			continue
		}
		select {
		case p.queue <- report{press: press}:
		default:
			p.dropped.Add(1)
		}
	}
}

// reportLoop delivers the queue until the tab's close. The queue is never
// closed: a late ESC timer may still send to it.
func (p *proxy) reportLoop() {
	defer close(p.reported)
	p.rep.TabOpened(p.tab, p.pid)
	for r := range p.queue {
		if r.closed {
			p.rep.TabClosed(p.tab, p.pid)
			return
		}
		p.rep.Key(p.tab, p.pid, r.press)
	}
}

// finishReports queues the tab's close and gives the reporter a bounded time
// to deliver what is left.
func (p *proxy) finishReports() {
	deadline := time.NewTimer(reportWait)
	defer deadline.Stop()
	select {
	case p.queue <- report{closed: true}:
	case <-deadline.C:
		return
	}
	select {
	case <-p.reported:
	case <-deadline.C:
	}
}

// withTab returns env (the current environment if nil) with LOGWATCH_TAB set
// to tab, LOGWATCH_TAB_PID to this process, and any other value of them
// removed.
func withTab(env []string, tab string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !strings.HasPrefix(kv, TabEnv+"=") && !strings.HasPrefix(kv, TabPIDEnv+"=") {
			out = append(out, kv)
		}
	}
	return append(out, TabEnv+"="+tab, TabPIDEnv+"="+strconv.Itoa(os.Getpid()))
}

// exitCode is the status a shell would report: the exit code, or 128+signal.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// rawFd returns f's descriptor without File.Fd's side effect of switching a
// pollable file to blocking mode; -1 if it has none.
func rawFd(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	rc.Control(func(u uintptr) { fd = int(u) })
	return fd
}
