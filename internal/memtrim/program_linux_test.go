package memtrim

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"
)

// mapFile maps a new temp file of n pages of 'x', private, with prot.
func mapFile(t *testing.T, n, prot int) (data []byte, path string, ino uint64) {
	t.Helper()
	size := n * os.Getpagesize()
	path = filepath.Join(t.TempDir(), "mapped")
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), size), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	// Writes to a private mapping go to copies of the pages, never to
	// the file, so a read-only descriptor serves both.
	data, err = syscall.Mmap(int(f.Fd()), 0, size, prot, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(data) })
	return data, path, st.Ino
}

// residentKB reads the Rss of the mapping that starts at data from
// /proc/self/smaps.
func residentKB(t *testing.T, data []byte) uint64 {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	head := []byte(fmt.Sprintf("\n%x-", uintptr(unsafe.Pointer(&data[0]))))
	i := bytes.Index(append([]byte("\n"), smaps...), head)
	if i < 0 {
		t.Fatalf("no mapping %s in /proc/self/smaps", head[1:])
	}
	rest := smaps[i:]
	j := bytes.Index(rest, []byte("\nRss:"))
	if j < 0 {
		t.Fatal("the mapping has no Rss")
	}
	var kb uint64
	if _, err := fmt.Sscanf(string(rest[j+len("\nRss:"):]), "%d kB", &kb); err != nil {
		t.Fatal(err)
	}
	return kb
}

func touch(data []byte) (sum int) {
	for i := 0; i < len(data); i += os.Getpagesize() {
		sum += int(data[i])
	}
	return sum
}

// A read-only mapping is dropped from the resident set and reads the
// same afterwards.
func TestDropMappedReadOnly(t *testing.T) {
	const pages = 64
	data, path, ino := mapFile(t, pages, syscall.PROT_READ)
	touch(data)
	all := uint64(pages * os.Getpagesize() >> 10)
	if kb := residentKB(t, data); kb != all {
		t.Fatalf("touched mapping: %d kB resident, want %d", kb, all)
	}
	kb, err := dropMapped(path, ino)
	if err != nil {
		t.Fatal(err)
	}
	if kb != all {
		t.Errorf("dropMapped reported %d kB, want %d", kb, all)
	}
	if kb := residentKB(t, data); kb != 0 {
		t.Errorf("after the drop: %d kB resident, want 0", kb)
	}
	if !bytes.Equal(data, bytes.Repeat([]byte("x"), len(data))) {
		t.Error("the file's pages read differently after the drop")
	}
}

// Pages written in a private mapping are not the file's: a writable
// mapping is left alone, and so is a read-only one that holds written
// pages (a debugger's breakpoint in the code). Dropping either would
// turn them back into the file's bytes.
func TestDropMappedKeepsWrittenPages(t *testing.T) {
	data, path, ino := mapFile(t, 4, syscall.PROT_READ|syscall.PROT_WRITE)
	data[0] = 'y'
	check := func(when string) {
		t.Helper()
		kb, err := dropMapped(path, ino)
		if err != nil {
			t.Fatal(err)
		}
		if kb != 0 || data[0] != 'y' {
			t.Errorf("%s: dropped %d kB, first byte %q, want 0 kB and 'y'", when, kb, data[0])
		}
	}
	check("writable")
	if err := syscall.Mprotect(data, syscall.PROT_READ); err != nil {
		t.Fatal(err)
	}
	check("read-only with a written page")
}

// The test binary's own code is resident while it runs.
func TestDropProgram(t *testing.T) {
	kb, err := DropProgram()
	if err != nil {
		t.Fatal(err)
	}
	if kb == 0 {
		t.Error("DropProgram found no resident page of the test binary")
	}
	if r := Read(); r.Mapped < uint64(os.Getpagesize()) {
		t.Errorf("Read().Mapped = %d: the running test binary has no resident file-backed page", r.Mapped)
	}
}

// BenchmarkDropProgram: what one drop costs (reading /proc/self/smaps and
// the madvise calls), without the faults that follow it.
func BenchmarkDropProgram(b *testing.B) {
	for b.Loop() {
		if _, err := DropProgram(); err != nil {
			b.Fatal(err)
		}
	}
}
