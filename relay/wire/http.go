package wire

import (
	"fmt"
	"net"
	"strconv"
)

// Headers of the HTTP listener. Claude Code's http hooks send both: the
// secret literally, the tab from $LOGWATCH_TAB (allowedEnvVars).
const (
	SecretHeader = "X-Logwatch-Secret"
	TabHeader    = "X-Logwatch-Tab"
)

// CheckHTTPAddr accepts host:port with a loopback host (127.0.0.0/8, ::1 or
// localhost) and a port from 1 to 65535: the listener is for agents on this
// machine, and a web page must never find it on a routable address.
func CheckHTTPAddr(addr string) error { return checkHTTPAddr(addr, 1) }

// CheckListenAddr is CheckHTTPAddr that also takes port 0 (any free port):
// what the listener itself accepts, for tests.
func CheckListenAddr(addr string) error { return checkHTTPAddr(addr, 0) }

func checkHTTPAddr(addr string, minPort int) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: want host:port, e.g. 127.0.0.1:8765 (%v)", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("%q: only loopback addresses (127.0.0.1, ::1, localhost) are allowed", addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < minPort || p > 65535 {
		return fmt.Errorf("%q: port must be %d-65535", addr, minPort)
	}
	return nil
}
