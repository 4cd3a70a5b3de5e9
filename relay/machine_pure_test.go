package relay

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// machineFiles are the machine's and its parts' files: the rules, with no
// I/O (edge files: relay.go, requests.go, feeds.go, procfacts.go, record.go,
// subscribe.go and the server's).
var machineFiles = []string{
	"machine.go", "steps.go", "quiet.go", "window.go", "publish.go", "drift.go",
	"store.go", "frozen.go", "persist.go",
	"bind.go", "tabproc.go", "submitbind.go",
	"registry.go", "liveness.go",
}

// TestMachineIsPure holds the split: a machine file imports nothing that
// reaches the system, reads no clock, touches no goroutine or channel and
// has no method of the edge (Relay). Time comes with each step, process
// facts through procs, and changes and effects leave through the outbox.
func TestMachineIsPure(t *testing.T) {
	allowed := map[string]bool{
		"bytes": true, "encoding/json": true, "fmt": true, "maps": true, "path/filepath": true,
		"slices": true, "sort": true, "strconv": true, "strings": true, "time": true,
		"github.com/rs/zerolog":                      true,
		"github.com/logwatch/logwatch/parsers":       true,
		"github.com/logwatch/logwatch/relay/session": true,
		"github.com/logwatch/logwatch/relay/wire":    true, // the protocol's types and its id rule: no I/O
	}
	banned := map[string]map[string]bool{
		"time":     {"Now": true, "Since": true, "Until": true, "AfterFunc": true, "NewTimer": true, "NewTicker": true, "Sleep": true, "After": true, "Tick": true},
		"filepath": {"EvalSymlinks": true, "Abs": true, "Glob": true, "Walk": true, "WalkDir": true},
	}
	fset := token.NewFileSet()
	for _, name := range machineFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); !allowed[p] {
				t.Errorf("%s imports %s", name, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt, *ast.SendStmt, *ast.SelectStmt:
				t.Errorf("%s: a goroutine or a channel operation", fset.Position(n.Pos()))
			case *ast.UnaryExpr:
				if n.Op == token.ARROW {
					t.Errorf("%s: a channel receive", fset.Position(n.Pos()))
				}
			case *ast.ChanType:
				t.Errorf("%s: a channel", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && banned[x.Name][n.Sel.Name] {
					t.Errorf("%s: %s.%s", fset.Position(n.Pos()), x.Name, n.Sel.Name)
				}
			case *ast.Ident:
				if n.Name == "Relay" {
					t.Errorf("%s: names the edge (Relay)", fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
}
