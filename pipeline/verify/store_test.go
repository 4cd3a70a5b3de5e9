package verify

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/logwatch/logwatch/parsers/opencode/store/storetest"
	"github.com/logwatch/logwatch/relay/session"
)

// verify reads a session database found in a directory: one report per
// session, folded from its rows as the daemon folds them.
func TestVerifyOpenCodeDatabase(t *testing.T) {
	dir := t.TempDir()
	storetest.RealDB(t, filepath.Join(dir, "opencode", "opencode.db"))
	rep, err := Run([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 1 {
		t.Fatalf("%d reports: %+v", len(rep.Files), rep.Files)
	}
	f := rep.Files[0]
	if !strings.HasSuffix(f.Path, "opencode.db#"+f.SessionID) || f.Agent != "opencode" || f.Lines != 29 ||
		f.Turns != 2 || f.FinalState != session.Done || f.Subagent || len(f.UnknownTypes) != 0 || f.Malformed != 0 {
		t.Fatalf("report %+v", f)
	}
	if rep.Totals.Files != 1 || rep.Totals.Agents["opencode"] != 1 {
		t.Fatalf("totals %+v", rep.Totals)
	}
}
