package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestConfigYAMLIsTheDefaults keeps config.yaml and the built-in defaults
// equal, so the file documents what logwatch does without it.
func TestConfigYAMLIsTheDefaults(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("LOGWATCH_CONFIG", "")
	builtin, err := Load("", pflag.NewFlagSet("x", pflag.ContinueOnError))
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := Load("../../config.yaml", pflag.NewFlagSet("x", pflag.ContinueOnError))
	if err != nil {
		t.Fatal(err)
	}
	fromFile.File = ""
	if !reflect.DeepEqual(builtin, fromFile) {
		t.Fatalf("config.yaml differs from the defaults:\nbuilt-in %+v\nfile     %+v", builtin, fromFile)
	}
	if builtin.Interrupt.Window != 2*time.Second || builtin.Interrupt.EscTimeout != 30*time.Millisecond || builtin.MaxLineBytes != 32<<20 {
		t.Fatalf("defaults = %+v", builtin)
	}
}

func TestConfigLayers(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	write(t, file, `
max_line_bytes: 1000
interrupt: {window: 3s}
agents:
  codex: {roots: ["${LW_TEST_ROOT:-/fallback}/sessions"]}
hosts:
  other-machine:
    max_line_bytes: 5
  `+strings.ToUpper(host)+`:
    agents: {claude: {roots: ["~/data/claude"]}}
    interrupt: {esc_timeout: 50ms}
`)
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", "/home/tester")
	t.Setenv("LW_TEST_ROOT", "")
	t.Setenv("LOGWATCH_INTERRUPT_WINDOW", "4s")
	t.Setenv("LOGWATCH_WORKTREES", " ~/src/a  /w/b ")
	flags := pflag.NewFlagSet("x", pflag.ContinueOnError)
	flags.Int("max-line-bytes", 0, "")
	if err := flags.Parse([]string{"--max-line-bytes", "2000"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(file, flags)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"flag beats file", cfg.MaxLineBytes, 2000},
		{"env beats file", cfg.Interrupt.Window, 4 * time.Second},
		{"host override", cfg.Interrupt.EscTimeout, 50 * time.Millisecond},
		{"host override roots, ~ expanded", cfg.Agents["claude"].Roots, []string{"/home/tester/data/claude"}},
		{"empty variable takes the default", cfg.Agents["codex"].Roots, []string{"/fallback/sessions"}},
		{"host recorded", strings.EqualFold(cfg.Host, host), true},
		{"a list from the environment, whitespace-separated", cfg.Worktrees, []string{"/home/tester/src/a", "/w/b"}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestExpandPath(t *testing.T) {
	t.Setenv("HOME", "/h")
	t.Setenv("LW_SET", "/set")
	t.Setenv("LW_EMPTY", "")
	tests := map[string]string{
		"~":                       "/h",
		"~/x":                     "/h/x",
		"/a/~/b":                  "/a/~/b",
		"${LW_SET}/p":             "/set/p",
		"${LW_SET:-/d}/p":         "/set/p",
		"${LW_EMPTY:-/d}/p":       "/d/p",
		"${LW_UNSET_XYZ:-~/.c}/s": "/h/.c/s",
		"${LW_UNSET_XYZ}/s":       "/s",
		"$NOT_BRACED/x":           "$NOT_BRACED/x",
	}
	for in, want := range tests {
		if got := ExpandPath(in); got != want {
			t.Errorf("ExpandPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConfigNotARegularFile: a configuration path naming a FIFO, a device,
// a directory or a file too large is refused at once; read, the FIFO
// blocked every verb forever and /dev/zero never ended.
func TestConfigNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	write(t, big, "# "+strings.Repeat("x", 1<<20)+"\n")
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path, want string }{
		{"FIFO", fifo, "a FIFO, not a regular file"},
		{"symlink to a FIFO", link, "a FIFO, not a regular file"},
		{"device", "/dev/zero", "a character device, not a regular file"},
		{"directory", dir, "a directory, not a regular file"},
		{"too large", big, "file too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := Load(tc.path, pflag.NewFlagSet("x", pflag.ContinueOnError))
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Load(%s): %v, want %q", tc.path, err, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("Load(%s) still reading after 10 s", tc.path)
			}
		})
	}
}

// remotes: per host like the roots; each checked, since a bad one would
// only show as a link that never comes up.
func TestConfigRemotes(t *testing.T) {
	host, err := os.Hostname()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	write(t, file, `
remotes:
  - {name: devbox, dest: me@devbox}
hosts:
  `+host+`:
    remotes:
      - {name: vm, dest: vm.example, command: "~/go/bin/logwatch", ssh: ["-p", "2222"]}
`)
	cfg, err := Load(file, pflag.NewFlagSet("x", pflag.ContinueOnError))
	if err != nil {
		t.Fatal(err)
	}
	want := []RemoteConfig{{Name: "vm", Dest: "vm.example", Command: "~/go/bin/logwatch", SSH: []string{"-p", "2222"}}}
	if !reflect.DeepEqual(cfg.Remotes, want) {
		t.Fatalf("this host's remotes: %+v", cfg.Remotes)
	}
	for _, c := range []struct{ yaml, err string }{
		{`remotes: [{name: a, dest: "-oProxyCommand=x"}]`, `remotes[0]: dest "-oProxyCommand=x" is not an ssh destination`},
		{`remotes: [{name: "a b", dest: h}]`, `remotes[0]: name "a b": want letters`},
		{`remotes: [{name: a}]`, `remotes[0]: dest is empty`},
		{`remotes: [{name: a, dest: h}, {name: a, dest: g}]`, `remotes[1]: name "a" is used twice`},
		{`remotes: [{name: a, dest: h, command: "x\ny"}]`, `holds a line break`},
	} {
		write(t, file, c.yaml)
		if _, err := Load(file, pflag.NewFlagSet("x", pflag.ContinueOnError)); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: got %v, want %q", c.yaml, err, c.err)
		}
	}
}

// notify: sinks are checked one by one, with what to write instead.
func TestConfigNotify(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte(`notify:
  done: true
  rate: 1m
  sinks:
    - {type: desktop}
    - {type: command, command: [paplay, bell.oga]}
    - {type: webhook, url: "https://ntfy.example/topic", token_env: NTFY_TOKEN}
`), 0o600)
	cfg, err := Load(good, pflag.NewFlagSet("x", pflag.ContinueOnError))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Notify.Done || cfg.Notify.Rate != time.Minute || len(cfg.Notify.Sinks) != 3 ||
		cfg.Notify.Sinks[1].Command[0] != "paplay" || cfg.Notify.Sinks[2].TokenEnv != "NTFY_TOKEN" {
		t.Fatalf("notify %+v", cfg.Notify)
	}
	if got := ShowValue(cfg.Values("")["notify.sinks"]); got != "[desktop, command paplay bell.oga, webhook https://ntfy.example/*** (ntfy) (token from $NTFY_TOKEN)]" {
		t.Fatalf("shown as %s", got)
	}
	for _, c := range []struct{ yaml, want string }{
		{`notify: {sinks: [{type: pager}]}`, `notify.sinks[0]: type "pager": want desktop, command or webhook`},
		{`notify: {sinks: [{}]}`, `notify.sinks[0]: type is empty`},
		{`notify: {sinks: [{type: command}]}`, `notify.sinks[0]: command is empty`},
		{`notify: {sinks: [{type: webhook, url: "ftp://x/y"}]}`, `notify.sinks[0]: url: want http(s)://`},
		{`notify: {sinks: [{type: webhook, url: "https://x/y", format: xml}]}`, `format "xml": want ntfy or json`},
		{`notify: {sinks: [{type: desktop, url: "https://x/y"}]}`, `url is for a webhook sink, not desktop`},
		{`notify: {rate: -1s}`, `notify.rate must not be negative`},
		{`notify: {timeout: 0s}`, `notify.timeout must be positive`},
	} {
		f := filepath.Join(dir, "bad.yaml")
		os.WriteFile(f, []byte(c.yaml), 0o600)
		if _, err := Load(f, pflag.NewFlagSet("x", pflag.ContinueOnError)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.yaml, err, c.want)
		}
	}
}

// AddSink keeps the file's comments and refuses the same sink twice.
func TestAddSink(t *testing.T) {
	f := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(f, []byte("# mine\nturn_quiet: 5s # why\n"), 0o600)
	if err := AddSink(f, SinkConfig{Type: SinkWebhook, URL: "https://ntfy.example/t", TokenEnv: "NTFY_TOKEN"}); err != nil {
		t.Fatal(err)
	}
	if err := AddSink(f, SinkConfig{Type: SinkDesktop}); err != nil {
		t.Fatal(err)
	}
	if err := AddSink(f, SinkConfig{Type: SinkDesktop}); !errors.Is(err, ErrSinkExists) {
		t.Fatalf("second desktop: %v", err)
	}
	b, _ := os.ReadFile(f)
	if !strings.Contains(string(b), "# mine") || !strings.Contains(string(b), "# why") {
		t.Fatalf("comments lost:\n%s", b)
	}
	cfg, err := Load(f, pflag.NewFlagSet("x", pflag.ContinueOnError))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Notify.Sinks) != 2 || cfg.Notify.Sinks[0].URL != "https://ntfy.example/t" || cfg.TurnQuiet != 5*time.Second {
		t.Fatalf("%+v\n%s", cfg.Notify, b)
	}
}

// TestConfigEnvChecked: a LOGWATCH_ variable one typo from a setting is
// refused with the right name; a bad value names the variable that set it;
// a LOGWATCH_ variable far from every setting (a token's, say) is not ours
// to judge.
func TestConfigEnvChecked(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("LOGWATCH_CONFIG", "")
	for _, tc := range []struct{ name, val, want string }{
		{"LOGWATCH_SOCKT", "/x", "LOGWATCH_SOCKT is no setting logwatch reads (did you mean LOGWATCH_SOCKET?)"},
		{"LOGWATCH_TURN_QUIET", "5", `turn_quiet: invalid duration "5" (from LOGWATCH_TURN_QUIET;`},
		{"LOGWATCH_MAX_LINE_BYTES", "lots", `LOGWATCH_MAX_LINE_BYTES="lots": max_line_bytes wants a whole number`},
		{"LOGWATCH_NOTIFY_DONE", "yes please", `LOGWATCH_NOTIFY_DONE="yes please": notify.done wants true or false`},
		{"LOGWATCH_NTFY_TOKEN", "secret", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.name, tc.val)
			_, err := Load("", pflag.NewFlagSet("t", pflag.ContinueOnError))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
