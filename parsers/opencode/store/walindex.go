package store

import (
	"hash/fnv"
	"os"
	"syscall"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// walHdrSize is the first copy of the WAL index header at the start of
// the -shm file (SQLite's file format, "the WAL-index format"): its change
// counter, the last valid frame, the salts and checksums. A writer's
// commit becomes visible to readers by rewriting it, after the frames'
// file writes that file events report: the one step no event shows.
const walHdrSize = 48

// shm is the -shm file read for its header, reopened when the path names
// another file (OpenCode started again, the database replaced).
type shm struct {
	path string
	f    *os.File
	ino  uint64
	buf  [walHdrSize]byte
}

// version is a token of the WAL index header: it changes whenever a
// commit becomes visible (or a checkpoint restarts the WAL). ok is false
// when there is no -shm to read (not in WAL mode, no writer yet).
func (s *shm) version() (v uint64, ok bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(s.path, &st); err != nil {
		s.close()
		return 0, false
	}
	if s.f == nil || st.Ino != s.ino {
		s.close()
		f, err := safeopen.Open(s.path) // never blocks on a FIFO
		if err != nil {
			return 0, false
		}
		s.f, s.ino = f, st.Ino
	}
	// read(2) sees the pages SQLite maps (MAP_SHARED of the same file):
	// no mapping here, so a file truncated under us is a short read, never
	// a fault.
	if n, _ := s.f.ReadAt(s.buf[:], 0); n < walHdrSize {
		return 0, false // cut short or unreadable: cannot tell
	}
	h := fnv.New64a()
	h.Write(s.buf[:])
	return h.Sum64(), true
}

func (s *shm) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}
