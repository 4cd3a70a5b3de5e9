package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// socketFiles are configuration files that set the socket, or not, each
// way Load reads one; HOST stands for this machine's name.
var socketFiles = []struct{ name, yaml, want string }{
	{"none", "max_line_bytes: 1000\n", ""},
	{"empty file", "", ""},
	{"top level", "socket: /run/lw.sock\n", "/run/lw.sock"},
	{"null", "socket:\n", ""},
	{"key in capitals", "Socket: /run/caps.sock\n", "/run/caps.sock"},
	{"expanded", "socket: ${LW_SOCK_DIR:-/fallback}/s.sock\n", "/fallback/s.sock"},
	{"home", "socket: ~/lw.sock\n", "/home/tester/lw.sock"},
	{"this host", "socket: /a.sock\nhosts:\n  HOST: {socket: /host.sock}\n  other: {socket: /other.sock}\n", "/host.sock"},
	{"this host in capitals", "hosts:\n  UPPERHOST: {socket: /host.sock}\n", "/host.sock"},
	{"this host, no socket there", "socket: /a.sock\nhosts:\n  HOST: {max_line_bytes: 5}\n", "/a.sock"},
	{"another host", "socket: /a.sock\nhosts:\n  not-this-one: {socket: /other.sock}\n", "/a.sock"},
	{"anchors", "base: &b /anchored.sock\nsocket: *b\n", "/anchored.sock"},
	{"other keys bad", "socket: /a.sock\nmax_line_bytes: -1\nnot_a_key: 1\n", "/a.sock"},
}

func socketFile(t testing.TB, yaml string) string {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	yaml = strings.ReplaceAll(strings.ReplaceAll(yaml, "UPPERHOST", strings.ToUpper(host)), "HOST", host)
	file := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestFileSocket: FileSocket reads what Load reads for the socket, in
// every file Load accepts (and in one it refuses for other keys).
func TestFileSocket(t *testing.T) {
	t.Setenv("HOME", "/home/tester")
	t.Setenv("LW_SOCK_DIR", "")
	t.Setenv("LOGWATCH_SOCKET", "")
	for _, c := range socketFiles {
		file := socketFile(t, c.yaml)
		got, err := FileSocket(file)
		if err != nil || got != c.want {
			t.Errorf("%s: FileSocket = %q, %v; want %q", c.name, got, err, c.want)
		}
		if cfg, _ := Load(file, pflag.NewFlagSet("x", pflag.ContinueOnError)); cfg.Socket != c.want {
			t.Errorf("%s: Load's socket %q, the table's %q", c.name, cfg.Socket, c.want)
		}
	}
	if _, err := FileSocket(socketFile(t, "socket: [unclosed\n")); err == nil {
		t.Error("a file that does not parse: no error")
	}
	if _, err := FileSocket(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("a missing file: no error")
	}
}

// FuzzFileSocket: for any file Load accepts, FileSocket names Load's socket
// (but where a map holds one key in two cases: Load takes either, as
// viper's map order falls).
func FuzzFileSocket(f *testing.F) {
	for _, c := range socketFiles {
		f.Add(c.yaml)
	}
	f.Add("socket: 5\n")
	f.Add("hosts: {HOST: 3}\n")
	f.Add("socket: /a\nSOCKET: /b\n")
	f.Fuzz(func(t *testing.T, text string) {
		t.Setenv("HOME", "/home/tester")
		t.Setenv("LOGWATCH_SOCKET", "")
		file := socketFile(t, text)
		cfg, err := Load(file, pflag.NewFlagSet("x", pflag.ContinueOnError))
		var doc any
		if err != nil || yaml.Unmarshal([]byte(text), &doc) != nil || twoCases(doc) {
			return
		}
		got, err := FileSocket(file)
		if err != nil || got != cfg.Socket {
			t.Fatalf("%q: FileSocket = %q, %v; Load's %q", text, got, err, cfg.Socket)
		}
	})
}

// twoCases reports a map, anywhere in v, holding one key in two cases.
func twoCases(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		seen := map[string]bool{}
		for k, e := range v {
			if seen[strings.ToLower(k)] || twoCases(e) {
				return true
			}
			seen[strings.ToLower(k)] = true
		}
	case []any:
		for _, e := range v {
			if twoCases(e) {
				return true
			}
		}
	}
	return false
}
