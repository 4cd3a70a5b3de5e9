package stats

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Proc is what a bench reads of a process in /proc/<pid>/stat.
type Proc struct {
	Comm  string // its command name
	PPid  int
	Ticks int64 // user+system CPU time in clock ticks (1/100 s)
}

// ReadProc reads /proc/<pid>/stat.
func ReadProc(pid int) (Proc, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Proc{}, err
	}
	s := string(b)
	// The fields after the command name, which is in parentheses and may
	// hold spaces and parentheses itself.
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open || end+2 > len(s) {
		return Proc{}, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, s)
	}
	f := strings.Fields(s[end+2:])
	if len(f) < 13 {
		return Proc{}, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	ppid, _ := strconv.Atoi(f[1])
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return Proc{Comm: s[open+1 : end], PPid: ppid, Ticks: u + st}, nil
}

// CPUTicks is a process's user+system CPU time in clock ticks (1/100 s);
// the bench fails when the process cannot be read.
func CPUTicks(pid int) int64 {
	p, err := ReadProc(pid)
	Check(err)
	return p.Ticks
}
