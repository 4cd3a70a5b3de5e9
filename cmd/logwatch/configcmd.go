package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/logwatch/logwatch/internal/config"
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
				file := cfg.File
				if file == "" {
					file = "(none: built-in defaults)"
				}
				fmt.Fprintf(a.stdout, "file: %s\n", file)
				if cfg.Host != "" {
					fmt.Fprintf(a.stdout, "host overrides: hosts.%s\n", cfg.Host)
				}
				fmt.Fprintln(a.stdout)
				tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "KEY\tVALUE\tFROM")
				for _, k := range keys {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", k, config.ShowValue(values[k]), origins[k])
				}
				tw.Flush()
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
