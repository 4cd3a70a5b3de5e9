package server_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/relay/server"
)

// chromium starts headless Chromium on url, with evil.example resolving to
// 127.0.0.1; it is killed at the end of the test.
func chromium(t *testing.T, ctx context.Context, extra ...string) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium not installed (apt-get install chromium): the raw browser-shaped requests of TestHTTPRefusesBrowsers still run")
	}
	args := append([]string{"--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--host-resolver-rules=MAP evil.example 127.0.0.1", "--user-data-dir=" + t.TempDir()}, extra...)
	return exec.CommandContext(ctx, bin, args...)
}

// TestHTTPRealBrowser: a real Chromium loads a page from http://evil.example
// that fires everything a page can at the listener (no-cors fetches,
// a preflighted JSON fetch, a form post); then Chromium is pointed at the
// listener under a rebound name. Every request reaches the listener and is
// refused; the session does not change and no state is shown.
func TestHTTPRealBrowser(t *testing.T) {
	d := startDaemon(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	addr := startHTTP(t, d, server.HTTPOptions{Secret: testSecret})
	_, port, _ := net.SplitHostPort(addr)
	must(t, d.r.Hook(ctx, "claude", "t1", []byte(`{"hook_event_name":"PreToolUse","session_id":"real","tool_name":"Bash","tool_input":{"command":"make test"}}`)))
	before, _ := d.r.Status(ctx)

	page := fmt.Sprintf(`<!doctype html><html><body>
<form method="post" enctype="text/plain" action="http://%[1]s/api"><input name='{"op":"ack","session":"real","x":"' value='"}'></form>
<script>
const t = "http://%[1]s";
(async () => {
  const tries = [
    fetch(t + "/hook?agent=claude", {method: "POST", mode: "no-cors", body: '{"hook_event_name":"Stop","session_id":"real"}'}),
    fetch(t + "/api", {method: "POST", mode: "no-cors", headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: '{"op":"tab_closed","tab":"t1"}'}),
    fetch(t + "/api", {method: "POST", headers: {"Content-Type": "application/json"}, body: '{"op":"ack","session":"real"}'}),
  ];
  for (const p of tries) { try { await p; } catch (e) {} }
  document.forms[0].submit();
})();
</script></body></html>`, addr)
	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	loaded := make(chan struct{}, 1)
	psrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
		select {
		case loaded <- struct{}{}:
		default:
		}
	})}
	go psrv.Serve(pln)
	defer psrv.Close()
	_, pport, _ := net.SplitHostPort(pln.Addr().String())

	cmd := chromium(t, ctx, "http://evil.example:"+pport+"/")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	select {
	case <-loaded:
	case <-ctx.Done():
		t.Fatal("chromium never loaded the page")
	}
	// The two no-cors fetches, the preflight of the JSON fetch and the form
	// post: four requests from the page, all refused.
	// Wait for them to be refused, or (without the guard) to take effect.
	st, _ := d.r.Status(ctx)
	for st.Counters.HTTPRefused < 4 && st.Counters.HooksReceived == before.Counters.HooksReceived &&
		(len(st.Sessions) == 0 || st.Sessions[0] == before.Sessions[0]) {
		if ctx.Err() != nil {
			t.Fatalf("only %d requests from the page reached the listener", st.Counters.HTTPRefused)
		}
		time.Sleep(50 * time.Millisecond)
		st, _ = d.r.Status(ctx)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if st.Counters.HTTPRefused < 4 {
		t.Fatalf("the page's requests were not refused: %d refused, session %+v", st.Counters.HTTPRefused, st.Sessions)
	}

	// DNS rebinding: the listener under the attacker's name.
	out, err := chromium(t, ctx, "--dump-dom", "http://evil.example:"+port+"/status").Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	if !strings.Contains(string(out), "forbidden: Host") || strings.Contains(string(out), "make test") {
		t.Fatalf("rebound /status showed:\n%s", out)
	}

	st, _ = d.r.Status(ctx)
	if len(st.Sessions) != 1 || st.Sessions[0] != before.Sessions[0] || st.Counters.HooksReceived != before.Counters.HooksReceived {
		t.Fatalf("the page changed state:\nbefore %+v\nafter  %+v", before.Sessions, st.Sessions)
	}
	t.Logf("chromium: %d requests refused (no-cors fetches, preflight, form post, rebound GET); session %s still %s %q",
		st.Counters.HTTPRefused, st.Sessions[0].Session, st.Sessions[0].State, st.Sessions[0].Detail)
}
