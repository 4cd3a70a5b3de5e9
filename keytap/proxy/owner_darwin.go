package proxy

import "golang.org/x/sys/unix"

// parentPID asks the kernel for the process's parent.
func parentPID(pid int) (int, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) {
		return 0, false
	}
	return int(kp.Eproc.Ppid), true
}
