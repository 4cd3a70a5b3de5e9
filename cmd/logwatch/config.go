package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// Config is the whole configuration, read once by load and passed down by
// value. Packages get the parts they need.
type Config struct {
	Socket       string          `mapstructure:"socket"`
	Agents       AgentsConfig    `mapstructure:"agents"`
	Interrupt    InterruptConfig `mapstructure:"interrupt"`
	MaxLineBytes int             `mapstructure:"max_line_bytes"`
	Worktrees    []string        `mapstructure:"worktrees"`
	Log          LogConfig       `mapstructure:"log"`
	// HTTP is the optional loopback listener for URL hooks ("" = off).
	HTTP string `mapstructure:"http"`
	// Checkpoint is where the watcher keeps per-file positions across
	// restarts ("" = none: every restart bootstraps from the files' tails).
	Checkpoint string `mapstructure:"checkpoint"`
	// TurnQuiet ends a turn that has no explicit end record (Claude SDK and
	// 1.0.x sessions, old Codex files) this long after its final message.
	TurnQuiet time.Duration `mapstructure:"turn_quiet"`

	// File is the configuration file that was read ("" for none) and Host
	// the hostname whose overrides were merged ("" for none).
	File string `mapstructure:"-"`
	Host string `mapstructure:"-"`
}

type AgentsConfig struct {
	Claude AgentConfig `mapstructure:"claude"`
	Codex  AgentConfig `mapstructure:"codex"`
}

type AgentConfig struct {
	Roots []string `mapstructure:"roots"`
}

type InterruptConfig struct {
	Window     time.Duration `mapstructure:"window"`
	EscTimeout time.Duration `mapstructure:"esc_timeout"`
}

type LogConfig struct {
	Level  string `mapstructure:"level"`
	Format string `mapstructure:"format"`
}

// defaults mirror config.yaml at the repository root (a test keeps them equal).
var defaults = map[string]any{
	"socket":                "",
	"agents.claude.roots":   []string{"${CLAUDE_CONFIG_DIR:-~/.claude}/projects", "~/.config/claude/projects"},
	"agents.codex.roots":    []string{"${CODEX_HOME:-~/.codex}/sessions"},
	"interrupt.window":      "2s",
	"interrupt.esc_timeout": "30ms",
	"max_line_bytes":        32 << 20,
	"worktrees":             []string{},
	"turn_quiet":            "3s",
	"http":                  "",
	"checkpoint":            "${XDG_STATE_HOME:-~/.local/state}/logwatch/checkpoint.json",
	"log.level":             "info",
	"log.format":            "auto",
}

// flagKeys binds command-line flags (when a command defines them) to keys.
var flagKeys = map[string]string{
	"socket":         "socket",
	"log-level":      "log.level",
	"log-format":     "log.format",
	"max-line-bytes": "max_line_bytes",
}

// load reads the configuration: built-in defaults, then the file (--config,
// LOGWATCH_CONFIG, or the user's config dir), then the file's hosts.<hostname>
// overrides, then LOGWATCH_* environment variables, then flags.
func load(file string, flags *pflag.FlagSet) (Config, error) {
	v := viper.New()
	for k, d := range defaults {
		v.SetDefault(k, d)
	}
	v.SetEnvPrefix("LOGWATCH")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	for name, key := range flagKeys {
		if f := flags.Lookup(name); f != nil {
			if err := v.BindPFlag(key, f); err != nil {
				return Config{}, fmt.Errorf("flag %s: %w", name, err)
			}
		}
	}

	var cfg Config
	if file == "" {
		file = os.Getenv("LOGWATCH_CONFIG")
	}
	explicit := file != ""
	if !explicit {
		if dir, err := os.UserConfigDir(); err == nil {
			file = filepath.Join(dir, "logwatch", "config.yaml")
		}
	}
	if file != "" {
		v.SetConfigFile(file)
		v.SetConfigType("yaml")
		err := v.ReadInConfig()
		switch {
		case err == nil:
			cfg.File = file
		case !explicit && errors.Is(err, fs.ErrNotExist):
			// No user config: defaults it is.
		default:
			return Config{}, fmt.Errorf("config %s: %w", file, err)
		}
	}
	if host, over := hostOverrides(v); over != nil {
		if err := v.MergeConfigMap(over); err != nil {
			return Config{}, fmt.Errorf("config hosts.%s: %w", host, err)
		}
		cfg.Host = host
	}
	file, host := cfg.File, cfg.Host
	// Check durations first: the decoder's own message drops the value.
	for _, key := range []string{"interrupt.window", "interrupt.esc_timeout", "turn_quiet"} {
		if s, ok := v.Get(key).(string); ok {
			if _, err := time.ParseDuration(s); err != nil {
				return Config{}, fmt.Errorf("config: %s: invalid duration %q (want e.g. 2s, 30ms)", key, s)
			}
		}
	}
	if err := v.Unmarshal(&cfg); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	cfg.File, cfg.Host = file, host
	for i, r := range cfg.Agents.Claude.Roots {
		cfg.Agents.Claude.Roots[i] = expandPath(r)
	}
	for i, r := range cfg.Agents.Codex.Roots {
		cfg.Agents.Codex.Roots[i] = expandPath(r)
	}
	for i, r := range cfg.Worktrees {
		cfg.Worktrees[i] = expandPath(r)
	}
	cfg.Socket = expandPath(cfg.Socket)
	cfg.Checkpoint = expandPath(cfg.Checkpoint)
	return cfg, cfg.validate()
}

// hostOverrides finds this machine's entry under hosts: (hostnames match
// case-insensitively, full or up to the first dot).
func hostOverrides(v *viper.Viper) (string, map[string]any) {
	hosts, _ := v.Get("hosts").(map[string]any)
	if len(hosts) == 0 {
		return "", nil
	}
	name, err := os.Hostname()
	if err != nil {
		return "", nil
	}
	short, _, _ := strings.Cut(name, ".")
	for _, want := range []string{name, short} {
		for k, over := range hosts {
			if m, ok := over.(map[string]any); ok && strings.EqualFold(k, want) {
				return k, m
			}
		}
	}
	return "", nil
}

func (c Config) validate() error {
	var errs []error
	if c.MaxLineBytes <= 0 {
		errs = append(errs, fmt.Errorf("max_line_bytes must be positive, got %d", c.MaxLineBytes))
	}
	if c.Interrupt.Window <= 0 {
		errs = append(errs, fmt.Errorf("interrupt.window must be positive, got %s", c.Interrupt.Window))
	}
	if c.TurnQuiet <= 0 {
		errs = append(errs, fmt.Errorf("turn_quiet must be positive, got %s", c.TurnQuiet))
	}
	if c.Interrupt.EscTimeout <= 0 {
		errs = append(errs, fmt.Errorf("interrupt.esc_timeout must be positive, got %s", c.Interrupt.EscTimeout))
	}
	if _, err := zerolog.ParseLevel(c.Log.Level); err != nil || c.Log.Level == "" {
		errs = append(errs, fmt.Errorf("log.level must be trace, debug, info, warn or error, got %q", c.Log.Level))
	}
	switch c.Log.Format {
	case "auto", "console", "json":
	default:
		errs = append(errs, fmt.Errorf("log.format must be auto, console or json, got %q", c.Log.Format))
	}
	return errors.Join(errs...)
}

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandPath expands ${VAR} and ${VAR:-default} (an empty variable counts as
// unset, as in the shell) and a leading ~.
func expandPath(p string) string {
	p = varRef.ReplaceAllStringFunc(p, func(m string) string {
		sub := varRef.FindStringSubmatch(m)
		if val := os.Getenv(sub[1]); val != "" {
			return val
		}
		return sub[3]
	})
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	return p
}
