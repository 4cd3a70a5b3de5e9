package config

import (
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/logwatch/logwatch/internal/safeopen"
)

// FileSocket is the socket the configuration file (FilePath(file)) sets,
// expanded: this host's hosts.NAME.socket, else the top-level socket, else
// "" for the default. It is what Load reads there, without the rest of
// Load (viper, every other key and check): for the hook client, which
// needs the socket alone and starts once per agent event: with a file in
// place, Load was the most it did before dialling. The environment is the
// caller's ($LOGWATCH_SOCKET comes first). A file that does not parse is an error;
// a socket that is not a string is none.
func FileSocket(file string) (string, error) {
	path := FilePath(file)
	raw, err := safeopen.ReadFile(path, MaxFileBytes)
	if err != nil {
		return "", fmt.Errorf("config %s: %w", path, err)
	}
	var top map[string]any
	if err := yaml.Unmarshal(raw, &top); err != nil {
		return "", fmt.Errorf("config %s: %w", path, err)
	}
	socket, _ := key(top, "socket").(string)
	if over := hostSection(key(top, "hosts")); over != nil {
		if v, ok := key(over, "socket").(string); ok {
			socket = v
		}
	}
	return ExpandPath(socket), nil
}

// hostSection is this host's section of hosts, as hostOverrides picks it:
// the full host name first, then the short one, in any case.
func hostSection(hosts any) map[string]any {
	m, _ := hosts.(map[string]any)
	if len(m) == 0 {
		return nil
	}
	name, err := os.Hostname()
	if err != nil {
		return nil
	}
	short, _, _ := strings.Cut(name, ".")
	for _, want := range []string{name, short} {
		if over, ok := key(m, want).(map[string]any); ok {
			return over
		}
	}
	return nil
}

// key is m's value for name in any case, as viper reads keys.
func key(m map[string]any, name string) any {
	for k, v := range m {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return nil
}
