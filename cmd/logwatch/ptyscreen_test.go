package main

import (
	"bytes"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/creack/pty"
)

// ptyScreen is a command running in a pty, the test its terminal: it keeps
// everything the command writes.
type ptyScreen struct {
	pty  *os.File
	read chan struct{} // closed once the pty reads nothing more
	grew chan struct{} // signalled when output arrives

	mu  sync.Mutex
	buf bytes.Buffer
}

// startPTY starts cmd in a rows×cols pty.
func startPTY(t *testing.T, cmd *exec.Cmd, rows, cols uint16) *ptyScreen {
	t.Helper()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	s := &ptyScreen{pty: f, read: make(chan struct{}), grew: make(chan struct{}, 1)}
	go func() {
		defer close(s.read)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			s.mu.Lock()
			s.buf.Write(buf[:n])
			s.mu.Unlock()
			select {
			case s.grew <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

// text is everything written so far.
func (s *ptyScreen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// close closes the pty and waits for its reader.
func (s *ptyScreen) close() {
	s.pty.Close()
	<-s.read
}
