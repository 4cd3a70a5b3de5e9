package proxy

import (
	"bytes"
	"os"
	"strconv"
)

// parentPID reads the parent pid from /proc/PID/stat ("pid (comm) state
// ppid …"; comm may hold spaces and parentheses, so parse after the last ')').
func parentPID(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
}
