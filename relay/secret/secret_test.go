package secret_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/relay/secret"
)

// TestSecretFile: made once (0600, 64 hex digits) next to the socket, the
// same on every later start; a file others can read, or another user's, is
// refused rather than trusted.
func TestSecretFile(t *testing.T) {
	dir, _ := os.MkdirTemp("", "lw")
	defer os.RemoveAll(dir)
	path := secret.File(filepath.Join(dir, "run", "logwatch.sock"))
	if path != filepath.Join(dir, "run", "http-secret") {
		t.Fatalf("path %s", path)
	}
	s1, err := secret.LoadOrCreate(path)
	if err != nil || len(s1) != 64 || strings.Trim(s1, "0123456789abcdef") != "" {
		t.Fatalf("secret %q %v", s1, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	if s2, err := secret.LoadOrCreate(path); err != nil || s2 != s1 {
		t.Fatalf("second start: %q %v", s2, err)
	}
	os.Chmod(path, 0o644)
	if _, err := secret.LoadOrCreate(path); err == nil || !strings.Contains(err.Error(), "must be 0600") {
		t.Fatalf("readable by others: %v", err)
	}
	os.Chmod(path, 0o600)
	if os.Getuid() == 0 {
		os.Chown(path, 65534, 65534)
		if _, err := secret.LoadOrCreate(path); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
			t.Fatalf("another user's: %v", err)
		}
	}
}
