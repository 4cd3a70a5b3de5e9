package tmux

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// unixListening is /proc/net/unix's flag of a listening socket
// (__SO_ACCEPTCON).
const unixListening = "00010000"

// SocketOf returns the path of the socket the tmux server whose pid is pid
// listens on: among the unix sockets its descriptors hold, the listening
// one with a path (/proc/<pid>/fd, /proc/<pid>/net/unix). Any socket path
// works, tmux's default or one given with -L or -S. A process that is not a
// tmux server is refused.
func SocketOf(pid int) (string, error) {
	proc := "/proc/" + strconv.Itoa(pid)
	comm, err := os.ReadFile(proc + "/comm")
	if err != nil {
		return "", fmt.Errorf("tmux server %d: %w", pid, err)
	}
	if string(bytes.TrimSpace(comm)) != "tmux: server" { // its own name for itself (prctl)
		return "", fmt.Errorf("process %d is %q, not a tmux server", pid, strings.TrimSpace(string(comm)))
	}
	fds, err := os.ReadDir(proc + "/fd")
	if err != nil {
		return "", fmt.Errorf("tmux server %d: %w", pid, err)
	}
	held := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(proc + "/fd/" + fd.Name())
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			held[strings.TrimSuffix(inode, "]")] = true
		}
	}
	f, err := os.Open(proc + "/net/unix")
	if err != nil {
		return "", fmt.Errorf("tmux server %d: %w", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f) // a line is a socket: well under the 64 KiB a line may take
	for sc.Scan() {
		// Num RefCount Protocol Flags Type St Inode Path (which may hold spaces)
		fields, path := cutFields(sc.Text(), 7)
		if len(fields) == 7 && fields[3] == unixListening && held[fields[6]] && strings.HasPrefix(path, "/") {
			return path, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("tmux server %d: %w", pid, err)
	}
	return "", fmt.Errorf("tmux server %d: no listening socket found", pid)
}

// cutFields returns line's first n space-separated fields and what follows
// them, with its own spaces kept.
func cutFields(line string, n int) (fields []string, rest string) {
	rest = line
	for len(fields) < n {
		rest = strings.TrimLeft(rest, " ")
		f, r, ok := strings.Cut(rest, " ")
		if f == "" {
			break
		}
		fields, rest = append(fields, f), r
		if !ok {
			rest = ""
			break
		}
	}
	return fields, strings.TrimLeft(rest, " ")
}
