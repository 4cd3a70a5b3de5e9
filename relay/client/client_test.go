package client

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLateAnswerNeverMisread: a request that times out closes the
// connection, so the daemon's late answer cannot be read as the reply to the
// next request.
func TestLateAnswerNeverMisread(t *testing.T) {
	dir, _ := os.MkdirTemp("", "lwc")
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				rd := bufio.NewReader(c)
				for {
					if _, err := rd.ReadString('\n'); err != nil {
						return
					}
					time.Sleep(300 * time.Millisecond) // answers late
					c.Write([]byte(`{"ok":true}` + "\n"))
				}
			}()
		}
	}()
	c, err := Dial(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.Key(ctx, "t", "esc", time.Time{}); err == nil {
		t.Fatal("no error for a late answer")
	}
	time.Sleep(400 * time.Millisecond)
	_, err = c.Status(context.Background())
	if err == nil || !strings.Contains(err.Error(), "earlier failure") {
		t.Fatalf("the next request on the same client: %v", err)
	}
	// A context cancelled without a deadline ends the exchange too.
	c2, err := Dial(context.Background(), sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel2)
	if err := c2.Ack(ctx2, "s"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled exchange: %v", err)
	}
}

// scripted serves one connection on a real socket with answer, which gets
// the connection once the request line is read.
func scripted(t *testing.T, answer func(c net.Conn)) string {
	t.Helper()
	dir, _ := os.MkdirTemp("", "lwc")
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if _, err := bufio.NewReader(c).ReadString('\n'); err == nil {
			answer(c)
		}
	}()
	return sock
}

// TestAnswerTimeouts: with SetAnswerTimeouts an answer that keeps coming
// is read whole however long it takes, one that stops or never starts
// fails within its bound, and a refusal for load is ErrBusy.
func TestAnswerTimeouts(t *testing.T) {
	big := `{"ok":true,"status":{"sessions":[],"roots":["` + strings.Repeat("r", 8<<20) + `"]}}` + "\n"
	tests := []struct {
		name   string
		answer func(c net.Conn)
		want   string // "" for success, else in the error
	}{
		{"slow but steady: 8 MiB at 1 MiB per 100 ms", func(c net.Conn) {
			for b := big; len(b) > 0; b = b[min(len(b), 1<<20):] {
				c.Write([]byte(b[:min(len(b), 1<<20)]))
				time.Sleep(100 * time.Millisecond)
			}
		}, ""},
		{"stops half way", func(c net.Conn) {
			c.Write([]byte(big[:4<<20]))
			time.Sleep(5 * time.Second)
		}, "i/o timeout"},
		{"never starts", func(c net.Conn) { time.Sleep(5 * time.Second) }, "i/o timeout"},
		{"busy", func(c net.Conn) {
			c.Write([]byte(`{"ok":false,"error":"busy: earlier status answers (16.0 MiB) are still being written"}` + "\n"))
		}, "busy"},
		{"too many connections", func(c net.Conn) {
			c.Write([]byte(`{"ok":false,"error":"too many connections: every request connection is busy"}` + "\n"))
		}, "too many"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Dial(context.Background(), scripted(t, tc.answer))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetAnswerTimeouts(500*time.Millisecond, 300*time.Millisecond)
			start := time.Now()
			st, err := c.Status(context.Background())
			took := time.Since(start)
			switch {
			case tc.want == "" && (err != nil || len(st.Roots) != 1 || len(st.Roots[0]) != 8<<20):
				t.Fatalf("after %v: %v", took, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("after %v: %v, want %q", took, err, tc.want)
			case strings.HasPrefix(tc.want, "busy") || strings.HasPrefix(tc.want, "too many"):
				if !errors.Is(err, ErrBusy) {
					t.Fatalf("%v is not ErrBusy", err)
				}
			case tc.want != "" && took > 30*time.Second:
				// A generous "does not hang" bound for the answers that
				// must time out; a slow but steady answer may take as long
				// as the machine needs (-race under load: 5.5 s once).
				t.Fatalf("took %v", took)
			}
		})
	}
}
