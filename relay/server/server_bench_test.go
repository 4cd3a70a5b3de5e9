package server_test

import (
	"bufio"
	"net"
	"testing"
)

// BenchmarkHookConnection is one hook as `logwatch hook` sends it: a
// connection, one request line, its answer, the close. allocs and B/op
// are the daemon's cost per hook (the request reader's base buffer first).
func BenchmarkHookConnection(b *testing.B) {
	d := startDaemon(b, nil)
	req := []byte(`{"op":"hook","agent":"claude","tab":"T","payload":{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"/w","prompt":"hi"}}` + "\n")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c, err := net.Dial("unix", d.socket)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := bufio.NewReader(c).ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}
