// Package secret keeps the daemon's private run directory and the HTTP
// listener's secret in it: the daemon reads the secret to check requests,
// `hooks install --http` to write it into the agents' settings.
package secret

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/relay/peercred"
)

// File is where the HTTP listener's secret lives: next to the
// socket, in the same private directory.
func File(socket string) string {
	return filepath.Join(filepath.Dir(socket), "http-secret")
}

// LoadOrCreate returns the secret in path, creating it (32 random
// bytes, hex, mode 0600) on first use. The directory must be private
// (PrivateDir); a secret file that another user owns, that others can read,
// or that is not a plain file is refused rather than trusted.
func LoadOrCreate(path string) (string, error) {
	if err := PrivateDir(filepath.Dir(path)); err != nil {
		return "", err
	}
	if s, err := readSecret(path); !errors.Is(err, fs.ErrNotExist) {
		return s, err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("http secret: %w", err)
	}
	secret := hex.EncodeToString(b[:])
	// Written whole to a temporary file, then linked into place: the link
	// fails if another process (the daemon, `hooks install --http`) made
	// the file first, and no one ever reads a half-written secret.
	f, err := os.CreateTemp(filepath.Dir(path), ".http-secret.tmp*") // 0600
	if err != nil {
		return "", fmt.Errorf("http secret: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(secret + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(f.Name(), path)
	}
	if errors.Is(err, fs.ErrExist) {
		return readSecret(path) // another process made it first
	}
	if err != nil {
		return "", fmt.Errorf("http secret %s: %w", path, err)
	}
	return secret, nil
}

func readSecret(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("http secret %s is not a regular file; remove it", path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "", fmt.Errorf("http secret %s is owned by %s, not by you; remove it", path, peercred.Describe(int(st.Uid)))
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("http secret %s has mode %04o; it must be 0600 (remove it: a new one is made at start)", path, fi.Mode().Perm())
	}
	b, err := safeopen.ReadFile(path, 4<<10) // 65 bytes; and no FIFO swapped in after the Lstat
	if err != nil {
		return "", fmt.Errorf("http secret: %w", err)
	}
	s := strings.TrimSpace(string(b))
	if len(s) < 32 {
		return "", fmt.Errorf("http secret %s is too short (%d characters); remove it: a new one is made at start", path, len(s))
	}
	return s, nil
}

// ErrNotPrivate is returned by PrivateDir for a directory another user owns
// or can enter.
var ErrNotPrivate = errors.New("socket directory is not private")

// PrivateDir creates dir (0700) if needed and refuses it unless it belongs to
// this user and no one else can enter it. Without XDG_RUNTIME_DIR the
// socket lives under the shared temp dir, where another user could create
// logwatch-<uid>/ first, put a socket of their own inside, and receive
// every hook payload: such a directory is refused, never used or repaired.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("socket directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrNotPrivate, dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: %s is owned by %s, not by you (%s); another user may have created it to "+
			"intercept logwatch: have it removed, or set XDG_RUNTIME_DIR or socket to a directory of your own",
			ErrNotPrivate, dir, peercred.Describe(int(st.Uid)), peercred.Describe(os.Getuid()))
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%w: %s has mode %04o, open to other users; it must be 0700 (chmod 700 %s, "+
			"after checking that nothing in it is someone else's)", ErrNotPrivate, dir, perm, dir)
	}
	return nil
}
