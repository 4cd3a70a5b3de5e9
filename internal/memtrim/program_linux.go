package memtrim

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// dropProgram drops this process's mappings of its program's read-only
// pages (madvise MADV_DONTNEED) and returns how many kilobytes were
// resident in them. The pages stay in the page cache, shared with every
// other mapping of the file; what the process runs next faults back in
// from there, without I/O unless memory pressure evicted them.
func dropProgram() (uint64, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, fmt.Errorf("program pages: %w", err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/exe", &st); err != nil {
		return 0, fmt.Errorf("program pages: %w", err)
	}
	return dropMapped(exe, st.Ino)
}

// dropMapped drops the read-only private mappings of the file at path
// with inode ino (programSpans).
func dropMapped(path string, ino uint64) (uint64, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("program pages: %w", err)
	}
	spans, err := programSpans(f, path, ino)
	f.Close()
	if err != nil {
		return 0, fmt.Errorf("program pages: /proc/self/smaps: %w", err)
	}
	var kb uint64
	for _, s := range spans {
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, s.lo, s.hi-s.lo, syscall.MADV_DONTNEED); e != 0 {
			return kb, fmt.Errorf("program pages: madvise %#x-%#x: %w", s.lo, s.hi, e)
		}
		kb += s.rssKB
	}
	return kb, nil
}

var (
	pageSize  = uint64(os.Getpagesize())
	statmPath = []byte("/proc/self/statm\x00")
	// statmBuf is mappedBytes' buffer, guarded by samplesMu (Read's): on
	// the stack it escapes under -race.
	statmBuf [128]byte
)

// mappedBytes reads the resident file-backed pages from /proc/self/statm
// (its third field), without allocating: an idle check makes no garbage.
// The caller holds samplesMu.
func mappedBytes() uint64 {
	// syscall.Open would allocate the path's C string at every check.
	// openat ignores its directory for an absolute path.
	r, _, e := syscall.Syscall6(syscall.SYS_OPENAT, 0, uintptr(unsafe.Pointer(&statmPath[0])),
		syscall.O_RDONLY|syscall.O_CLOEXEC, 0, 0, 0)
	if e != 0 {
		return 0
	}
	fd := int(r)
	n, err := syscall.Read(fd, statmBuf[:])
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return 0
	}
	return statmShared(statmBuf[:n]) * pageSize
}
