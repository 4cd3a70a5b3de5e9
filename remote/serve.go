package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/logwatch/logwatch/relay/client"
	"github.com/logwatch/logwatch/relay/wire"
)

// Hello is the first line `logwatch remote serve` writes: who answers, in
// which protocol. A link refuses a protocol it does not speak.
type Hello struct {
	OK       bool   `json:"ok"`
	Protocol int    `json:"protocol"`
	Remote   int    `json:"remote"`   // the stdio mode's own version (RemoteProtocol)
	Logwatch string `json:"logwatch"` // the remote's release
}

// RemoteProtocol is the stdio mode's version: the hello, then the socket
// protocol's subscription verbatim on stdout; requests on stdin, forwarded.
const RemoteProtocol = 1

// Serve is the remote end of a link (`logwatch remote serve`, run by ssh):
// it writes the hello, subscribes to this host's daemon at socket and
// copies the subscription to out (its answer, snapshot and changes, one
// JSON object per line, as docs/protocol.md says); requests read from in,
// one per line (ack), are forwarded to the daemon, and a refusal is
// written to errOut. It returns when the subscription ends (the daemon
// stopped: its error line was the stream's last), when in ends (the link
// closed) or when ctx does.
func Serve(ctx context.Context, socket, version string, in io.Reader, out, errOut io.Writer) error {
	w := bufio.NewWriter(out)
	line := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		w.Write(append(b, '\n'))
		return w.Flush()
	}
	if err := line(Hello{OK: true, Protocol: wire.Protocol, Remote: RemoteProtocol, Logwatch: version}); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, err := client.Dial(ctx, socket)
	var evs <-chan wire.Event
	var ended func() error
	if err == nil {
		evs, ended, err = c.Subscribe(ctx)
	}
	if c != nil {
		defer c.Close()
	}
	if err != nil {
		_ = line(wire.Response{Protocol: wire.Protocol, Error: err.Error()})
		return fmt.Errorf("subscribe: %w", err)
	}
	n := max(c.Snapshot(), 0)
	if err := line(wire.Response{OK: true, Protocol: wire.Protocol, Snapshot: &n}); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	go func() {
		forward(ctx, socket, in, errOut)
		cancel() // the link closed its end: nobody reads ours
	}()
	for ev := range evs {
		ev.Session = wire.BoundID(ev.Session) // bounded at the source: the link takes it back as it is
		if err := line(ev); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	if err := ended(); err != nil {
		_ = line(wire.Response{Protocol: wire.Protocol, Error: err.Error()})
		return err
	}
	return nil
}

// forward sends each request line of in to the daemon, on a connection of
// its own (the subscription's is a stream).
func forward(ctx context.Context, socket string, in io.Reader, errOut io.Writer) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 4096), wire.MaxRequest)
	var c *client.Client
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	for sc.Scan() {
		var req wire.Request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			fmt.Fprintf(errOut, "logwatch remote serve: bad request: %v\n", err)
			continue
		}
		if req.Op != wire.OpAck {
			fmt.Fprintf(errOut, "logwatch remote serve: %q is not forwarded (only %q)\n", req.Op, wire.OpAck)
			continue
		}
		rctx, done := context.WithTimeout(ctx, 5*time.Second)
		var err error
		if c == nil {
			c, err = client.Dial(rctx, socket)
		}
		if err == nil {
			if _, err = c.Do(rctx, req); err != nil {
				c.Close() // a refusal or a broken connection: a fresh one next time
				c = nil
			}
		}
		done()
		if err != nil {
			fmt.Fprintf(errOut, "logwatch remote serve: %s %s: %v\n", req.Op, req.Session, err)
		}
	}
}
