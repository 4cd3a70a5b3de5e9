package remote

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// With no daemon on the host, remote serve says who it is, then why there
// is no stream, in the line that ends a stream: the link reports it with
// its fix instead of taking it for a broken connection.
func TestServeNoDaemon(t *testing.T) {
	var out, errOut bytes.Buffer
	err := Serve(context.Background(), filepath.Join(t.TempDir(), "none.sock"), "v9", strings.NewReader(""), &out, &errOut)
	if err == nil {
		t.Fatal("no error without a daemon")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || lines[0] != `{"ok":true,"protocol":1,"remote":1,"logwatch":"v9"}` ||
		!strings.HasPrefix(lines[1], `{"ok":false,"protocol":1,"error":"the daemon is not running (`) {
		t.Fatalf("output:\n%s", out.String())
	}
	// What the link makes of it.
	s := &sink{}
	l := &Link{cfg: Config{Name: "box", Dest: "box", Command: "logwatch"}, opt: Options{}.withDefaults(), sink: s}
	f := l.read(context.Background(), strings.NewReader(out.String()))
	if f.unusable || !strings.Contains(f.err.Error(), "the remote's daemon: the daemon is not running") || !strings.Contains(f.fix, "start logwatch there") {
		t.Fatalf("the link's reading: %+v", f)
	}
}
