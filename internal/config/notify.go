package config

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// NotifyConfig is notify: the daemon's own alerts (docs/notify.md). No
// sink, no alert: off unless configured.
type NotifyConfig struct {
	// Done alerts for a finished turn too; a wait always alerts.
	Done bool `mapstructure:"done"`
	// Rate is the least time between two alerts of one session.
	Rate time.Duration `mapstructure:"rate"`
	// Timeout bounds one sink call (a command is killed at it).
	Timeout time.Duration `mapstructure:"timeout"`
	Sinks   []SinkConfig  `mapstructure:"sinks"`
}

// Sink types.
const (
	SinkDesktop = "desktop"
	SinkCommand = "command"
	SinkWebhook = "webhook"
)

// SinkConfig is one sink: type desktop, command (Command, Withdraw) or
// webhook (URL, Format, TokenEnv or TokenFile, Click).
type SinkConfig struct {
	Type      string   `mapstructure:"type" yaml:"type"`
	Command   []string `mapstructure:"command" yaml:"command,omitempty,flow"`
	Withdraw  bool     `mapstructure:"withdraw" yaml:"withdraw,omitempty"`
	URL       string   `mapstructure:"url" yaml:"url,omitempty"`
	Format    string   `mapstructure:"format" yaml:"format,omitempty"`
	TokenEnv  string   `mapstructure:"token_env" yaml:"token_env,omitempty"`
	TokenFile string   `mapstructure:"token_file" yaml:"token_file,omitempty"`
	Click     string   `mapstructure:"click" yaml:"click,omitempty"`
}

// CheckSink reports what is wrong with one sink's settings.
func CheckSink(s SinkConfig) error {
	var errs []error
	only := func(what string, set bool, types ...string) {
		if set && !slices.Contains(types, s.Type) {
			errs = append(errs, fmt.Errorf("%s is for a %s sink, not %s", what, strings.Join(types, " or "), s.Type))
		}
	}
	switch s.Type {
	case SinkDesktop:
	case SinkCommand:
		if len(s.Command) == 0 || s.Command[0] == "" {
			errs = append(errs, errors.New(`command is empty (want a list: [paplay, /usr/share/sounds/x.oga], or [sh, -c, "…"] for a shell)`))
		}
	case SinkWebhook:
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, errors.New("url: want http(s)://host/… (for ntfy, the topic's URL)"))
		}
		if s.Format != "" && s.Format != "ntfy" && s.Format != "json" {
			errs = append(errs, fmt.Errorf("format %q: want ntfy or json", s.Format))
		}
		if s.TokenEnv != "" && strings.ContainsAny(s.TokenEnv, "= \t\n\x00") {
			errs = append(errs, fmt.Errorf("token_env %q is not an environment variable name", s.TokenEnv))
		}
	case "":
		errs = append(errs, errors.New("type is empty (want desktop, command or webhook)"))
	default:
		errs = append(errs, fmt.Errorf("type %q: want desktop, command or webhook", s.Type))
	}
	only("command", len(s.Command) > 0, SinkCommand)
	only("withdraw", s.Withdraw, SinkCommand)
	only("url", s.URL != "", SinkWebhook)
	only("format", s.Format != "", SinkWebhook)
	only("token_env", s.TokenEnv != "", SinkWebhook)
	only("token_file", s.TokenFile != "", SinkWebhook)
	only("click", s.Click != "", SinkWebhook)
	return errors.Join(errs...)
}

func (n NotifyConfig) validate() error {
	var errs []error
	if n.Rate < 0 {
		errs = append(errs, fmt.Errorf("notify.rate must not be negative, got %s", n.Rate))
	}
	if n.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("notify.timeout must be positive, got %s", n.Timeout))
	}
	for i, s := range n.Sinks {
		if err := CheckSink(s); err != nil {
			errs = append(errs, fmt.Errorf("notify.sinks[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// ErrSinkExists refuses to add a sink the file already has.
var ErrSinkExists = errors.New("that sink is configured already")

// AddSink adds s to file's notify.sinks (creating the file, 0600, when it
// does not exist), keeping the rest of it, comments included. A desktop
// sink is added once; a command or webhook once per command or URL.
func AddSink(file string, s SinkConfig) error {
	if err := CheckSink(s); err != nil {
		return err
	}
	return editList(file, []string{"notify", "sinks"}, func(list *yaml.Node) error {
		for _, it := range list.Content {
			var have SinkConfig
			if it.Decode(&have) == nil && have.Type == s.Type && have.URL == s.URL && slices.Equal(have.Command, s.Command) {
				return fmt.Errorf("%w: %s", ErrSinkExists, MaskURL(describeSink(s)))
			}
		}
		var n yaml.Node
		if err := n.Encode(s); err != nil {
			return err
		}
		n.Style = yaml.FlowStyle
		list.Style = 0
		list.Content = append(list.Content, &n)
		return nil
	})
}

func describeSink(s SinkConfig) string {
	switch s.Type {
	case SinkCommand:
		return "command " + strings.Join(s.Command, " ")
	case SinkWebhook:
		return "webhook " + s.URL
	}
	return s.Type
}

// MaskURL hides what the URLs in s may hold of a secret: user info and
// path (an ntfy topic is its password). The rest of s is kept.
func MaskURL(s string) string {
	return urlRe().ReplaceAllStringFunc(s, func(m string) string {
		sub := urlRe().FindStringSubmatch(m)
		host := sub[2]
		if at := strings.LastIndex(host, "@"); at >= 0 {
			host = host[at+1:]
		}
		// Punctuation ending the match is the sentence's, not the URL's
		// ("POST https://h/***: 403" keeps its colon).
		path := strings.TrimRight(sub[3], ":,.;)")
		out := sub[1] + "://" + host
		switch path {
		case "", "/":
			out += path
		default:
			out += "/***"
		}
		return out + sub[3][len(path):]
	})
}

var urlRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(https?)://([^/\s"'?#]+)([^\s"']*)`) })
