// Package config is logwatch's configuration: the typed struct, its
// defaults (mirrored by config.yaml), loading with viper from file, host
// overrides, environment and flags, validation and path expansion. The
// binary reads it once and passes the parts each component needs.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/logwatch/logwatch/internal/safeopen"
	"github.com/logwatch/logwatch/parsers"
	"github.com/logwatch/logwatch/relay/wire"
)

// Config is the whole configuration, read once by Load and passed down by
// value. Packages get the parts they need.
type Config struct {
	Socket       string          `mapstructure:"socket"`
	Agents       AgentsConfig    `mapstructure:"agents"`
	Interrupt    InterruptConfig `mapstructure:"interrupt"`
	MaxLineBytes int             `mapstructure:"max_line_bytes"`
	// LineBufferBytes bounds the memory every log reader together holds
	// for long lines, and the session databases' reads for big rows.
	LineBufferBytes int64     `mapstructure:"line_buffer_bytes"`
	Worktrees       []string  `mapstructure:"worktrees"`
	Log             LogConfig `mapstructure:"log"`
	// HTTP is the optional loopback listener for URL hooks ("" = off).
	HTTP string `mapstructure:"http"`
	// Checkpoint is where the watcher keeps per-file positions across
	// restarts ("" = none: every restart bootstraps from the files' tails).
	Checkpoint string `mapstructure:"checkpoint"`
	// TurnQuiet ends a turn that has no explicit end record (Claude SDK and
	// 1.0.x sessions, old Codex files) this long after its final message.
	TurnQuiet time.Duration `mapstructure:"turn_quiet"`
	// RecordMaxBytes bounds a `run --record` file; past it recording stops
	// with a warning.
	RecordMaxBytes int64 `mapstructure:"record_max_bytes"`
	// Remotes are the hosts whose logwatch daemons this one subscribes to
	// through ssh (SPEC §11).
	Remotes []RemoteConfig `mapstructure:"remotes"`
	// Notify is the daemon's own alerts (off without a sink).
	Notify NotifyConfig `mapstructure:"notify"`

	// File is the configuration file that was read ("" for none) and Host
	// the hostname whose overrides were merged ("" for none).
	File string `mapstructure:"-"`
	Host string `mapstructure:"-"`
}

// AgentsConfig is each registered agent's configuration, by name
// (agents.<name>.roots, agents.<name>.registry).
type AgentsConfig map[string]AgentConfig

type AgentConfig struct {
	Roots []string `mapstructure:"roots"`
	// Registry is where the agent keeps its live session registry (for
	// an agent that keeps none, empty).
	Registry []string `mapstructure:"registry"`
}

// RegistryDirs is Registry with paths expanded.
func (c AgentConfig) RegistryDirs() []string {
	out := make([]string, 0, len(c.Registry))
	for _, d := range c.Registry {
		out = append(out, ExpandPath(d))
	}
	return out
}

// RemoteConfig is one remote host (remotes: in the configuration).
type RemoteConfig struct {
	Name string `mapstructure:"name"` // its sessions' host field
	Dest string `mapstructure:"dest"` // the ssh destination
	// Command is logwatch on the remote, as its shell finds it (default
	// "logwatch").
	Command string `mapstructure:"command"`
	// SSH is extra ssh arguments, before the destination.
	SSH []string `mapstructure:"ssh"`
}

// remoteName is what a remote may be called: it is shown in every one of
// its sessions and typed on command lines.
// Compiled on first use, as the other patterns here: every process links
// this package, the hook client too, which never needs them.
var remoteName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`) })

// CheckRemote reports what is wrong with one remote's settings.
func CheckRemote(r RemoteConfig) error {
	var errs []error
	if !remoteName().MatchString(r.Name) {
		errs = append(errs, fmt.Errorf("name %q: want letters, digits, '.', '_' or '-' (at most 63, not starting with a sign)", r.Name))
	}
	switch {
	case r.Dest == "":
		errs = append(errs, errors.New("dest is empty (want [user@]host, or a Host of ~/.ssh/config)"))
	case strings.HasPrefix(r.Dest, "-") || strings.ContainsAny(r.Dest, " \t\n\r\x00"):
		// ssh would read it as an option (-oProxyCommand=…).
		errs = append(errs, fmt.Errorf("dest %q is not an ssh destination", r.Dest))
	}
	if strings.ContainsAny(r.Command, "\n\r\x00") {
		errs = append(errs, fmt.Errorf("command %q holds a line break", r.Command))
	}
	return errors.Join(errs...)
}

type InterruptConfig struct {
	Window     time.Duration `mapstructure:"window"`
	EscTimeout time.Duration `mapstructure:"esc_timeout"`
}

type LogConfig struct {
	Level  string `mapstructure:"level"`
	Format string `mapstructure:"format"`
}

// defaults mirror config.yaml at the repository root (a test keeps them
// equal), with agents.<name>.roots and .registry for each registered agent
// (agentDefaults).
var defaults = map[string]any{
	"socket":                "",
	"interrupt.window":      "2s",
	"interrupt.esc_timeout": "30ms",
	"max_line_bytes":        32 << 20,
	"line_buffer_bytes":     64 << 20,
	"worktrees":             []string{},
	"turn_quiet":            "3s",
	"record_max_bytes":      256 << 20,
	"remotes":               []any{},
	"notify.done":           false,
	"notify.rate":           "30s",
	"notify.timeout":        "10s",
	"notify.sinks":          []any{},
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

// Load reads the configuration: built-in defaults, then the file (--config,
// LOGWATCH_CONFIG, or the user's config dir), then the file's hosts.<hostname>
// overrides, then LOGWATCH_* environment variables, then flags.
func Load(file string, flags *pflag.FlagSet) (Config, error) {
	cfg, _, err := LoadWithOrigins(file, flags)
	return cfg, err
}

// FilePath is the configuration file Load reads: file, else
// $LOGWATCH_CONFIG, else config.yaml in the user's config dir ("" when
// there is none).
func FilePath(file string) string {
	if file == "" {
		file = os.Getenv("LOGWATCH_CONFIG")
	}
	if file == "" {
		if dir, err := os.UserConfigDir(); err == nil {
			file = filepath.Join(dir, "logwatch", "config.yaml")
		}
	}
	return file
}

// LoadWithOrigins is load that also says where each key's value came from
// (`logwatch config`): "default", "file PATH", "host NAME (PATH)",
// "env LOGWATCH_…" or "flag --…".
func LoadWithOrigins(file string, flags *pflag.FlagSet) (Config, map[string]string, error) {
	return load(file, true, flags)
}

// Defaults is the configuration without any file: the defaults, the
// environment and the flags (doctor checks on them when the file is bad).
func Defaults(flags *pflag.FlagSet) (Config, error) {
	cfg, _, err := load("", false, flags)
	return cfg, err
}

func load(file string, readFile bool, flags *pflag.FlagSet) (Config, map[string]string, error) {
	agentDefaults()
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
				return Config{}, nil, fmt.Errorf("flag %s: %w", name, err)
			}
		}
	}

	var cfg Config
	explicit := file != "" || os.Getenv("LOGWATCH_CONFIG") != ""
	if readFile {
		file = FilePath(file)
	} else {
		explicit = false
	}
	var fileKeys, hostKeys map[string]bool
	var keyErr error
	if file != "" {
		v.SetConfigType("yaml")
		// Read once, as a regular file of bounded size: a FIFO there would
		// block every verb for ever (the hook client, and the command wrap
		// runs, with them), a device never ends.
		raw, err := safeopen.ReadFile(file, MaxFileBytes)
		if err == nil {
			err = v.ReadConfig(bytes.NewReader(raw))
		}
		switch {
		case err == nil:
			cfg.File = file
			// What the file itself sets, before defaults are mixed in: for
			// origins, and to refuse keys logwatch does not know (a typo
			// would otherwise leave the default silently in place).
			fileKeys = flattenKeys(raw)
			keyErr = checkKeys(file, raw, fileKeys)
		case !explicit && errors.Is(err, fs.ErrNotExist):
			// No user config: defaults it is.
		default:
			return Config{}, nil, fmt.Errorf("config %s: %w", file, err)
		}
	}
	if host, over := hostOverrides(v); over != nil {
		if err := v.MergeConfigMap(over); err != nil {
			return Config{}, nil, fmt.Errorf("config hosts.%s: %w", host, err)
		}
		cfg.Host = host
		hostKeys = map[string]bool{}
		flattenMap("", over, hostKeys)
	}
	file, host := cfg.File, cfg.Host
	// Check types first: the decoder would silently convert a number to a
	// duration in nanoseconds and a string to a one-element list, and its
	// own messages drop the value (and the variable that set it).
	if err := errors.Join(checkEnv(), checkTypes(v)); err != nil {
		return Config{}, nil, err
	}
	for _, key := range listKeys {
		// The decoder would take the variable's whole string as one path.
		if env := os.Getenv(envName(key)); env != "" {
			v.Set(key, strings.Fields(env))
		}
	}
	if err := v.Unmarshal(&cfg); err != nil {
		return Config{}, nil, fmt.Errorf("config: %w", err)
	}
	cfg.File, cfg.Host = file, host
	for _, a := range cfg.Agents {
		for i, r := range a.Roots {
			a.Roots[i] = ExpandPath(r)
		}
	}
	for i, r := range cfg.Worktrees {
		cfg.Worktrees[i] = ExpandPath(r)
	}
	cfg.Socket = ExpandPath(cfg.Socket)
	cfg.Checkpoint = ExpandPath(cfg.Checkpoint)

	origins := map[string]string{}
	for key := range defaults {
		origins[key] = "default"
		if fileKeys[key] {
			origins[key] = "file " + file
		}
		if hostKeys[key] {
			origins[key] = "host " + host + " (" + file + ")"
		}
		if env := envName(key); os.Getenv(env) != "" {
			origins[key] = "env " + env
		}
		for name, k := range flagKeys {
			if f := flags.Lookup(name); k == key && f != nil && f.Changed {
				origins[key] = "flag --" + name
			}
		}
	}
	// Every long line must fit in the line budget. Left at its default, it
	// follows a max_line_bytes raised past it (up to the 256 MiB cap the
	// README allows); set explicitly, a smaller one is an error (validate).
	if origins["line_buffer_bytes"] == "default" && cfg.LineBufferBytes < int64(cfg.MaxLineBytes) {
		cfg.LineBufferBytes = int64(cfg.MaxLineBytes)
		origins["line_buffer_bytes"] = "default (raised to max_line_bytes)"
	}
	// Unknown keys are reported with the values' errors; the values read are
	// still returned, for the hook client, which must find the socket anyway.
	return cfg, origins, errors.Join(keyErr, cfg.validate())
}

// MaxFileBytes bounds the configuration file; a real one is a few hundred
// bytes.
const MaxFileBytes = 1 << 20

// durationKeys and listKeys are the keys whose YAML type is checked before
// decoding.
var (
	durationKeys = []string{"interrupt.window", "interrupt.esc_timeout", "turn_quiet"}
	listKeys     = []string{"worktrees"} // and each agent's roots and registry
)

// agentDefaults adds each registered agent's roots and registry to the
// defaults (its parsers.Spec), once: agents register at init, before any
// configuration is read.
var agentDefaults = sync.OnceFunc(func() {
	for _, s := range parsers.All() {
		roots, registry := "agents."+string(s.Name)+".roots", "agents."+string(s.Name)+".registry"
		defaults[roots] = slices.Clone(s.Roots)
		defaults[registry] = []string{}
		if s.Registry != nil {
			defaults[registry] = slices.Clone(s.Registry.Dirs)
		}
		listKeys = append(listKeys, roots, registry)
	}
})

// TryDir is where `logwatch try` puts the agents' private homes: beside
// the default socket, in the user's runtime dir, out of the home.
func TryDir() string { return filepath.Join(wire.RunDir(), "try") }

// TryHome is the private home `logwatch try` runs agent in.
func TryHome(agent string) string { return filepath.Join(TryDir(), agent, "home") }

// TryRoots are the log roots of each agent selftest can drive inside its
// TryHome: the daemon watches and trusts them beside the configured ones,
// so that an agent tried against the fake model is read from its logs (a
// hook's transcript path outside every root is refused).
func TryRoots() map[parsers.Agent][]string {
	out := map[parsers.Agent][]string{}
	for _, s := range parsers.All() {
		if s.Offline == nil {
			continue
		}
		for _, r := range s.Roots {
			// ${VAR:-X}: the private environment sets no agent variable.
			r = varRef().ReplaceAllString(r, "$3")
			if strings.HasPrefix(r, "~/") {
				out[s.Name] = append(out[s.Name], filepath.Join(TryHome(string(s.Name)), r[2:]))
			}
		}
	}
	return out
}

// checkTypes refuses a duration without a unit (`window: 10` would be 10 ns)
// and a scalar where a list belongs. An environment variable is always a
// string: a list from one is whitespace-separated, as viper reads it.
func checkTypes(v *viper.Viper) error {
	var errs []error
	for _, key := range durationKeys {
		switch val := v.Get(key).(type) {
		case string:
			if _, err := time.ParseDuration(val); err != nil {
				from := ""
				if os.Getenv(envName(key)) == val {
					from = "from " + envName(key) + "; "
				}
				errs = append(errs, fmt.Errorf("config: %s: invalid duration %q (%swant e.g. 2s, 30ms)", key, val, from))
			}
		case time.Duration, nil:
		default:
			errs = append(errs, fmt.Errorf("config: %s: invalid duration %v: a duration needs a unit (e.g. 2s, 30ms)", key, val))
		}
	}
	for _, key := range listKeys {
		if os.Getenv(envName(key)) != "" {
			continue
		}
		switch val := v.Get(key).(type) {
		case []string, nil:
		case []any:
			for i, el := range val {
				if _, ok := el.(string); !ok {
					errs = append(errs, fmt.Errorf("config: %s[%d]: want a path string, got %v", key, i, el))
				}
			}
		default:
			errs = append(errs, fmt.Errorf("config: %s: want a list of paths (e.g. [\"~/src\"]), got %T %v", key, val, val))
		}
	}
	return errors.Join(errs...)
}

// otherEnv are the LOGWATCH_ variables that are not configuration keys:
// read elsewhere (wrap's tab, the notify command's event, tests).
var otherEnv = []string{"LOGWATCH_CONFIG", "LOGWATCH_TAB", "LOGWATCH_TAB_PID", "LOGWATCH_BIN", "LOGWATCH_AGENT",
	"LOGWATCH_EVENT", "LOGWATCH_STATE", "LOGWATCH_SINCE", "LOGWATCH_SESSION", "LOGWATCH_REASON", "LOGWATCH_TITLE",
	"LOGWATCH_DETAIL", "LOGWATCH_HOST", "LOGWATCH_CWD", "LOGWATCH_AGENTS_DIR"}

// checkEnv refuses a LOGWATCH_ variable that is a key's name misspelt (it
// would leave the default silently in place) and a number or a switch that
// does not parse, naming the variable.
func checkEnv() error {
	known := slices.Clone(otherEnv)
	for key := range defaults {
		known = append(known, envName(key))
	}
	slices.Sort(known)
	var errs []error
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "LOGWATCH_") || slices.Contains(known, name) {
			continue
		}
		if near := closest(name, known, 3); near != "" {
			errs = append(errs, fmt.Errorf("config: %s is no setting logwatch reads (did you mean %s?)", name, near))
		}
	}
	for key, d := range defaults {
		name := envName(key)
		val := os.Getenv(name)
		if val == "" {
			continue
		}
		switch d.(type) {
		case int:
			if _, err := strconv.ParseInt(val, 10, 64); err != nil {
				errs = append(errs, fmt.Errorf("config: %s=%q: %s wants a whole number (of bytes)", name, val, key))
			}
		case bool:
			if _, err := strconv.ParseBool(val); err != nil {
				errs = append(errs, fmt.Errorf("config: %s=%q: %s wants true or false", name, val, key))
			}
		}
	}
	return errors.Join(errs...)
}

func envName(key string) string {
	return "LOGWATCH_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// flattenKeys reads a YAML document's keys as dotted paths (hosts.* excluded:
// checkKeys looks inside each host on its own).
func flattenKeys(raw []byte) map[string]bool {
	fv := viper.New()
	fv.SetConfigType("yaml")
	keys := map[string]bool{}
	if fv.ReadConfig(bytes.NewReader(raw)) != nil {
		return keys
	}
	flattenMap("", fv.AllSettings(), keys)
	return keys
}

func flattenMap(prefix string, m map[string]any, out map[string]bool) {
	for k, val := range m {
		key := strings.ToLower(prefix + k)
		if sub, ok := val.(map[string]any); ok && len(sub) > 0 && key != "hosts" {
			flattenMap(key+".", sub, out)
			continue
		}
		out[key] = true
	}
}

// knownKey reports whether key is a configuration key, or a section of
// them (an empty `interrupt: {}`).
func knownKey(key string) bool {
	if _, ok := defaults[key]; ok {
		return true
	}
	for k := range defaults {
		if strings.HasPrefix(k, key+".") {
			return true
		}
	}
	return false
}

// checkKeys refuses keys the configuration does not have, at the top level
// and inside each hosts.<name> section, naming the closest known key.
func checkKeys(file string, raw []byte, keys map[string]bool) error {
	var errs []error
	bad := func(key, shown string) {
		msg := fmt.Sprintf("config %s: unknown key %q", file, shown)
		if s := closestKey(key); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		errs = append(errs, errors.New(msg))
	}
	for key := range keys {
		if key == "hosts" {
			continue
		}
		if !knownKey(key) {
			bad(key, key)
		}
	}
	fv := viper.New()
	fv.SetConfigType("yaml")
	if fv.ReadConfig(bytes.NewReader(raw)) == nil {
		hosts, _ := fv.Get("hosts").(map[string]any)
		for name, over := range hosts {
			m, ok := over.(map[string]any)
			if !ok {
				if over != nil {
					errs = append(errs, fmt.Errorf("config %s: hosts.%s must be a mapping of keys to override", file, name))
				}
				continue
			}
			hk := map[string]bool{}
			flattenMap("", m, hk)
			for key := range hk {
				if !knownKey(key) || key == "hosts" {
					bad(key, "hosts."+name+"."+key)
				}
			}
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errors.Join(errs...)
}

// closestKey is the known key nearest to a misspelt one (edit distance at
// most 3), or "".
func closestKey(key string) string {
	return closest(key, slices.Sorted(maps.Keys(defaults)), 4)
}

// Closest is the name among names nearest to a misspelt word (at most two
// edits away), for a "did you mean": "" when none is near.
func Closest(word string, names []string) string {
	return closest(strings.ToLower(word), names, 3)
}

func closest(word string, names []string, within int) string {
	best, bestD := "", within
	for _, k := range names {
		if d := editDistance(word, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// CheckRoots refuses log roots that exist but cannot be listed: the daemon
// would watch nothing there without saying so. A missing root is fine (it
// is waited for), and so is a symlink loop (ErrRootLoop): it resolves to
// nothing, as a dangling link does, and one loop among the roots must not
// keep the others from being served; the watcher warns about it and looks
// again at every poll.
func (c Config) CheckRoots() error {
	var errs []error
	for _, r := range c.Roots() {
		if err := RootReadable(r.Path); err != nil && !errors.Is(err, ErrRootLoop) {
			errs = append(errs, fmt.Errorf("agents.%s.roots: %w", r.Agent, err))
		}
	}
	return errors.Join(errs...)
}

// ErrRootLoop is RootReadable's error for a root whose symlinks loop.
var ErrRootLoop = errors.New("a symlink loop")

// RootReadable is nil for a missing or listable directory.
func RootReadable(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%s is %w (skipped until it resolves)", path, ErrRootLoop)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", path)
	}
	f, err := safeopen.Dir(path)
	if err == nil {
		_, err = f.Readdirnames(1)
		f.Close()
		if errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		return fmt.Errorf("%s exists but cannot be read: %w", path, err)
	}
	return nil
}

// AgentRoot is one log root and the agent whose logs are under it.
type AgentRoot struct{ Agent, Path string }

// Roots are the configured log roots, the agents in registration order.
func (c Config) Roots() []AgentRoot {
	var out []AgentRoot
	for _, s := range parsers.All() {
		for _, r := range c.Agents[string(s.Name)].Roots {
			out = append(out, AgentRoot{string(s.Name), r})
		}
	}
	return out
}

// AgentRoots are the configured log roots by agent, as the watcher takes
// them.
func (c Config) AgentRoots() map[parsers.Agent][]string {
	out := map[parsers.Agent][]string{}
	for name, a := range c.Agents {
		out[parsers.Agent(name)] = a.Roots
	}
	return out
}

// AllRoots are every configured log root, the agents in registration order.
func (c Config) AllRoots() []string {
	var out []string
	for _, r := range c.Roots() {
		out = append(out, r.Path)
	}
	return out
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

// MaxLineBytesLimit is the largest max_line_bytes accepted: a line up to
// this size is held in memory while it is parsed, and no agent writes lines
// anywhere near it (Claude's largest, with pasted images, are a few MiB).
const MaxLineBytesLimit = 256 << 20

func (c Config) validate() error {
	var errs []error
	if c.MaxLineBytes <= 0 || c.MaxLineBytes > MaxLineBytesLimit {
		errs = append(errs, fmt.Errorf("max_line_bytes must be between 1 and %d (256 MiB), got %d", MaxLineBytesLimit, c.MaxLineBytes))
	}
	if c.Socket != "" && !filepath.IsAbs(c.Socket) {
		errs = append(errs, fmt.Errorf("socket must be an absolute path, got %q", c.Socket))
	}
	if c.HTTP != "" {
		if err := wire.CheckHTTPAddr(c.HTTP); err != nil {
			errs = append(errs, fmt.Errorf("http: %w", err))
		}
	}
	if c.LineBufferBytes < int64(c.MaxLineBytes) {
		errs = append(errs, fmt.Errorf("line_buffer_bytes (%d) must be at least max_line_bytes (%d)", c.LineBufferBytes, c.MaxLineBytes))
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
	names := map[string]bool{}
	for i, r := range c.Remotes {
		if err := CheckRemote(r); err != nil {
			errs = append(errs, fmt.Errorf("remotes[%d]: %w", i, err))
		}
		if names[r.Name] {
			errs = append(errs, fmt.Errorf("remotes[%d]: name %q is used twice", i, r.Name))
		}
		names[r.Name] = true
	}
	if err := c.Notify.validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

var varRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)
})

// ExpandPath expands ${VAR} and ${VAR:-default} (an empty variable counts as
// unset, as in the shell) and a leading ~.
func ExpandPath(p string) string {
	p = varRef().ReplaceAllStringFunc(p, func(m string) string {
		sub := varRef().FindStringSubmatch(m)
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
