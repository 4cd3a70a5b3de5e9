//go:build !linux

package memtrim

// dropProgram does nothing where no /proc/self/smaps lists the mappings.
func dropProgram() (uint64, error) { return 0, nil }

// mappedBytes is 0: the program's pages are never dropped here.
func mappedBytes() uint64 { return 0 }
