// Package webhook is the notifier's webhook sink: it POSTs each alert to a
// URL, as an ntfy message (title, priority, tags, click; replaced in place
// and deleted by its sequence id on ntfy 2.16 and later) or as a plain JSON
// body. A failed call is retried with backoff on a connection error or a
// 5xx answer, within the call's deadline; the token is sent, never printed.
package webhook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/notify"
	"github.com/logwatch/logwatch/notify/command"
)

// Formats.
const (
	FormatNtfy = "ntfy"
	FormatJSON = "json"
)

// Config is one webhook.
type Config struct {
	URL    string
	Format string // ntfy (default) or json
	// Token is sent as "Authorization: Bearer"; never printed.
	Token string
	// Click is an ntfy click URL (what tapping the notification opens).
	Click string
}

// Sink is a webhook.
type Sink struct {
	cfg    Config
	client *http.Client
	// Backoff is the wait before the first retry, doubled after each.
	Backoff  time.Duration
	Attempts int
}

// New checks cfg and returns its sink.
func New(cfg Config) (*Sink, error) {
	if err := CheckURL(cfg.URL); err != nil {
		return nil, err
	}
	switch cfg.Format {
	case "":
		cfg.Format = FormatNtfy
	case FormatNtfy, FormatJSON:
	default:
		return nil, fmt.Errorf("webhook format %q: want ntfy or json", cfg.Format)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 2
	return &Sink{cfg: cfg, client: &http.Client{Transport: tr,
		// A redirect would carry the token elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		Backoff: 250 * time.Millisecond, Attempts: 4}, nil
}

// CheckURL accepts an http or https URL with a host.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("webhook url: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("webhook url %q: want http(s)://host/…", raw)
	}
	return nil
}

// Token reads the token from the environment variable env or the file
// (the first of them set). The error never holds the token.
func Token(env, file string) (string, error) {
	if env != "" {
		if v := strings.TrimSpace(os.Getenv(env)); v != "" {
			return v, nil
		}
		if file == "" {
			return "", fmt.Errorf("token_env %s is not set", env)
		}
	}
	if file == "" {
		return "", nil
	}
	b, err := safeopen.ReadFile(file, 64<<10)
	if err != nil {
		return "", fmt.Errorf("token_file: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func (s *Sink) Name() string { return "webhook" }

// SequenceID is the ntfy sequence id of a session's alert: stable across
// restarts (so a later withdraw still finds it), and only [0-9a-f].
func SequenceID(key string) string {
	h := sha256.Sum256([]byte(key))
	return "lw" + hex.EncodeToString(h[:12])
}

func (s *Sink) Show(ctx context.Context, a notify.Alert) error {
	if s.cfg.Format == FormatJSON {
		return s.postJSON(ctx, "show", a)
	}
	body := a.Detail
	if body == "" {
		body = a.Reason
	}
	return s.do(ctx, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.URL, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		h := req.Header
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Title", header(TitleOf(a)))
		h.Set("Priority", PriorityOf(a))
		h.Set("Tags", strings.Join(TagsOf(a), ","))
		h.Set("X-Sequence-ID", SequenceID(a.Key))
		if s.cfg.Click != "" {
			h.Set("Click", s.cfg.Click)
		}
		return req, nil
	})
}

func (s *Sink) Withdraw(ctx context.Context, a notify.Alert) error {
	if s.cfg.Format == FormatJSON {
		return s.postJSON(ctx, "withdraw", a)
	}
	// ntfy 2.16+: DELETE <topic>/<sequence id> removes it from every
	// subscriber; an older server answers 4xx and the phone keeps it.
	return s.do(ctx, func() (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodDelete, strings.TrimRight(s.cfg.URL, "/")+"/"+SequenceID(a.Key), nil)
	})
}

func (s *Sink) postJSON(ctx context.Context, event string, a notify.Alert) error {
	b, err := json.Marshal(command.PayloadOf(event, a))
	if err != nil {
		return err
	}
	return s.do(ctx, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.URL, bytes.NewReader(b))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req, err
	})
}

// errPermanent marks an answer a retry cannot change (4xx).
var errPermanent = errors.New("refused")

// do sends the request mk builds, retrying a connection error, a 429 or
// a 5xx with backoff while ctx allows.
func (s *Sink) do(ctx context.Context, mk func() (*http.Request, error)) error {
	wait := s.Backoff
	var last error
	for i := 0; i < max(s.Attempts, 1); i++ {
		if i > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return fmt.Errorf("%w (after %d attempts: %v)", ctx.Err(), i, last)
			}
			wait *= 2
		}
		req, err := mk()
		if err != nil {
			return err
		}
		if s.cfg.Token != "" {
			req.Header.Set("Authorization", "Bearer "+s.cfg.Token)
		}
		last = s.send(req)
		if last == nil || errors.Is(last, errPermanent) || ctx.Err() != nil {
			return last
		}
	}
	return last
}

func (s *Sink) send(req *http.Request) error {
	resp, err := s.roundTrip(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch {
	case resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("%s %s: %s", req.Method, redact(req.URL), resp.Status)
	}
	return fmt.Errorf("%w: %s %s: %s", errPermanent, req.Method, redact(req.URL), resp.Status)
}

// roundTrip is the client's Do, its error naming the URL as redact does:
// url.Error names it whole (never a header: no token in it), and the
// daemon logs what a sink returns.
func (s *Sink) roundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.client.Do(req)
	var ue *url.Error
	if errors.As(err, &ue) {
		return resp, &url.Error{Op: ue.Op, URL: redact(req.URL), Err: ue.Err}
	}
	return resp, err
}

// redact is how an error names a URL: its scheme and host only. User info
// holds a password, and the path can too (an ntfy topic is its password),
// so errors, the daemon's log among them, show it as "/***", as `logwatch
// config` does.
func redact(u *url.URL) string {
	out := u.Scheme + "://" + u.Host
	if u.Path != "" && u.Path != "/" {
		out += "/***"
	}
	return out
}

// Probe asks the URL's server whether it answers (a HEAD, nothing
// published): nil when it does with anything but a server error or a
// refused token.
func (s *Sink) Probe(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, s.cfg.URL, nil)
	if err != nil {
		return "", err
	}
	if s.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+s.cfg.Token)
	}
	resp, err := s.roundTrip(req)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return "", fmt.Errorf("%s refused the token: %s", redact(req.URL), resp.Status)
	case resp.StatusCode >= 500:
		return "", fmt.Errorf("%s: %s", redact(req.URL), resp.Status)
	}
	return "", nil
}

// TitleOf is the notification's title: what the session is about, and
// which state it is in.
func TitleOf(a notify.Alert) string {
	what := "needs you"
	if a.State == "done" {
		what = "finished"
	}
	name := a.Agent
	if a.Host != "" {
		name += "@" + a.Host
	}
	t := name + " " + what
	if a.Title != "" {
		t += ": " + a.Title
	}
	return t
}

// PriorityOf: a wait is high (sound and pop-over on a phone), a finished
// turn the default.
func PriorityOf(a notify.Alert) string {
	if a.State == "waiting" {
		return "high"
	}
	return "default"
}

// TagsOf: an emoji for the state (ntfy shows a known short code as one),
// then the agent and the reason.
func TagsOf(a notify.Alert) []string {
	icon := "bell"
	if a.State == "done" {
		icon = "white_check_mark"
	}
	out := []string{icon}
	for _, t := range []string{a.Agent, a.Reason, a.Host} {
		if t = tag(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func tag(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ',' || unicode.IsControl(r) || r > unicode.MaxASCII {
			return -1
		}
		return r
	}, s)
}

// header makes s one header line: control characters become spaces, at
// most 200 runes, non-ASCII as an RFC 2047 word (which ntfy decodes).
func header(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return mime.BEncoding.Encode("UTF-8", s)
}
