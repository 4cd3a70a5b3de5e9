package memtrim

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
)

// span is a mapping [lo, hi) and its resident kilobytes.
type span struct {
	lo, hi uintptr
	rssKB  uint64
}

// programSpans returns the program file's read-only private mappings (its
// code, read-only data and pc tables) in a /proc/<pid>/smaps listing: those
// whose inode is ino and whose path is exe (as the /proc/self/exe link
// reads it, " (deleted)" included). Writable mappings are never listed:
// their written pages are the program's data. Nor is a mapping with
// anonymous pages: a debugger's breakpoints and uprobes are written into
// copies of the code's pages, and dropping them would undo that.
func programSpans(smaps io.Reader, exe string, ino uint64) ([]span, error) {
	var out []span
	var cur *span // the mapping being read, when it is the program's
	anon := false
	flush := func() {
		if cur != nil && !anon {
			out = append(out, *cur)
		}
		cur, anon = nil, false
	}
	// Read a line at a time: the whole listing is 60-100 KB, which a
	// long-lived process's heap would keep.
	br := bufio.NewReaderSize(smaps, 8<<10) // a header's path is at most PATH_MAX
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// No line of smaps is this long: skip it whole.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err == nil {
				continue
			}
			line = nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(line) == 0 && err != nil {
			break
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		key, val, attr := bytes.Cut(line, []byte(":"))
		if attr && bytes.IndexByte(key, ' ') < 0 && bytes.IndexByte(key, '-') < 0 {
			// An attribute of the mapping above: "Rss:   1584 kB".
			if cur == nil {
				continue
			}
			v := bytes.Fields(val)
			if len(v) == 0 {
				continue
			}
			n, _ := strconv.ParseUint(string(v[0]), 10, 64)
			switch string(key) {
			case "Rss":
				cur.rssKB = n
			case "Anonymous":
				anon = anon || n > 0
			}
			continue
		}
		flush()
		if s, ok := programMapping(line, exe, ino); ok {
			cur = &s
		}
	}
	flush()
	return out, nil
}

// programMapping reads a mapping's header line, "address perms offset dev
// inode path", and reports whether it is a read-only private mapping of
// the program file. The path is the rest of the line and may hold spaces.
func programMapping(line []byte, exe string, ino uint64) (span, bool) {
	var f [5][]byte
	rest := line
	for i := range f {
		rest = bytes.TrimLeft(rest, " ")
		n := bytes.IndexByte(rest, ' ')
		if n < 0 {
			n = len(rest)
		}
		f[i], rest = rest[:n], rest[n:]
	}
	if perms := f[1]; len(perms) != 4 || perms[0] != 'r' || perms[1] != '-' || perms[3] != 'p' {
		return span{}, false
	}
	if n, err := strconv.ParseUint(string(f[4]), 10, 64); err != nil || n != ino {
		return span{}, false
	}
	if string(bytes.TrimLeft(rest, " ")) != exe {
		return span{}, false
	}
	lo, hi, ok := bytes.Cut(f[0], []byte("-"))
	if !ok {
		return span{}, false
	}
	l, err1 := strconv.ParseUint(string(lo), 16, 64)
	h, err2 := strconv.ParseUint(string(hi), 16, 64)
	if err1 != nil || err2 != nil || h <= l {
		return span{}, false
	}
	return span{lo: uintptr(l), hi: uintptr(h)}, true
}

// statmShared is the third field of a /proc/<pid>/statm line: the resident
// file-backed and shared-memory pages.
func statmShared(b []byte) uint64 {
	field, v := 0, uint64(0)
	for _, c := range b {
		switch {
		case c == ' ' || c == '\n':
			if field == 2 {
				return v
			}
			field, v = field+1, 0
		case c >= '0' && c <= '9':
			v = v*10 + uint64(c-'0')
		default:
			return 0
		}
	}
	if field == 2 {
		return v
	}
	return 0
}
