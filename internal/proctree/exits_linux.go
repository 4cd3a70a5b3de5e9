package proctree

import (
	"errors"
	"sync"

	"golang.org/x/sys/unix"
)

// Exits tells when watched processes exit, without polling: each is a
// pidfd (Linux 5.3+) in one epoll set, waited on by one goroutine.
//
// An epoll event names its watch by a 64-bit id, never by the pidfd's
// number: between EpollWait and the lookup, Forget may close a pidfd and
// Watch get the same number for another process, and the stale event must
// not be told as that one's exit.
type Exits struct {
	ep, wake int
	notify   func(pid int, start uint64)

	mu     sync.Mutex
	ids    map[uint64]watch // epoll event id → the watch
	byID   map[Proc]uint64
	next   uint64 // the last id given; 0 is the wake fd's
	closed bool   // ep and wake are closed, or about to be: no more use
	done   chan struct{}
}

type watch struct {
	fd int
	p  Proc
}

// Proc is a process: its pid and start time (StartTime).
type Proc struct {
	Pid   int
	Start uint64
}

// wakeID is the wake eventfd's epoll event id.
const wakeID = 0

// NewExits starts watching; notify is called (from the watcher's own
// goroutine) once for each watched process that exits. It fails where the
// kernel has no pidfds: poll instead.
func NewExits(notify func(pid int, start uint64)) (*Exits, error) {
	x, err := newExits(notify)
	if err != nil {
		return nil, err
	}
	go x.loop()
	return x, nil
}

// newExits sets up the epoll set; the caller runs loop.
func newExits(notify func(pid int, start uint64)) (*Exits, error) {
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
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, wake, epollEvent(wakeID)); err != nil {
		unix.Close(ep)
		unix.Close(wake)
		return nil, err
	}
	return &Exits{ep: ep, wake: wake, notify: notify, ids: map[uint64]watch{}, byID: map[Proc]uint64{}, done: make(chan struct{})}, nil
}

// epollEvent carries id in the event's 64-bit data (Fd is its low half,
// Pad its high half on every Linux arch).
func epollEvent(id uint64) *unix.EpollEvent {
	return &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(uint32(id)), Pad: int32(uint32(id >> 32))}
}

func eventID(ev unix.EpollEvent) uint64 {
	return uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
}

// Watch adds a process. It reports false when the process is not (or no
// longer) the one with that start time: gone already; or when the watcher
// is closed (or died): poll instead.
func (x *Exits) Watch(pid int, start uint64) bool {
	p := Proc{pid, start}
	x.mu.Lock()
	_, ok := x.byID[p]
	closed := x.closed
	x.mu.Unlock()
	if ok || closed {
		return ok
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
	if _, ok := x.byID[p]; ok || x.closed {
		unix.Close(fd)
		return ok
	}
	x.next++
	id := x.next
	if err := unix.EpollCtl(x.ep, unix.EPOLL_CTL_ADD, fd, epollEvent(id)); err != nil {
		unix.Close(fd)
		return false
	}
	x.ids[id], x.byID[p] = watch{fd, p}, id
	return true
}

// Forget stops watching a process.
func (x *Exits) Forget(pid int, start uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if id, ok := x.byID[Proc{pid, start}]; ok {
		x.drop(id)
	}
}

// Len is how many processes are watched.
func (x *Exits) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.ids)
}

// Close stops the watcher and releases every pidfd; once it returns,
// notify is not called any more. Closing twice is fine.
func (x *Exits) Close() {
	x.mu.Lock()
	if !x.closed {
		// loop has not shut down yet, so wake is still open: it closes it
		// only after setting closed under mu.
		x.closed = true
		unix.Write(x.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	}
	x.mu.Unlock()
	<-x.done
}

// drop forgets a watch and closes its pidfd; x.mu is held.
func (x *Exits) drop(id uint64) {
	w := x.ids[id]
	unix.EpollCtl(x.ep, unix.EPOLL_CTL_DEL, w.fd, nil)
	unix.Close(w.fd)
	delete(x.ids, id)
	delete(x.byID, w.p)
}

// loop waits for exits until Close (or an epoll failure), then releases
// everything: it alone closes ep and wake.
func (x *Exits) loop() {
	defer close(x.done)
	defer func() {
		x.mu.Lock()
		x.closed = true
		for id := range x.ids {
			x.drop(id)
		}
		unix.Close(x.wake)
		unix.Close(x.ep)
		x.mu.Unlock()
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
		exited, stop := x.handle(evs[:n])
		for _, p := range exited {
			x.notify(p.Pid, p.Start)
		}
		if stop {
			return
		}
	}
}

// handle turns the events EpollWait returned into the exits to tell, and
// says whether Close woke the loop. An event of a watch dropped since (its
// id is gone) is stale and told as nothing.
func (x *Exits) handle(evs []unix.EpollEvent) (exited []Proc, stop bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, ev := range evs {
		id := eventID(ev)
		if id == wakeID {
			return exited, true
		}
		if w, ok := x.ids[id]; ok && pidfdExited(w.fd) {
			x.drop(id)
			exited = append(exited, w.p)
		}
	}
	return exited, x.closed
}

// pidfdExited confirms an exit: a pidfd polls readable once its process
// has exited (reaped or not).
func pidfdExited(fd int) bool {
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n == 1 && fds[0].Revents&unix.POLLIN != 0
	}
}
