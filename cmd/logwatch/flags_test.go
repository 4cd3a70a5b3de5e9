package main

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestFlagPlaceholders: pflag turns the first `quoted` word of a usage into
// the flag's placeholder in --help, even for a bool flag, so backquotes in a
// usage string must name the value (`FILE`), never quote a word of prose.
func TestFlagPlaceholders(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			if f.Value.Type() == "bool" && name != "" {
				t.Errorf("%s --%s: a bool flag shows the placeholder %q in --help", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&app{}))
}
