// Package sshtest starts a real OpenSSH server for the project's tests: on
// a loopback port, with a host key and a client key of its own, for a
// throwaway user (as root: a user created for the test and deleted after;
// otherwise the current user, the only one an unprivileged sshd can log
// in). Clients reach it with the ssh_config it writes (ssh -F Config
// Host), known_hosts checked.
package sshtest

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/logwatch/logwatch/internal/proctree"
	"github.com/logwatch/logwatch/internal/testsupport"
)

// T is what the package needs of a test: T satisfies it, and a
// benchmark program (bench/remotebench) brings its own.
type T interface {
	testsupport.Stopper
	Fatal(args ...any)
	Cleanup(func())
	Failed() bool
	Logf(format string, args ...any)
}

// Host is the name the client config gives the server.
const Host = "lwtest"

// Server is a running sshd and the user it lets in.
type Server struct {
	Port    int
	User    string
	Uid     int
	Gid     int
	Home    string // the user's home (as root: a fresh one under Base)
	Base    string // a directory the user owns, for its files (readable by all)
	Config  string // ssh_config for clients: ssh -F Config Host
	argv    []string
	cmd     *exec.Cmd
	logPath string
}

// Start starts sshd, or stops the test (testsupport.Missing) when the
// machine has no OpenSSH server or client.
func Start(t T) *Server {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		if _, e := os.Stat("/usr/sbin/sshd"); e == nil {
			sshd, err = "/usr/sbin/sshd", nil
		}
	}
	if err != nil {
		testsupport.Missing(t, "no sshd (Debian: apt-get install openssh-server): %v", err)
	}
	for _, tool := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			testsupport.Missing(t, "no %s (Debian: apt-get install openssh-client): %v", tool, err)
		}
	}
	dir, err := os.MkdirTemp("", "lwssh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &Server{logPath: filepath.Join(dir, "sshd.log")}
	if os.Geteuid() == 0 {
		s.addUser(t, dir)
	} else {
		u, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		s.User, s.Uid, s.Gid, s.Home = u.Username, os.Getuid(), os.Getgid(), u.HomeDir
		s.Base = filepath.Join(dir, "base")
		if err := os.Mkdir(s.Base, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	keygen := func(path string) string {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "lwtest", "-f", path).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
		pub, err := os.ReadFile(path + ".pub")
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(pub))
	}
	hostPub := keygen(filepath.Join(dir, "host_key"))
	clientPub := keygen(filepath.Join(dir, "id"))
	write(t, filepath.Join(dir, "authorized_keys"), clientPub+"\n", 0o644)
	s.Port = freePort(t)
	write(t, filepath.Join(dir, "known_hosts"), fmt.Sprintf("[127.0.0.1]:%d %s\n", s.Port, hostPub), 0o644)
	if os.Geteuid() == 0 {
		// The privilege-separation directory Debian's sshd wants.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(dir, "sshd_config"), fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
AuthorizedKeysFile %s
AllowUsers %s
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin no
LogLevel VERBOSE
`, s.Port, filepath.Join(dir, "host_key"), filepath.Join(dir, "sshd.pid"), filepath.Join(dir, "authorized_keys"), s.User), 0o600)
	s.Config = filepath.Join(dir, "ssh_config")
	write(t, s.Config, fmt.Sprintf(`Host %s
  HostName 127.0.0.1
  Port %d
  User %s
  IdentityFile %s
  IdentitiesOnly yes
  UserKnownHostsFile %s
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
`, Host, s.Port, s.User, filepath.Join(dir, "id"), filepath.Join(dir, "known_hosts")), 0o644)
	s.argv = []string{sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config")}
	s.start(t)
	t.Cleanup(func() {
		s.Stop(t)
		if t.Failed() {
			b, _ := os.ReadFile(s.logPath)
			t.Logf("sshd log:\n%s", b)
		}
	})
	return s
}

// start runs sshd (-D: in the foreground; -e: its log to stderr) in a
// process group of its own, which its connections' processes join.
func (s *Server) start(t T) {
	t.Helper()
	s.cmd = exec.Command(s.argv[0], s.argv[1:]...)
	// A file, not a pipe: the processes of the sessions it served keep
	// what they inherited open, and Wait would wait for them.
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(s.logPath)
			t.Fatalf("sshd never listened: %v\n%s", err, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills sshd and every connection it serves: a link through it
// drops as when the host goes away.
func (s *Server) Stop(t T) {
	t.Helper()
	if s.cmd == nil {
		return
	}
	kids := s.kids()
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	for _, pid := range kids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	s.cmd.Wait()
	s.cmd = nil
}

// kids are the processes of the connections sshd serves. Each
// connection's sshd calls setsid: found by descent, not group.
func (s *Server) kids() []int {
	var kids []int
	if ents, err := os.ReadDir("/proc"); err == nil {
		for _, e := range ents {
			if pid, err := strconv.Atoi(e.Name()); err == nil && pid != s.cmd.Process.Pid {
				if d, _ := proctree.Descends(pid, s.cmd.Process.Pid); d {
					kids = append(kids, pid)
				}
			}
		}
	}
	return kids
}

// Freeze stops sshd and every connection it serves without closing
// anything (SIGSTOP), as a host that hangs or a laptop that sleeps: the
// connections stay open and nothing answers on them. Thaw undoes it.
func (s *Server) Freeze(t T) {
	t.Helper()
	s.signal(syscall.SIGSTOP)
}

// Thaw lets a frozen server run again.
func (s *Server) Thaw(t T) {
	t.Helper()
	s.signal(syscall.SIGCONT)
}

func (s *Server) signal(sig syscall.Signal) {
	if s.cmd == nil {
		return
	}
	syscall.Kill(s.cmd.Process.Pid, sig)
	for _, pid := range s.kids() {
		syscall.Kill(pid, sig)
	}
}

// Restart starts sshd again, on the same port, with the same keys.
func (s *Server) Restart(t T) {
	t.Helper()
	s.Stop(t)
	s.start(t)
}

// addUser creates a throwaway user with its home under dir, deleted with
// the test.
func (s *Server) addUser(t T, dir string) {
	t.Helper()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("lwr%06d", rand.IntN(1_000_000))
	home := filepath.Join(dir, "home")
	if out, err := exec.Command("useradd", "-M", "-p", "*", "-d", home, "-s", "/bin/sh", name).CombinedOutput(); err != nil {
		testsupport.Missing(t, "useradd %s: %v: %s", name, err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	s.User, s.Home = name, home
	s.Uid, _ = strconv.Atoi(u.Uid)
	s.Gid, _ = strconv.Atoi(u.Gid)
	s.Base = filepath.Join(dir, "base")
	for _, d := range []string{home, s.Base} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, s.Uid, s.Gid); err != nil {
			t.Fatal(err)
		}
	}
}

// Command is name run as the server's user, in its home, with the
// environment a login over ssh gives it (HOME, USER, PATH; no
// XDG_RUNTIME_DIR) and env.
func (s *Server) Command(env []string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = s.Home
	cmd.Env = append([]string{"HOME=" + s.Home, "USER=" + s.User, "LOGNAME=" + s.User,
		"PATH=/usr/local/bin:/usr/bin:/bin"}, env...)
	if os.Geteuid() == 0 && s.Uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(s.Uid), Gid: uint32(s.Gid)}}
	}
	return cmd
}

// Own gives path (and what mkdir made on the way under Base or Home) to
// the server's user.
func (s *Server) Own(t T, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	if err := filepath.Walk(path, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, s.Uid, s.Gid)
	}); err != nil {
		t.Fatal(err)
	}
}

// SSH is an ssh command to the server running remote (a shell command
// line there).
func (s *Server) SSH(extra []string, remote string) *exec.Cmd {
	args := append([]string{"-F", s.Config}, extra...)
	return exec.Command("ssh", append(args, Host, remote)...)
}

func freePort(t T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func write(t T, path, s string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}
