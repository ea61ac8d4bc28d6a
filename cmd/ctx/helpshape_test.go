package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// placeholderRE is what a flag's value is called in help: an upper-case
// word (or words joined by | or -), as in --path PATH, --client NAME; a
// single letter only for a count (--limit N).
var placeholderRE = regexp.MustCompile(`^[A-Z][A-Z0-9]*([|_-][A-Z0-9]+)*$`)

// TestHelpOfEveryCommand walks the whole command tree (cobra's help and
// completion commands included): every command's help has an exit-status
// section; every flag that takes a value names it with an upper-case
// placeholder, never a Go type (--branch string); a switch (a bool flag)
// shows none (--agents-md, not "--agents-md ctx mcp").
func TestHelpOfEveryCommand(t *testing.T) {
	root := newRootCmd(&globalOptions{IO: &IOStreams{}})
	n := 0
	walk(root, func(c *cobra.Command) {
		n++
		path := c.CommandPath()
		var out bytes.Buffer
		c.SetOut(&out)
		if err := c.Help(); err != nil {
			t.Fatalf("%s --help: %v", path, err)
		}
		help := out.String()
		if !strings.Contains(help, "Exit status:") {
			t.Errorf("%s --help has no exit-status section", path)
		}
		check := func(f *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(f)
			if f.Value.Type() == "bool" {
				if name != "" {
					t.Errorf("%s --%s: a switch shows a value name %q (back-quoted words in its usage)", path, f.Name, name)
				}
				return
			}
			if !placeholderRE.MatchString(name) || (len(name) == 1 && name != "N") {
				t.Errorf("%s --%s: placeholder %q; want an upper-case word in back quotes in its usage", path, f.Name, name)
			}
		}
		c.LocalFlags().VisitAll(check)
		c.InheritedFlags().VisitAll(check)
	})
	if n < 30 {
		t.Fatalf("walked only %d commands", n)
	}
}

// TestHelpExitStatusNamesUsage: every command exits 2 on bad flags or
// arguments (cobra's flag errors and each command's Args check go through
// one usage error), so every exit-status section says so; `ctx index`'s did
// not (docs20).
func TestHelpExitStatusNamesUsage(t *testing.T) {
	root := newRootCmd(&globalOptions{IO: &IOStreams{}})
	two := regexp.MustCompile(`\b2\b`)
	walk(root, func(c *cobra.Command) {
		var out bytes.Buffer
		c.SetOut(&out)
		if err := c.Help(); err != nil {
			t.Fatalf("%s --help: %v", c.CommandPath(), err)
		}
		_, status, ok := strings.Cut(out.String(), "Exit status:")
		if !ok {
			return // TestHelpOfEveryCommand reports it
		}
		status, _, _ = strings.Cut(status, "\n\n")
		if !two.MatchString(status) {
			t.Errorf("%s --help: its exit status does not name 2 (bad flags or arguments): %q", c.CommandPath(), status)
		}
	})
}
