// Package selfbin finds the logwatch binary that other programs (the agents'
// hooks, the service manager) should run, by absolute path.
package selfbin

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Path is the absolute path the hook command runs. A `go run` build
// lives in a temporary directory that is gone after the run, so it is never
// written into an agent's settings: an installed logwatch on PATH is used
// instead, or the user is asked for one.
func Path(flagBin string) (string, error) {
	if flagBin != "" {
		return filepath.Abs(flagBin)
	}
	self := os.Args[0]
	if !strings.ContainsRune(self, filepath.Separator) {
		if p, err := exec.LookPath(self); err == nil {
			self = p
		}
	}
	if !filepath.IsAbs(self) {
		if p, err := os.Executable(); err == nil {
			self = p
		}
	}
	self, err := filepath.Abs(self)
	if err != nil {
		return "", err
	}
	if isTemporaryBuild(self) {
		if p, err := exec.LookPath("logwatch"); err == nil && !isTemporaryBuild(p) {
			return filepath.Abs(p)
		}
		return "", errors.New("this logwatch is a temporary `go run` build; install one first " +
			"(`go install ./cmd/logwatch` from a checkout: the module is not published) or pass --bin PATH")
	}
	return self, nil
}

func isTemporaryBuild(p string) bool {
	return strings.Contains(p, string(filepath.Separator)+"go-build")
}
