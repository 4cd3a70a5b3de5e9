package memtrim

import (
	"reflect"
	"strings"
	"testing"
)

func TestProgramSpans(t *testing.T) {
	const exe = "/opt/log watch/logwatch (deleted)"
	smaps := `00400000-0099c000 r-xp 00000000 fd:01 4242 /opt/log watch/logwatch (deleted)
Size:               5744 kB
Rss:                4936 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me
0099c000-00f86000 r--p 0059c000 fd:01 4242 /opt/log watch/logwatch (deleted)
Rss:                4628 kB
Anonymous:             0 kB
00f86000-00fea000 rw-p 00b86000 fd:01 4242 /opt/log watch/logwatch (deleted)
Rss:                 232 kB
Anonymous:            96 kB
00fea000-0303f000 rw-p 00000000 00:00 0
Rss:                 112 kB
Anonymous:           112 kB
01000000-01001000 r-xp 00000000 fd:01 4242 /opt/log watch/logwatch (deleted)
Rss:                   4 kB
Anonymous:             4 kB
02000000-02001000 r--p 00000000 fd:01 4243 /opt/log watch/logwatch (deleted)
Rss:                   4 kB
Anonymous:             0 kB
03000000-03001000 r--p 00000000 fd:01 4242 /opt/log watch/logwatch
Rss:                   4 kB
04000000-04001000 r--s 00000000 fd:01 4242 /opt/log watch/logwatch (deleted)
Rss:                   4 kB
7fea95fcc000-7fea96122000 r-xp 00026000 fd:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6
Rss:                 784 kB
Anonymous:             0 kB
7ffd1d3f1000-7ffd1d3f3000 r-xp 00000000 00:00 0                          [vdso]
Rss:                   8 kB
05000000-05002000 r--p 00000000 fd:01 4242 /opt/log watch/logwatch (deleted)
Rss:                   8 kB`
	want := []span{
		{0x400000, 0x99c000, 4936},
		{0x99c000, 0xf86000, 4628},
		// rw-p: the program's data. r-xp with an anonymous page: a
		// breakpoint. Inode 4243, or no " (deleted)": another file. r--s:
		// shared. libc, vdso: not the program.
		{0x5000000, 0x5002000, 8}, // the last mapping, with no line after it
	}
	for _, tail := range []string{"", "\n"} {
		if got, err := programSpans(strings.NewReader(smaps+tail), exe, 4242); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("programSpans (ending %q):\n got %x, %v\nwant %x", tail, got, err, want)
		}
	}
	// A line longer than the reader's buffer is skipped, not misread.
	long := "VmFlags: " + strings.Repeat("rd ", 3000) + "\n"
	at := strings.Index(smaps, "Rss:                4936 kB") // inside the first mapping's block
	if got, err := programSpans(strings.NewReader(long+smaps[:at]+long+smaps[at:]), exe, 4242); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("programSpans after a long line:\n got %x, %v\nwant %x", got, err, want)
	}
	if got, err := programSpans(strings.NewReader(""), exe, 4242); got != nil || err != nil {
		t.Errorf("programSpans(empty) = %v, %v", got, err)
	}
}
