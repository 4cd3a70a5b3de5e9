package proxy

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The proxy does its terminal and pty I/O with plain system calls, each wait
// in poll(2) beside a wake-up pipe. A thread blocked in the kernel wakes the
// moment bytes arrive, with no hop through the runtime's poller on the
// keystroke path, and Run can still end every wait when the command exits.
// The user's terminal keeps its blocking mode: its file description is
// shared with the shell.

var (
	errStopped = errors.New("proxy: stopped")
	errTimeout = errors.New("proxy: timed out")
)

// waker is a pipe that, once woken, stays readable: every wait on it then
// returns errStopped.
type waker struct{ r, w int }

func newWaker() (*waker, error) {
	r, w, err := nonblockPipe()
	if err != nil {
		return nil, err
	}
	return &waker{r: r, w: w}, nil
}

func (w *waker) wake() { unix.Write(w.w, []byte{0}) }

func (w *waker) close() {
	unix.Close(w.r)
	unix.Close(w.w)
}

// pollOne waits until fd has one of events (or an error or hang-up, which
// the next read or write reports), wake fires (errStopped) or timeout
// passes (errTimeout). wake may be nil; timeout < 0 waits without limit.
func pollOne(fd int, events int16, wake *waker, timeout time.Duration) error {
	fds := []unix.PollFd{{Fd: int32(fd), Events: events}}
	if wake != nil {
		fds = append(fds, unix.PollFd{Fd: int32(wake.r), Events: unix.POLLIN})
	}
	ms := -1
	if timeout >= 0 {
		ms = int(timeout.Milliseconds())
	}
	for {
		for i := range fds {
			fds[i].Revents = 0
		}
		n, err := unix.Poll(fds, ms)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case n == 0:
			return errTimeout
		case wake != nil && fds[1].Revents != 0:
			return errStopped
		case fds[0].Revents != 0:
			return nil
		}
	}
}

// input is the user's side. A descriptor's reads can be stopped; any other
// reader is read plainly.
type input struct {
	r    io.Reader
	fd   int // -1 for a plain reader
	stop *waker
}

func (in *input) read(b []byte) (int, error) {
	if in.fd < 0 {
		return in.r.Read(b)
	}
	for {
		if err := pollOne(in.fd, unix.POLLIN, in.stop, -1); err != nil {
			return 0, err
		}
		n, err := unix.Read(in.fd, b)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN: // a non-blocking file
			continue
		case err == unix.EIO:
			return 0, io.EOF // the terminal hung up
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// master is the pty's master side, non-blocking. Writes may come from a
// reader Run abandoned after the end; the lock and closed flag keep them
// off a descriptor number the process may have reused.
type master struct {
	f    *os.File // owns fd
	fd   int
	stop *waker // ends a write waiting on a pty nobody reads

	mu     sync.RWMutex
	closed bool
}

// read reads what the command wrote. wake ends a wait without limit with
// errStopped; with timeout >= 0 a wait ends after that long (errTimeout).
// It returns io.EOF once nothing holds the pty's other side (EIO).
func (m *master) read(b []byte, wake *waker, timeout time.Duration) (int, error) {
	for {
		if err := pollOne(m.fd, unix.POLLIN, wake, timeout); err != nil {
			return 0, err
		}
		n, err := unix.Read(m.fd, b)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err == unix.EIO || err == nil && n == 0:
			return 0, io.EOF
		case err != nil:
			return 0, err
		}
		return n, nil
	}
}

// write writes all of b to the command's input.
func (m *master) write(b []byte) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return os.ErrClosed
	}
	for len(b) > 0 {
		n, err := unix.Write(m.fd, b)
		if n > 0 {
			b = b[n:]
		}
		switch {
		case err == unix.EAGAIN:
			if err := pollOne(m.fd, unix.POLLOUT, m.stop, -1); err != nil {
				return err
			}
		case err == unix.EINTR || err == nil:
		default:
			return err
		}
	}
	return nil
}

// close closes the master once no write is under way; stop must have been
// woken so that none waits.
func (m *master) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.closed = true
		m.f.Close()
	}
}
