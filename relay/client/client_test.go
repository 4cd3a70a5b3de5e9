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
