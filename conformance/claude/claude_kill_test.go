package claude_test

import "syscall"

// syscallKill kills a process as `kill -9` does.
func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
