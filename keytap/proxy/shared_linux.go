package proxy

import (
	"bytes"
	"os"
	"strconv"
)

// codexServer reads pid's arguments from /proc.
func codexServer(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	var argv []string
	for _, a := range bytes.Split(bytes.TrimRight(b, "\x00"), []byte{0}) {
		argv = append(argv, string(a))
	}
	return isCodexServer(argv)
}
