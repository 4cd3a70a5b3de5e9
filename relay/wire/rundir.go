package wire

import (
	"os"
	"path/filepath"
	"strconv"
)

// RunDir is the daemon's default directory, where its socket is:
// $XDG_RUNTIME_DIR/logwatch, else logwatch-UID in the temp dir. `logwatch
// try`'s private homes are in it too.
func RunDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "logwatch")
	}
	return filepath.Join(os.TempDir(), "logwatch-"+strconv.Itoa(os.Getuid()))
}
