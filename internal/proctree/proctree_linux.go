package proctree

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

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
	if i < 0 {
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
	return procStat{ppid: ppid, start: start, zombie: f[0][0] == 'Z' || f[0][0] == 'X'}, nil
}
