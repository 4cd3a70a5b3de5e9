package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/logwatch/logwatch/relay"
	"github.com/logwatch/logwatch/relay/server"
)

const testSecret = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// startHTTP serves d's relay on a real loopback port and returns host:port.
func startHTTP(t *testing.T, d *daemon, opt server.HTTPOptions) string {
	t.Helper()
	ln, err := server.ListenHTTP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.srv.ServeHTTP(ctx, ln, opt) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// rawHTTP sends one request, byte for byte as given (\n becomes \r\n in
// the head), and returns the response.
func rawHTTP(t *testing.T, addr, head, body string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	head = strings.ReplaceAll(strings.TrimLeft(head, "\n"), "\n", "\r\n")
	if _, err := io.WriteString(c, head+"\r\n"+body); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// What Chrome 131 sends. A page on http://evil.example calls
// fetch(url, {method: "POST", mode: "no-cors", body}) (text/plain: no
// preflight), submits a <form> (form-encoded, text/plain or multipart: no
// preflight either), or, after DNS rebinding evil.example to 127.0.0.1,
// fetches same-origin from its own name.
const (
	chromeUA = `User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36
sec-ch-ua: "Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"
sec-ch-ua-mobile: ?0
sec-ch-ua-platform: "Linux"`
	fetchNoCORS = `
POST %s HTTP/1.1
Host: %s
Connection: keep-alive
Content-Length: %d
` + chromeUA + `
Content-Type: text/plain;charset=UTF-8
Accept: */*
Origin: http://evil.example
Sec-Fetch-Site: cross-site
Sec-Fetch-Mode: no-cors
Sec-Fetch-Dest: empty
Referer: http://evil.example/
Accept-Encoding: gzip, deflate, br, zstd
Accept-Language: en-US,en;q=0.9
`
	formPost = `
POST %s HTTP/1.1
Host: %s
Connection: keep-alive
Content-Length: %d
Cache-Control: max-age=0
Upgrade-Insecure-Requests: 1
Origin: http://evil.example
Content-Type: %s
` + chromeUA + `
Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8
Sec-Fetch-Site: cross-site
Sec-Fetch-Mode: navigate
Sec-Fetch-User: ?1
Sec-Fetch-Dest: document
Referer: http://evil.example/
Accept-Encoding: gzip, deflate, br, zstd
Accept-Language: en-US,en;q=0.9
`
	rebindGet = `
GET /status HTTP/1.1
Host: evil.example:%s
Connection: keep-alive
` + chromeUA + `
Accept: */*
Sec-Fetch-Site: same-origin
Sec-Fetch-Mode: cors
Sec-Fetch-Dest: empty
Referer: http://evil.example:%s/
Accept-Encoding: gzip, deflate, br, zstd
Accept-Language: en-US,en;q=0.9
`
	rebindPost = `
POST /api HTTP/1.1
Host: evil.example:%s
Connection: keep-alive
Content-Length: %d
` + chromeUA + `
Content-Type: application/json
Accept: */*
Origin: http://evil.example:%s
Sec-Fetch-Site: same-origin
Sec-Fetch-Mode: cors
Sec-Fetch-Dest: empty
Referer: http://evil.example:%s/
Accept-Encoding: gzip, deflate, br, zstd
Accept-Language: en-US,en;q=0.9
`
	// A local program that knows the address but not the secret, and
	// one that knows the secret (read from a leaked file, say) but is
	// driven by a page (cross-origin).
	local = `
POST %s HTTP/1.1
Host: %s
Content-Length: %d
Content-Type: %s
%s`
)

// TestHTTPRefusesBrowsers: every request a web page can make, and every
// request without the secret, is refused before any handler runs; nothing
// changes. Then the agents' own request (secret, JSON) goes through.
func TestHTTPRefusesBrowsers(t *testing.T) {
	d := startDaemon(t, nil)
	ctx := context.Background()
	addr := startHTTP(t, d, server.HTTPOptions{Secret: testSecret})
	_, port, _ := net.SplitHostPort(addr)
	must(t, d.r.Hook(ctx, "claude", "t1", []byte(`{"hook_event_name":"PreToolUse","session_id":"real","tool_name":"Bash","tool_input":{"command":"make test"}}`)))
	before, _ := d.r.Status(ctx)

	stop := `{"hook_event_name":"Stop","session_id":"real"}`
	wait := `{"hook_event_name":"Notification","session_id":"real","notification_type":"permission_prompt","message":"run rm -rf ~ ?"}`
	fake := `{"op":"hook","agent":"claude","payload":{"hook_event_name":"UserPromptSubmit","session_id":"fake"}}`
	ack := `{"op":"ack","session":"real"}`
	closed := `{"op":"tab_closed","tab":"t1"}`
	formAck := `{"op":"ack","session":"real","x":"="}` // <form enctype=text/plain> with name `{"op":…,"x":"` and value `"}`
	multipart := "------WebKitFormBoundary7MA4YWxkTrZu0gW\r\nContent-Disposition: form-data; name=\"p\"\r\n\r\n" + stop +
		"\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW--\r\n"
	secretH := relay.SecretHeader + ": " + testSecret + "\n"
	tests := []struct {
		name, head, body string
		code             int
	}{
		{"fetch no-cors text/plain: Stop", fmt.Sprintf(fetchNoCORS, "/hook?agent=claude", addr, len(stop)), stop, 403},
		{"fetch no-cors text/plain: waiting with attacker text", fmt.Sprintf(fetchNoCORS, "/hook?agent=claude", addr, len(wait)), wait, 403},
		{"fetch no-cors text/plain: /api fake session", fmt.Sprintf(fetchNoCORS, "/api", addr, len(fake)), fake, 403},
		{"form text/plain: /api ack", fmt.Sprintf(formPost, "/api", addr, len(formAck), "text/plain"), formAck, 403},
		{"form urlencoded: /api tab_closed", fmt.Sprintf(formPost, "/api", addr, len(closed), "application/x-www-form-urlencoded"), closed, 403},
		{"form multipart: /hook", fmt.Sprintf(formPost, "/hook?agent=claude", addr, len(multipart),
			"multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW"), multipart, 403},
		{"DNS rebinding: GET /status", fmt.Sprintf(rebindGet, port, port), "", 403},
		{"DNS rebinding: POST /api ack as JSON", fmt.Sprintf(rebindPost, port, len(ack), port, port), ack, 403},
		{"no secret: JSON hook", fmt.Sprintf(local, "/hook?agent=claude", addr, len(stop), "application/json", ""), stop, 401},
		{"wrong secret: /api ack", fmt.Sprintf(local, "/api", addr, len(ack), "application/json", relay.SecretHeader+": "+strings.Repeat("0", 64)+"\n"), ack, 401},
		{"no secret: GET /status", "GET /status HTTP/1.1\nHost: " + addr + "\n", "", 401},
		{"secret, but text/plain", fmt.Sprintf(local, "/hook?agent=claude", addr, len(stop), "text/plain", secretH), stop, 415},
		{"secret, but form-encoded", fmt.Sprintf(local, "/api", addr, len(ack), "application/x-www-form-urlencoded", secretH), ack, 415},
		{"secret, but no Content-Type", fmt.Sprintf("POST /api HTTP/1.1\nHost: %s\nContent-Length: %d\n%s", addr, len(ack), secretH), ack, 415},
		{"secret, but cross-origin", fmt.Sprintf(local, "/api", addr, len(ack), "application/json", secretH+"Origin: http://evil.example\n"), ack, 403},
		{"secret, but Origin null (sandboxed page)", fmt.Sprintf(local, "/api", addr, len(ack), "application/json", secretH+"Origin: null\n"), ack, 403},
		{"secret, but Origin on another port", fmt.Sprintf(local, "/api", addr, len(ack), "application/json", secretH+"Origin: http://127.0.0.1:1\n"), ack, 403},
		{"secret, but Sec-Fetch-Site cross-site", fmt.Sprintf(local, "/api", addr, len(ack), "application/json", secretH+"Sec-Fetch-Site: cross-site\n"), ack, 403},
		{"secret, but rebound Host", fmt.Sprintf(local, "/api", "evil.example:"+port, len(ack), "application/json", secretH), ack, 403},
	}
	for _, tc := range tests {
		resp, body := rawHTTP(t, addr, tc.head, tc.body)
		if resp.StatusCode != tc.code || !strings.Contains(body, `"ok":false`) {
			t.Errorf("%s: status %d %s, want %d", tc.name, resp.StatusCode, body, tc.code)
		}
		if h := resp.Header.Get("Access-Control-Allow-Origin"); h != "" {
			t.Errorf("%s: CORS header %q", tc.name, h)
		}
		if strings.Contains(body, "make test") || strings.Contains(body, `"sessions"`) {
			t.Errorf("%s: leaked state: %s", tc.name, body)
		}
	}

	after, _ := d.r.Status(ctx)
	if len(after.Sessions) != 1 || after.Sessions[0] != before.Sessions[0] {
		t.Fatalf("state changed:\nbefore %+v\nafter  %+v", before.Sessions, after.Sessions)
	}
	if after.Counters.HooksReceived != before.Counters.HooksReceived || after.Counters.HTTPRefused != int64(len(tests)) {
		t.Fatalf("counters: hooks %d→%d, http_refused %d (want %d)", before.Counters.HooksReceived,
			after.Counters.HooksReceived, after.Counters.HTTPRefused, len(tests))
	}
	t.Logf("%d browser-shaped and secretless requests refused; session %q still %s %q", len(tests),
		after.Sessions[0].Session, after.Sessions[0].State, after.Sessions[0].Detail)

	// The agent's own requests: the secret, JSON, this listener's Host
	// (as an IP or as localhost), an Origin of its own if any.
	post := func(host, path, origin, body string) int {
		req, _ := http.NewRequest("POST", "http://"+addr+path, strings.NewReader(body))
		req.Host = host
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
		req.Header.Set(relay.SecretHeader, testSecret)
		req.Header.Set(relay.TabHeader, "t1")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post(addr, "/hook?agent=claude", "", wait); c != 200 {
		t.Fatalf("agent hook: %d", c)
	}
	if c := post("localhost:"+port, "/hook?agent=claude", "http://"+addr, stop); c != 200 {
		t.Fatalf("agent hook via localhost with own Origin: %d", c)
	}
	if c := post(addr, "/api", "", ack); c != 200 {
		t.Fatalf("api ack: %d", c)
	}
	st, _ := d.r.Status(ctx)
	if s := st.Sessions[0]; s.State != "ready" || s.Tab != "t1" {
		t.Fatalf("after the agent's requests: %+v", s)
	}
}

// TestHTTPConnectionCap: connections held open without a word, past the
// cap, cannot lock an agent's hook out; the server closes the oldest.
func TestHTTPConnectionCap(t *testing.T) {
	d := startDaemon(t, nil)
	const cap, held = 4, 20
	addr := startHTTP(t, d, server.HTTPOptions{Secret: testSecret, MaxConns: cap})
	var conns []net.Conn
	for range held {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	body := `{"hook_event_name":"UserPromptSubmit","session_id":"s"}`
	resp, out := rawHTTP(t, addr, fmt.Sprintf(local, "/hook?agent=claude", addr, len(body), "application/json",
		relay.SecretHeader+": "+testSecret+"\n"), body)
	if resp.StatusCode != 200 {
		t.Fatalf("hook behind %d held connections: %d %s", held, resp.StatusCode, out)
	}
	closed := 0
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); errors.Is(err, io.EOF) {
			closed++
		}
	}
	if closed < held-cap+1 {
		t.Fatalf("%d of %d held connections closed, want at least %d (cap %d)", closed, held, held-cap+1, cap)
	}
	t.Logf("cap %d: %d held connections, %d closed by the server, the hook answered 200", cap, held, closed)
}

// TestHTTPHeaderTimeout: a connection that never finishes its headers is
// closed by the server.
func TestHTTPHeaderTimeout(t *testing.T) {
	d := startDaemon(t, nil)
	addr := startHTTP(t, d, server.HTTPOptions{Secret: testSecret, ReadHeaderTimeout: 100 * time.Millisecond})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /hook?agent=claude HTTP/1.1\r\nHost: "+addr+"\r\nX-Slow: ")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("a half-sent request kept its connection for 10 s")
	}
}

func TestHTTPAddrMustBeLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8765", "192.168.1.2:8765", "[::]:8765", "example.com:80", "8765", "127.0.0.1:http"} {
		if _, err := server.ListenHTTP(addr); err == nil {
			t.Errorf("%s accepted", addr)
		}
	}
}

// TestHTTPStatusShared: GET /status and POST /api status answer with the
// shared status answer, the same line the socket sends.
func TestHTTPStatusShared(t *testing.T) {
	d := startDaemon(t, nil)
	ctx := context.Background()
	addr := startHTTP(t, d, server.HTTPOptions{Secret: testSecret})
	must(t, d.r.Hook(ctx, "claude", "t1", []byte(`{"hook_event_name":"PreToolUse","session_id":"s<1>","tool_name":"Bash","tool_input":{"command":"make test"}}`)))
	get := func(method, body string) relay.Response {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+addr+map[string]string{"GET": "/status", "POST": "/api"}[method], strings.NewReader(body))
		req.Header.Set(relay.SecretHeader, testSecret)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		must(t, err)
		var r relay.Response
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" ||
			!strings.HasSuffix(string(b), "}\n") || strings.Count(string(b), "\n") != 1 || json.Unmarshal(b, &r) != nil {
			t.Fatalf("%s: %d %q %s", method, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		return r
	}
	for _, r := range []relay.Response{get("GET", ""), get("POST", `{"op":"status"}`)} {
		if !r.OK || r.Protocol != relay.Protocol || r.Status == nil || len(r.Status.Sessions) != 1 ||
			r.Status.Sessions[0].Session != "s<1>" || r.Status.Sessions[0].Detail != "make test" {
			t.Fatalf("answer %+v", r)
		}
	}
}
