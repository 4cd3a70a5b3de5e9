package proctree

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// stat asks the kernel for the process's parent and start time
// (microseconds since the epoch).
func stat(pid int) (procStat, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return procStat{}, err
	}
	if kp.Proc.P_pid != int32(pid) {
		return procStat{}, fmt.Errorf("proctree: no process %d", pid)
	}
	tv := kp.Proc.P_starttime
	return procStat{
		ppid:   int(kp.Eproc.Ppid),
		start:  uint64(tv.Sec)*1e6 + uint64(tv.Usec),
		zombie: kp.Proc.P_stat == 5, // SZOMB
	}, nil
}

// started is when pid started, by the wall clock.
func started(pid int) (time.Time, error) {
	st, err := stat(pid)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMicro(int64(st.start)), nil
}

// args is not read here: Nearest finds no process.
func args(int) ([]string, error) { return nil, ErrUnsupported }
