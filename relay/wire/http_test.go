package wire_test

import (
	"testing"

	"github.com/logwatch/logwatch/relay/wire"
)

func TestCheckHTTPAddr(t *testing.T) {
	for _, tc := range []struct {
		addr           string
		config, listen bool // accepted by CheckHTTPAddr, by CheckListenAddr
	}{
		{"127.0.0.1:8765", true, true},
		{"127.1.2.3:8765", true, true},
		{"[::1]:8765", true, true},
		{"localhost:8765", true, true},
		{"127.0.0.1:0", false, true},
		{"127.0.0.1:65536", false, false},
		{"127.0.0.1:http", false, false},
		{"0.0.0.0:8765", false, false},
		{"192.168.1.2:8765", false, false},
		{"[::]:8765", false, false},
		{"example.com:80", false, false},
		{"8765", false, false},
		{"", false, false},
	} {
		if err := wire.CheckHTTPAddr(tc.addr); (err == nil) != tc.config {
			t.Errorf("CheckHTTPAddr(%q) = %v", tc.addr, err)
		}
		if err := wire.CheckListenAddr(tc.addr); (err == nil) != tc.listen {
			t.Errorf("CheckListenAddr(%q) = %v", tc.addr, err)
		}
	}
}
