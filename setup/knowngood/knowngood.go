// Package knowngood is this machine's record of the agent releases
// `logwatch selftest` passed with, beside the releases the project's live
// conformance suite passed with (each agent's parsers.Spec.KnownGood). An
// agent that updated itself past the project's known-good release is
// checked on the user's own machine by selftest; once it passed, doctor
// stops warning about it here.
package knowngood

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/logwatch/logwatch/internal/atomicfile"
	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/safeopen"
)

// maxFile bounds the record: a few lines per agent release.
const maxFile = 1 << 20

// Record is what selftest passed with here: agent → release → when.
type Record map[string]map[string]time.Time

// Path is the record's file, beside the checkpoint.
func Path() string {
	return config.ExpandPath("${XDG_STATE_HOME:-~/.local/state}/logwatch/known-good.json")
}

// Read reads the record at path; a missing file is an empty record.
func Read(path string) (Record, error) {
	b, err := safeopen.ReadFile(path, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, nil
	}
	if err != nil {
		return Record{}, err
	}
	r := Record{}
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Has reports whether selftest passed with agent's version here.
func (r Record) Has(agent, version string) bool {
	_, ok := r[agent][version]
	return ok
}

// Versions are the releases of agent selftest passed with here, sorted.
func (r Record) Versions(agent string) []string {
	var out []string
	for v := range r[agent] {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// Add records that selftest passed with agent's version at at, keeping
// what the file held (a file that cannot be read is replaced: it is ours
// and only ever a cache of passes).
func Add(path, agent, version string, at time.Time) error {
	r, err := Read(path)
	if err != nil && !errors.Is(err, safeopen.ErrNotRegular) {
		r = Record{}
	} else if err != nil {
		return err // not a regular file: never written through
	}
	if r[agent] == nil {
		r[agent] = map[string]time.Time{}
	}
	r[agent][version] = at.UTC().Truncate(time.Second)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o600)
}
