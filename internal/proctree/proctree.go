// Package proctree answers two questions about local processes from the
// kernel's process table: is one process the same as or a descendant of
// another (the tab that started an agent, through any shell in between), and
// is a pid still the process it was (its start time, which a reused pid does
// not share).
package proctree

import (
	"errors"
	"time"
)

// ErrUnsupported is returned where the platform gives no process table.
var ErrUnsupported = errors.New("proctree: process table not readable on this platform")

// maxDepth bounds the walk up the parent chain (a pid namespace has at most
// 4M pids; real chains are a few dozen long).
const maxDepth = 1 << 12

// Descends reports whether q is p or one of p's descendants, following q's
// parent chain up to init. known is false when q's own parent cannot be
// read (q is gone, or the platform cannot tell); a chain that breaks further
// up (an intermediate parent exited and q was reparented) is known: q no
// longer descends from p.
func Descends(q, p int) (descends, known bool) {
	if q <= 0 || p <= 0 {
		return false, q > 0
	}
	for i := 0; i < maxDepth && q > 0; i++ {
		if q == p {
			return true, true
		}
		if q == 1 {
			break
		}
		ppid, err := Parent(q)
		if err != nil {
			return false, i > 0
		}
		q = ppid
	}
	return false, true
}

// Alive reports whether pid runs and, when start is not 0, is the process
// that had that start time (StartTime): a different one means the pid was
// reused. A zombie counts as gone: it has exited.
func Alive(pid int, start uint64) bool {
	st, err := stat(pid)
	if err != nil || st.zombie {
		return false
	}
	return start == 0 || st.start == start
}

// Parent returns pid's parent pid.
func Parent(pid int) (int, error) {
	st, err := stat(pid)
	if err != nil {
		return 0, err
	}
	return st.ppid, nil
}

// StartTime returns when pid started, in the platform's own unit (on Linux
// field 22 of /proc/PID/stat, clock ticks since boot): only equality means
// anything, telling a reused pid from the process it was.
func StartTime(pid int) (uint64, error) {
	st, err := stat(pid)
	if err != nil {
		return 0, err
	}
	return st.start, nil
}

// Started returns when pid started, by the wall clock (to the tick: 10 ms
// on Linux). Unlike StartTime it can be compared with a time another
// program recorded.
func Started(pid int) (time.Time, error) { return started(pid) }

type procStat struct {
	ppid   int
	start  uint64
	zombie bool
	comm   string // the process's name, where the platform gives it
}

// maxArgv bounds the argument list read of a process: its first arguments
// name it.
const maxArgv = 4096

// Nearest returns the first of pid and its ancestors, at most hops of them
// (pid the first), for which is holds, given its name (on Linux
// /proc/PID/comm) and arguments (cut at 4 KiB): its pid and start time
// (StartTime). ok is false when none is, or the chain cannot be read (a
// platform without comm or arguments finds none). Each process costs two
// small reads of /proc.
func Nearest(pid, hops int, is func(comm string, argv []string) bool) (found int, start uint64, ok bool) {
	for i := 0; i < hops && pid > 1; i++ {
		st, err := stat(pid)
		if err != nil || st.zombie {
			return 0, 0, false
		}
		argv, err := args(pid)
		if err != nil {
			return 0, 0, false
		}
		if is(st.comm, argv) {
			return pid, st.start, true
		}
		pid = st.ppid
	}
	return 0, 0, false
}
