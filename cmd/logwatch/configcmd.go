package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/config"
	"github.com/logwatch/logwatch/internal/termsafe"
)

func newConfigCmd(a *app, configFile *string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "config [--json]",
		Short: "Print the effective configuration and where each value came from",
		Long: `Prints every configuration key with its effective value (paths expanded) and its
origin: default, file, host (a hosts.<name> section of the file), env
(LOGWATCH_…) or flag. It also validates: an unknown key, a bad duration or
value, or a log root that exists but cannot be read stops it with exit 2 and
says which key.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// PersistentPreRunE already refused an invalid configuration;
			// reading it again yields the origins.
			cfg, origins, err := config.LoadWithOrigins(*configFile, cmd.Flags())
			if err != nil {
				return withCode(exitUsage, err)
			}
			values := cfg.Values(a.socketPath())
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range values {
					if !yield(k) {
						return
					}
				}
			})
			if asJSON {
				type entry struct {
					Value  any    `json:"value"`
					Origin string `json:"origin"`
				}
				out := struct {
					File string           `json:"file"`
					Host string           `json:"host"`
					Keys map[string]entry `json:"keys"`
				}{cfg.File, cfg.Host, map[string]entry{}}
				for _, k := range keys {
					out.Keys[k] = entry{values[k], origins[k]}
				}
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(out); err != nil {
					return withCode(exitUsage, err)
				}
			} else {
				writeConfigText(a.stdout, cfg.File, cfg.Host, keys, values, origins)
			}
			if err := cfg.CheckRoots(); err != nil {
				return withCode(exitUsage, fmt.Errorf("config: %w", err))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON: {file, host, keys: {KEY: {value, origin}}}")
	return cmd
}

// configWidth is the width `logwatch config` fits in.
const configWidth = 80

// writeConfigText prints the keys in configWidth columns: KEY, FROM (the
// origin, short: the file is named above, an env variable is the key's own
// LOGWATCH_ name; --json has each in full) and VALUE, a list one item a line, a value too long for
// its column broken over lines.
func writeConfigText(w io.Writer, file, host string, keys []string, values map[string]any, origins map[string]string) {
	if file == "" {
		file = "(none: built-in defaults)"
	}
	fmt.Fprintf(w, "file: %s\n", file)
	if host != "" {
		fmt.Fprintf(w, "host overrides: hosts.%s\n", host)
	}
	fmt.Fprintln(w)
	from := func(k string) string {
		o := origins[k]
		switch {
		case strings.HasPrefix(o, "file "):
			return "file"
		case strings.HasPrefix(o, "host "):
			return "host"
		case strings.HasPrefix(o, "env "):
			return "env"
		case strings.HasPrefix(o, "default ("):
			return "raised" // to max_line_bytes
		}
		return o // flag --NAME
	}
	keyW, fromW := len("KEY"), len("FROM")
	for _, k := range keys {
		keyW, fromW = max(keyW, len(k)), max(fromW, len(from(k)))
	}
	valueW := max(configWidth-keyW-fromW-4, 20)
	fmt.Fprintf(w, "%-*s  %-*s  VALUE\n", keyW, "KEY", fromW, "FROM")
	for _, k := range keys {
		var lines []string
		items, ok := values[k].([]string)
		if !ok || len(items) == 0 {
			items = []string{config.ShowValue(values[k])}
		}
		for _, it := range items {
			for r := []rune(termsafe.Line(it)); len(r) > 0; {
				n := min(len(r), valueW)
				lines = append(lines, string(r[:n]))
				r = r[n:]
			}
		}
		for i, l := range lines {
			if i == 0 {
				fmt.Fprintf(w, "%-*s  %-*s  %s\n", keyW, k, fromW, from(k), l)
			} else {
				fmt.Fprintf(w, "%*s%s\n", keyW+fromW+4, "", l)
			}
		}
	}
}
