package proctree

import (
	"errors"
	"sync"

	"golang.org/x/sys/unix"
)

// Exits tells when watched processes exit, without polling: each is a
// pidfd (Linux 5.3+) in one epoll set, waited on by one goroutine.
type Exits struct {
	ep, wake int
	notify   func(pid int, start uint64)

	mu   sync.Mutex
	fds  map[int]Proc // pidfd → the process
	byID map[Proc]int
	done chan struct{}
}

// Proc is a process: its pid and start time (StartTime).
type Proc struct {
	Pid   int
	Start uint64
}

// NewExits starts watching; notify is called (from the watcher's own
// goroutine) once for each watched process that exits. It fails where the
// kernel has no pidfds: poll instead.
func NewExits(notify func(pid int, start uint64)) (*Exits, error) {
	fd, err := unix.PidfdOpen(unix.Getpid(), 0)
	if err != nil {
		return nil, errors.Join(ErrUnsupported, err)
	}
	unix.Close(fd)
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(ep)
		return nil, err
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, wake, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wake)}); err != nil {
		unix.Close(ep)
		unix.Close(wake)
		return nil, err
	}
	x := &Exits{ep: ep, wake: wake, notify: notify, fds: map[int]Proc{}, byID: map[Proc]int{}, done: make(chan struct{})}
	go x.loop()
	return x, nil
}

// Watch adds a process. It reports false when the process is not (or no
// longer) the one with that start time: gone already.
func (x *Exits) Watch(pid int, start uint64) bool {
	p := Proc{pid, start}
	x.mu.Lock()
	_, ok := x.byID[p]
	x.mu.Unlock()
	if ok {
		return true
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return false
	}
	// The pidfd names whatever process has the pid now: it is ours only if
	// that one still has our start time.
	if !Alive(pid, start) {
		unix.Close(fd)
		return false
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.byID[p]; ok {
		unix.Close(fd)
		return true
	}
	if err := unix.EpollCtl(x.ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}); err != nil {
		unix.Close(fd)
		return false
	}
	x.fds[fd], x.byID[p] = p, fd
	return true
}

// Forget stops watching a process.
func (x *Exits) Forget(pid int, start uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	p := Proc{pid, start}
	if fd, ok := x.byID[p]; ok {
		x.drop(fd, p)
	}
}

// Len is how many processes are watched.
func (x *Exits) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.fds)
}

// Close stops the watcher and releases every pidfd.
func (x *Exits) Close() {
	unix.Write(x.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	<-x.done
}

func (x *Exits) drop(fd int, p Proc) {
	unix.EpollCtl(x.ep, unix.EPOLL_CTL_DEL, fd, nil)
	unix.Close(fd)
	delete(x.fds, fd)
	delete(x.byID, p)
}

func (x *Exits) loop() {
	defer close(x.done)
	defer func() {
		x.mu.Lock()
		for fd, p := range x.fds {
			x.drop(fd, p)
		}
		x.mu.Unlock()
		unix.Close(x.wake)
		unix.Close(x.ep)
	}()
	evs := make([]unix.EpollEvent, 32)
	for {
		n, err := unix.EpollWait(x.ep, evs, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return
		}
		var exited []Proc
		x.mu.Lock()
		for _, ev := range evs[:n] {
			fd := int(ev.Fd)
			if fd == x.wake {
				x.mu.Unlock()
				return
			}
			if p, ok := x.fds[fd]; ok {
				x.drop(fd, p)
				exited = append(exited, p)
			}
		}
		x.mu.Unlock()
		for _, p := range exited {
			x.notify(p.Pid, p.Start)
		}
	}
}
