package proctree

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// userHZ is the unit of /proc's clock-tick fields: fixed at 100 in Linux's
// user-space ABI, whatever the kernel's own HZ.
const userHZ = 100

// started is when pid started, by the wall clock: the boot time
// (/proc/stat's btime) plus its start time in ticks since boot.
func started(pid int) (time.Time, error) {
	st, err := stat(pid)
	if err != nil {
		return time.Time{}, err
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	i := bytes.Index(b, []byte("\nbtime "))
	if i < 0 {
		return time.Time{}, fmt.Errorf("proctree: no btime in /proc/stat")
	}
	line := b[i+len("\nbtime "):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	btime, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("proctree: btime: %w", err)
	}
	return time.Unix(btime, 0).Add(time.Duration(st.start) * time.Second / userHZ), nil
}

// stat parses /proc/PID/stat: "pid (comm) state ppid … starttime …"; comm
// may hold spaces and parentheses, so fields are counted after the last ')'
// (field 3, state, is the first one there; starttime is field 22).
func stat(pid int) (procStat, error) {
	if pid <= 0 {
		return procStat{}, fmt.Errorf("proctree: bad pid %d", pid)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b)
}

func parseStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	c := bytes.IndexByte(b, '(')
	if i < 0 || c < 0 || c > i {
		return procStat{}, fmt.Errorf("proctree: malformed stat %q", b)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("proctree: short stat (%d fields after comm)", len(f))
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return procStat{}, fmt.Errorf("proctree: ppid: %w", err)
	}
	start, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("proctree: starttime: %w", err)
	}
	return procStat{ppid: ppid, start: start, zombie: f[0][0] == 'Z' || f[0][0] == 'X', comm: string(b[c+1 : i])}, nil
}

// args reads pid's argument list (/proc/PID/cmdline), its first maxArgv
// bytes.
func args(pid int) ([]string, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf [maxArgv]byte
	n, err := io.ReadFull(f, buf[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	return splitArgs(buf[:n]), nil
}

// splitArgs splits a NUL-separated argument list.
func splitArgs(b []byte) []string {
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil
	}
	var argv []string
	for _, a := range bytes.Split(b, []byte{0}) {
		argv = append(argv, string(a))
	}
	return argv
}
