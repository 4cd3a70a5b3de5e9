package proxy_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/logwatch/logwatch/keytap"
	"github.com/logwatch/logwatch/keytap/proxy"
)

// The test binary doubles as the proxied command: with PROXYTEST_CHILD set
// it runs one of the child programs below instead of the tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv("PROXYTEST_CHILD"); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

// child modes:
//
//	record  raw tty; prints each read as "chunk:<hex>"; the chunk "exit\r" exits 0
//	size    prints "size R C" at start and on every SIGWINCH; "q" exits 0
//	exit    exits with $PROXYTEST_CODE
//	signal  kills itself with signal $PROXYTEST_CODE
//	wait    prints "ready" and sleeps until a signal kills it
//	cat     copies stdin to stdout (canonical tty) and exits 0 at EOF
func child(mode string) int {
	code, _ := strconv.Atoi(os.Getenv("PROXYTEST_CODE"))
	nl := "\n" // a cooked tty (ONLCR) shows it as \r\n
	if mode == "record" || mode == "size" {
		if _, err := term.MakeRaw(0); err != nil {
			return 99
		}
		nl = "\r\n"
	}
	fmt.Printf("tab=%s%s", os.Getenv(proxy.TabEnv), nl)
	switch mode {
	case "record":
		os.Stdout.WriteString(os.Getenv("PROXYTEST_PUSH")) // a keyboard mode, as agents push it
		fmt.Print("ready\r\n")
		buf := make([]byte, 4096)
		for {
			n, err := os.Stdin.Read(buf)
			if string(buf[:n]) == "exit\r" {
				return 0
			}
			if n > 0 {
				fmt.Printf("chunk:%x\r\n", buf[:n])
			}
			if err != nil {
				return 98
			}
		}
	case "size":
		winch := make(chan os.Signal, 4)
		signal.Notify(winch, syscall.SIGWINCH)
		quit := make(chan struct{})
		go func() {
			b := make([]byte, 1)
			for {
				if _, err := os.Stdin.Read(b); err != nil || b[0] == 'q' {
					close(quit)
					return
				}
			}
		}()
		for {
			ws, _ := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
			fmt.Printf("size %d %d\r\n", ws.Row, ws.Col)
			select {
			case <-winch:
			case <-quit:
				return 0
			}
		}
	case "exit":
		return code
	case "signal":
		// A shell, not this Go program: the Go runtime turns some signals
		// (SIGSEGV, SIGABRT) into an exit status of its own.
		syscall.Exec("/bin/sh", []string{"sh", "-c", "kill -" + strconv.Itoa(code) + " $$"}, nil)
		return 97
	case "wait":
		fmt.Print("ready" + nl)
		time.Sleep(30 * time.Second)
		return 96
	case "cat":
		io.Copy(os.Stdout, os.Stdin)
		return 0
	}
	return 95
}

// userTerm is the user's side: a pty whose slave the proxy reads and writes
// as a terminal, and whose master the test types into and reads the screen
// from.
type userTerm struct {
	master, slave *os.File
	mu            sync.Mutex
	out           bytes.Buffer
	grew          chan struct{}
}

func newUserTerm(t *testing.T, rows, cols uint16) *userTerm {
	t.Helper()
	m, s, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	if err := pty.Setsize(m, &pty.Winsize{Rows: rows, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	u := &userTerm{master: m, slave: s, grew: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			u.mu.Lock()
			u.out.Write(buf[:n])
			u.mu.Unlock()
			select {
			case u.grew <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		s.Close() // the reader then gets EIO
		<-done
		m.Close()
	})
	return u
}

func (u *userTerm) screen() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.out.String()
}

// waitFor waits until the screen satisfies ok.
func (u *userTerm) waitFor(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if s := u.screen(); ok(s) {
			return s
		}
		select {
		case <-u.grew:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; screen:\n%q", what, u.screen())
		}
	}
}

func (u *userTerm) waitText(t *testing.T, text string) {
	t.Helper()
	u.waitFor(t, strconv.Quote(text), func(s string) bool { return strings.Contains(s, text) })
}

var chunkRE = regexp.MustCompile(`chunk:([0-9a-f]*)\r\n`)

// chunks are the reads the record child reported so far.
func chunks(screen string) []string {
	var out []string
	for _, m := range chunkRE.FindAllStringSubmatch(screen, -1) {
		b, _ := hex.DecodeString(m[1])
		out = append(out, string(b))
	}
	return out
}

func (u *userTerm) waitChunks(t *testing.T, n int) []string {
	t.Helper()
	s := u.waitFor(t, fmt.Sprintf("%d chunks", n), func(s string) bool { return len(chunks(s)) >= n })
	return chunks(s)
}

func (u *userTerm) typ(t *testing.T, s string) {
	t.Helper()
	if _, err := u.master.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// recorder is a Reporter that keeps what it is told.
type recorder struct {
	mu     sync.Mutex
	opened []int        // pids, in order
	pids   map[int]bool // of every key and close
	tabs   map[string]bool
	keys   []keytap.Key
	closed []string
	more   chan struct{}
}

func newRecorder() *recorder {
	return &recorder{tabs: map[string]bool{}, pids: map[int]bool{}, more: make(chan struct{}, 1)}
}

func (r *recorder) TabOpened(tab string, pid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.keys) > 0 || len(r.closed) > 0 {
		panic("TabOpened after another report")
	}
	r.tabs[tab] = true
	r.opened = append(r.opened, pid)
}

func (r *recorder) Key(tab string, pid int, p keytap.Press) {
	r.mu.Lock()
	r.tabs[tab] = true
	r.pids[pid] = true
	r.keys = append(r.keys, p.Key)
	r.mu.Unlock()
	select {
	case r.more <- struct{}{}:
	default:
	}
}

func (r *recorder) TabClosed(tab string, pid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pids[pid] = true
	r.closed = append(r.closed, tab)
}

func (r *recorder) got() []keytap.Key {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]keytap.Key(nil), r.keys...)
}

func (r *recorder) waitKeys(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for len(r.got()) < n {
		select {
		case <-r.more:
		case <-deadline:
			t.Fatalf("timed out waiting for %d presses; got %v", n, r.got())
		}
	}
}

type outcome struct {
	res proxy.Result
	err error
}

// start runs the proxy over u with the test binary in mode as the command.
func start(t *testing.T, u *userTerm, mode string, cfg proxy.Config, env ...string) <-chan outcome {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// GORACE: a race-enabled child would linger a second at exit.
	cmd.Env = append(os.Environ(), append([]string{"PROXYTEST_CHILD=" + mode, "GORACE=atexit_sleep_ms=0"}, env...)...)
	if u != nil {
		cfg.Stdin, cfg.Stdout = u.slave, u.slave
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := proxy.Run(cmd, cfg)
		done <- outcome{res, err}
	}()
	return done
}

func wait(t *testing.T, done <-chan outcome) proxy.Result {
	t.Helper()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o.res
	case <-time.After(15 * time.Second):
		t.Fatal("proxy did not return")
	}
	return proxy.Result{}
}

func termios(t *testing.T, f *os.File) unix.Termios {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var tio *unix.Termios
	rc.Control(func(fd uintptr) { tio, err = unix.IoctlGetTermios(int(fd), proxy.IoctlGetTermios) })
	if err != nil {
		t.Fatal(err)
	}
	return *tio
}

// Every chunk the user's terminal writes reaches the command as one read,
// byte for byte, keys and escape sequences included.
func TestBytesReachTheCommandUnchangedInTheSameChunks(t *testing.T) {
	u := newUserTerm(t, 24, 80)
	before := termios(t, u.slave)
	rec := newRecorder()
	done := start(t, u, "record", proxy.Config{Reporter: rec})
	u.waitText(t, "ready\r\n")
	if got := termios(t, u.slave); got.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 {
		t.Errorf("the user's terminal is not raw while proxying: lflag %#x", got.Lflag)
	}

	sent := []string{
		"a", "hello world", "\x03", "\x1b", "\x1b[A", "\x00\xff\x7f\r\n\t", "\x1b\x1b",
		"\x1b[200~pasted \x03 and \x1b text\x1b[201~", "\x1b[27u", "\x1b[99;5u", "\x11\x13\x1a\x1c", // ^Q ^S ^Z ^\
		strings.Repeat("0123456789", 100), "é€🙂",
	}
	for i, c := range sent {
		u.typ(t, c)
		u.waitChunks(t, i+1) // the next write only after this one was read: one chunk each
	}
	got := u.waitChunks(t, len(sent))
	for i := range sent {
		if got[i] != sent[i] {
			t.Errorf("chunk %d: command read %q, user wrote %q", i, got[i], sent[i])
		}
	}
	if len(got) != len(sent) {
		t.Errorf("command read %d chunks, user wrote %d: %q", len(got), len(sent), got)
	}
	u.typ(t, "exit\r")
	res := wait(t, done)
	if res.ExitCode != 0 {
		t.Errorf("exit code %d", res.ExitCode)
	}
	if after := termios(t, u.slave); after != before {
		t.Errorf("terminal not restored:\nbefore %+v\nafter  %+v", before, after)
	}
}

// Interrupt keys and Enter are reported in every encoding; arrows, pasted
// 03/1b/0d, Shift+Enter and key releases are not. The tab is the command's LOGWATCH_TAB and its close
// is reported last.
func TestPressesReported(t *testing.T) {
	u := newUserTerm(t, 24, 80)
	rec := newRecorder()
	done := start(t, u, "record", proxy.Config{Reporter: rec, Tab: "tab-7"}, "PROXYTEST_PUSH=\x1b[>1u")
	u.waitText(t, "ready\r\n")

	steps := []struct {
		bytes string
		key   keytap.Key // 0: no press
	}{
		{"\x1b[A", 0},        // arrow
		{"\x1bOB", 0},        // SS3 arrow
		{"\x1b", keytap.Esc}, // legacy Esc under the kitty protocol: reported after the ESC timeout
		{"\x03", keytap.CtrlC},
		{"\x1b[200~rm \x03\x1b -rf\x1b[201~", 0}, // bracketed paste
		{"\x1b[27u", keytap.Esc},                 // kitty Esc
		{"\x1b[27;1:3u", 0},                      // kitty Esc release
		{"\x1b[99;5u", keytap.CtrlC},             // kitty Ctrl+C
		{"\x1b[99;6u", 0},                        // Ctrl+Shift+C
		{"x", 0},
		{"\r", keytap.Enter},          // a submit
		{"\x1b[13u", keytap.Enter},    // kitty Enter
		{"\x1b[13;2u", 0},             // Shift+Enter: a newline
		{"\x1b[200~a\rb\x1b[201~", 0}, // pasted 0d
	}
	var want []keytap.Key
	for i, s := range steps {
		u.typ(t, s.bytes)
		u.waitChunks(t, i+1)
		if s.key != 0 {
			want = append(want, s.key)
			// A lone ESC is a key only if nothing follows it in time.
			rec.waitKeys(t, len(want))
		}
	}
	u.typ(t, "exit\r")
	res := wait(t, done)
	want = append(want, keytap.Enter) // exit's

	if got := rec.got(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("presses %v, want %v", got, want)
	}
	if res.Presses != len(want) || res.Dropped != 0 {
		t.Errorf("result %+v", res)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if res.Tab != "tab-7" || len(rec.tabs) != 1 || !rec.tabs["tab-7"] || fmt.Sprint(rec.closed) != "[tab-7]" {
		t.Errorf("tab %q, keys reported for %v, closed %v", res.Tab, rec.tabs, rec.closed)
	}
	// The tab's process is reported first, then with every key and the close.
	if res.Pid <= 0 || fmt.Sprint(rec.opened) != fmt.Sprint([]int{res.Pid}) || len(rec.pids) != 1 || !rec.pids[res.Pid] {
		t.Errorf("command pid %d; opened with %v, keys and close with %v", res.Pid, rec.opened, rec.pids)
	}
	if !strings.Contains(u.screen(), "tab=tab-7\r\n") {
		t.Errorf("the command's LOGWATCH_TAB is not tab-7: %q", u.screen())
	}
}

func TestFreshTabPerRun(t *testing.T) {
	tabs := map[string]bool{}
	for range 2 {
		u := newUserTerm(t, 24, 80)
		done := start(t, u, "exit", proxy.Config{}, proxy.TabEnv+"=inherited")
		res := wait(t, done)
		if !strings.HasPrefix(res.Tab, "wrap-") || tabs[res.Tab] {
			t.Errorf("tab %q is not fresh", res.Tab)
		}
		tabs[res.Tab] = true
		u.waitText(t, "tab="+res.Tab+"\r\n")
	}
}

func TestWindowSizePropagates(t *testing.T) {
	u := newUserTerm(t, 30, 100)
	done := start(t, u, "size", proxy.Config{})
	u.waitText(t, "size 30 100\r\n")
	if err := pty.Setsize(u.master, &pty.Winsize{Rows: 41, Cols: 132}); err != nil {
		t.Fatal(err)
	}
	// The user's terminal has no process group of its own to signal here;
	// a real one sends SIGWINCH to the foreground job, the proxy.
	syscall.Kill(os.Getpid(), syscall.SIGWINCH)
	u.waitText(t, "size 41 132\r\n")
	u.typ(t, "q")
	if res := wait(t, done); res.ExitCode != 0 {
		t.Errorf("exit code %d", res.ExitCode)
	}
}

func TestExitStatusPassesThrough(t *testing.T) {
	tests := []struct {
		mode string
		code int
		want int
	}{
		{"exit", 0, 0},
		{"exit", 3, 3},
		{"exit", 255, 255},
		{"signal", int(syscall.SIGKILL), 128 + 9},
		{"signal", int(syscall.SIGTERM), 128 + 15},
		{"signal", int(syscall.SIGSEGV), 128 + 11},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s %d", tc.mode, tc.code), func(t *testing.T) {
			u := newUserTerm(t, 24, 80)
			before := termios(t, u.slave)
			rec := newRecorder()
			res := wait(t, start(t, u, tc.mode, proxy.Config{Reporter: rec}, fmt.Sprintf("PROXYTEST_CODE=%d", tc.code)))
			if res.ExitCode != tc.want {
				t.Errorf("exit code %d, want %d", res.ExitCode, tc.want)
			}
			if after := termios(t, u.slave); after != before {
				t.Error("terminal not restored")
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if fmt.Sprint(rec.closed) != "["+res.Tab+"]" {
				t.Errorf("tab closes reported: %v", rec.closed)
			}
		})
	}
}

// SIGTERM and SIGHUP sent to the proxy reach the command.
func TestSignalsForwarded(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			u := newUserTerm(t, 24, 80)
			before := termios(t, u.slave)
			done := start(t, u, "wait", proxy.Config{})
			u.waitText(t, "ready\r\n") // the proxy handles the signal from before the start
			syscall.Kill(os.Getpid(), sig)
			if res := wait(t, done); res.ExitCode != 128+int(sig) {
				t.Errorf("exit code %d, want %d", res.ExitCode, 128+int(sig))
			}
			if after := termios(t, u.slave); after != before {
				t.Error("terminal not restored")
			}
		})
	}
}

// With no daemon listening the command runs as usual and nothing but its
// own output reaches the screen.
func TestDaemonAbsent(t *testing.T) {
	u := newUserTerm(t, 24, 80)
	rep := proxy.NewClientReporter(t.TempDir() + "/no-daemon.sock")
	defer rep.Close()
	done := start(t, u, "record", proxy.Config{Reporter: rep})
	u.waitText(t, "ready\r\n")
	for i, s := range []string{"hello", "\x1b", "\x03", "\x1b[27u"} {
		u.typ(t, s)
		u.waitChunks(t, i+1)
	}
	u.typ(t, "exit\r")
	res := wait(t, done)
	if res.ExitCode != 0 || res.Presses != 4 { // three keys and exit's Enter
		t.Errorf("result %+v", res)
	}
	if n := rep.Failures(); n != 6 { // the tab's open, four keys and its close
		t.Errorf("%d failed reports, want 6", n)
	}
	screen := chunkRE.ReplaceAllString(u.screen(), "")
	if want := "tab=" + res.Tab + "\r\nready\r\n"; screen != want {
		t.Errorf("screen %q, want only the command's output %q", screen, want)
	}
}

// blocker is a reporter that hangs until released, like a stuck daemon.
type blocker struct{ release chan struct{} }

func (b blocker) TabOpened(string, int)         { <-b.release }
func (b blocker) Key(string, int, keytap.Press) { <-b.release }
func (b blocker) TabClosed(string, int)         { <-b.release }

// A reporter that never answers loses reports, never bytes, and does not
// keep the proxy from returning.
func TestStuckReporterNeverBlocksBytes(t *testing.T) {
	u := newUserTerm(t, 24, 80)
	b := blocker{release: make(chan struct{})}
	defer close(b.release)
	done := start(t, u, "record", proxy.Config{Reporter: b})
	u.waitText(t, "ready\r\n")
	const n = 100 // more than the queue holds
	for i := range n {
		u.typ(t, "\x1b[27u")
		u.waitChunks(t, i+1)
	}
	u.typ(t, "exit\r")
	res := wait(t, done)
	if res.Presses != n+1 || res.Dropped == 0 || res.Dropped >= n { // and exit's Enter
		t.Errorf("result %+v: want %d presses, some dropped", res, n)
	}
}

// Input that is not a terminal (a pipe, a reader) is passed through, and its
// end reaches a command reading its pty line by line.
func TestNonTerminalInput(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go func() { pw.WriteString("from a pipe\npartial line"); pw.Close() }()
	inputs := map[string]io.Reader{"pipe": pr, "reader": strings.NewReader("from a reader\n")}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			var out syncBuffer
			res := wait(t, start(t, nil, "cat", proxy.Config{Stdin: in, Stdout: &out}))
			if res.ExitCode != 0 {
				t.Errorf("exit code %d", res.ExitCode)
			}
			want := "from a " + name
			if s := out.String(); strings.Count(s, want) != 2 { // the pty's echo, then cat's copy
				t.Errorf("output %q lacks two copies of %q", s, want)
			}
		})
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestCommandNotStarted(t *testing.T) {
	u := newUserTerm(t, 24, 80)
	before := termios(t, u.slave)
	_, err := proxy.Run(exec.Command("/nonexistent/agent"), proxy.Config{Stdin: u.slave, Stdout: u.slave})
	if err == nil {
		t.Fatal("no error for a command that does not exist")
	}
	if after := termios(t, u.slave); after != before {
		t.Error("terminal not restored")
	}
}
