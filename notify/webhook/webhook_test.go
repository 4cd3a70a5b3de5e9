package webhook

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logwatch/logwatch/notify"
)

type hit struct {
	method, path string
	header       http.Header
	body         string
}

func server(t *testing.T, status func(n int) int) (*httptest.Server, func() []hit) {
	var mu sync.Mutex
	var hits []hit
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		hits = append(hits, hit{r.Method, r.URL.Path, r.Header.Clone(), string(b)})
		n := len(hits)
		mu.Unlock()
		w.WriteHeader(status(n))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []hit { mu.Lock(); defer mu.Unlock(); return append([]hit(nil), hits...) }
}

func ok(int) int { return 200 }

var alert = notify.Alert{Key: "devbox\x00s1", Host: "devbox", Session: "s1", Agent: "claude", Title: "Fix the flaky test",
	State: "waiting", Reason: "permission", Detail: "Bash: go test ./...", Tab: "t1", Cwd: "/src",
	Since: time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)}

// TestNtfyFields checks an ntfy publish field by field, then its withdraw.
func TestNtfyFields(t *testing.T) {
	srv, hits := server(t, ok)
	s, err := New(Config{URL: srv.URL + "/lw-alerts", Token: "tk_secret", Click: "https://example.test/open"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Show(context.Background(), alert); err != nil {
		t.Fatal(err)
	}
	if err := s.Withdraw(context.Background(), alert); err != nil {
		t.Fatal(err)
	}
	h := hits()
	if len(h) != 2 {
		t.Fatalf("%d requests, want 2", len(h))
	}
	p := h[0]
	seq := SequenceID(alert.Key)
	for _, c := range []struct{ what, got, want string }{
		{"method", p.method, "POST"},
		{"path", p.path, "/lw-alerts"},
		{"Title", p.header.Get("Title"), "claude@devbox needs you: Fix the flaky test"},
		{"Priority", p.header.Get("Priority"), "high"},
		{"Tags", p.header.Get("Tags"), "bell,claude,permission,devbox"},
		{"Click", p.header.Get("Click"), "https://example.test/open"},
		{"X-Sequence-ID", p.header.Get("X-Sequence-ID"), seq},
		{"Authorization", p.header.Get("Authorization"), "Bearer tk_secret"},
		{"body", p.body, "Bash: go test ./..."},
		{"withdraw method", h[1].method, "DELETE"},
		{"withdraw path", h[1].path, "/lw-alerts/" + seq},
		{"withdraw Authorization", h[1].header.Get("Authorization"), "Bearer tk_secret"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	done := alert
	done.State, done.Reason, done.Title, done.Host = "done", "turn_end", "", ""
	if got := TitleOf(done); got != "claude finished" {
		t.Errorf("done title %q", got)
	}
	if got := PriorityOf(done); got != "default" {
		t.Errorf("done priority %q", got)
	}
	if got := strings.Join(TagsOf(done), ","); got != "white_check_mark,claude,turn_end" {
		t.Errorf("done tags %q", got)
	}
}

// TestNtfyTitleOneLine: a title with line breaks or non-ASCII stays one
// header (RFC 2047 for ntfy to decode), never a second header.
func TestNtfyTitleOneLine(t *testing.T) {
	srv, hits := server(t, ok)
	s, _ := New(Config{URL: srv.URL + "/x"})
	a := alert
	a.Title = "évite\r\nX-Evil: 1"
	if err := s.Show(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	h := hits()[0].header
	if h.Get("X-Evil") != "" || !strings.HasPrefix(h.Get("Title"), "=?UTF-8?b?") {
		t.Fatalf("title header %q, X-Evil %q", h.Get("Title"), h.Get("X-Evil"))
	}
}

func TestJSONFormat(t *testing.T) {
	srv, hits := server(t, ok)
	s, _ := New(Config{URL: srv.URL + "/hook", Format: FormatJSON})
	if err := s.Show(context.Background(), alert); err != nil {
		t.Fatal(err)
	}
	if err := s.Withdraw(context.Background(), alert); err != nil {
		t.Fatal(err)
	}
	h := hits()
	var got [2]map[string]any
	for i := range got {
		if err := json.Unmarshal([]byte(h[i].body), &got[i]); err != nil {
			t.Fatal(err)
		}
		if h[i].method != "POST" || h[i].header.Get("Content-Type") != "application/json" {
			t.Fatalf("request %d: %s %s", i, h[i].method, h[i].header.Get("Content-Type"))
		}
	}
	if got[0]["event"] != "show" || got[0]["state"] != "waiting" || got[0]["session"] != "s1" || got[0]["host"] != "devbox" ||
		got[0]["title"] != "Fix the flaky test" || got[1]["event"] != "withdraw" {
		t.Fatalf("bodies %v", got)
	}
}

// TestRetry: a 500 is retried with backoff until it is taken; a 4xx is not.
func TestRetry(t *testing.T) {
	srv, hits := server(t, func(n int) int {
		if n < 3 {
			return 503
		}
		return 200
	})
	s, _ := New(Config{URL: srv.URL + "/x"})
	s.Backoff = time.Millisecond
	if err := s.Show(context.Background(), alert); err != nil {
		t.Fatal(err)
	}
	if n := len(hits()); n != 3 {
		t.Fatalf("%d attempts, want 3", n)
	}
	srv2, hits2 := server(t, func(int) int { return 403 })
	s2, _ := New(Config{URL: srv2.URL + "/x"})
	s2.Backoff = time.Millisecond
	if err := s2.Show(context.Background(), alert); err == nil {
		t.Fatal("a 403 was taken as success")
	}
	if n := len(hits2()); n != 1 {
		t.Fatalf("a 403 was tried %d times", n)
	}
}

// TestTokenNeverPrinted: the token is in no error, whatever fails.
func TestTokenNeverPrinted(t *testing.T) {
	srv, _ := server(t, func(int) int { return 500 })
	s, _ := New(Config{URL: srv.URL + "/x", Token: "tk_supersecret"})
	s.Backoff = time.Millisecond
	s.Attempts = 2
	err := s.Show(context.Background(), alert)
	if err == nil || strings.Contains(err.Error(), "tk_supersecret") {
		t.Fatalf("error %v", err)
	}
	if _, err := s.Probe(context.Background()); err == nil || strings.Contains(err.Error(), "tk_supersecret") {
		t.Fatalf("probe error %v", err)
	}
	t.Setenv("LW_TEST_TOKEN", "")
	if _, err := Token("LW_TEST_TOKEN", ""); err == nil {
		t.Fatal("an unset token_env was accepted")
	}
	f := filepath.Join(t.TempDir(), "token")
	os.WriteFile(f, []byte("tk_fromfile\n"), 0o600)
	if tok, err := Token("LW_TEST_TOKEN", f); err != nil || tok != "tk_fromfile" {
		t.Fatalf("token from file: %q %v", tok, err)
	}
	t.Setenv("LW_TEST_TOKEN", "tk_fromenv")
	if tok, _ := Token("LW_TEST_TOKEN", f); tok != "tk_fromenv" {
		t.Fatalf("env did not win: %q", tok)
	}
}

type fastSink struct{ n atomic.Int64 }

func (f *fastSink) Name() string                                 { return "fast" }
func (f *fastSink) Show(context.Context, notify.Alert) error     { f.n.Add(1); return nil }
func (f *fastSink) Withdraw(context.Context, notify.Alert) error { return nil }

// TestBadServersSlowNoOther: webhooks to a server that hangs, one that
// refuses connections and one that answers 500 leave another sink taking
// every alert at once, and the notifier's own calls return at once.
func TestBadServersSlowNoOther(t *testing.T) {
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release)
	five, _ := server(t, func(int) int { return 500 })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/x"
	ln.Close()
	var sinks []notify.Sink
	for _, u := range []string{hang.URL + "/x", five.URL + "/x", refused} {
		s, err := New(Config{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		sinks = append(sinks, s)
	}
	fast := &fastSink{}
	sinks = append(sinks, fast)
	n := notify.New(notify.Rules{}, sinks, notify.Options{Timeout: 2 * time.Second, Queue: 64}, nopLog)
	ctx, cancel := context.WithCancel(context.Background())
	stop := n.Start(ctx)
	defer func() { cancel(); stop() }()
	const sessions = 50
	start := time.Now()
	for i := 0; i < sessions; i++ {
		n.Changed(waiting(i))
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("feeding %d changes took %v with bad sinks", sessions, d)
	}
	deadline := time.Now().Add(10 * time.Second)
	for fast.n.Load() < sessions && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := fast.n.Load(); got != sessions {
		t.Fatalf("the good sink got %d of %d alerts", got, sessions)
	}
	for _, st := range n.Stats() {
		if st.Name == "webhook" && st.Shown > 0 {
			t.Errorf("a bad webhook counted %d shown", st.Shown)
		}
	}
	var failed bool
	for time.Now().Before(deadline) && !failed {
		for _, st := range n.Stats()[:3] {
			failed = failed || st.Failed > 0
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !failed {
		t.Fatal("no bad webhook's failure was counted")
	}
}

// TestTopicNeverPrinted: an ntfy topic is its password, and a URL's user
// info holds one: no error the sink returns (what the daemon logs) names
// either, whether the server answers 500 or 403, cannot be reached, or is
// probed.
func TestTopicNeverPrinted(t *testing.T) {
	five, _ := server(t, func(int) int { return 500 })
	four, _ := server(t, func(int) int { return 403 })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String()
	ln.Close()
	for _, base := range []string{five.URL, four.URL, refused} {
		u := strings.Replace(base, "http://", "http://me:pw_secret@", 1) + "/tp_secret-topic"
		s, err := New(Config{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		s.Backoff, s.Attempts = time.Millisecond, 2
		errs := []error{s.Show(context.Background(), alert), s.Withdraw(context.Background(), alert)}
		_, perr := s.Probe(context.Background())
		errs = append(errs, perr)
		for _, err := range errs {
			if err == nil || strings.Contains(err.Error(), "_secret") || !strings.Contains(err.Error(), "/***") {
				t.Errorf("%s: error %v", base, err)
			}
		}
	}
}
