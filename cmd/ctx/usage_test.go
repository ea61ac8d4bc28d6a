package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// positional are the arguments a command needs before one is too many.
var positional = map[string][]string{
	"ctx add":            {"SOURCE"},
	"ctx config get":     {"KEY"},
	"ctx config set":     {"KEY", "VALUE"},
	"ctx config unset":   {"KEY"},
	"ctx push":           {"ALIAS"},
	"ctx links":          {"ALIAS/PATH"},
	"ctx registry check": {"FILE"},
}

// variadic commands take any number of arguments, so none is extra.
var variadic = map[string]bool{
	"ctx remove":   true, // ALIAS...
	"ctx update":   true, // [ALIAS...]
	"ctx outdated": true, // [ALIAS...]
	"ctx changes":  true, // [ALIAS...]
	"ctx hook":     true, // NAME and git's arguments
	"ctx search":   true, // QUERY words
	"ctx find":     true, // KEY=VALUE...
	"ctx help":     true, // a command path
	"ctx refs":     true, // [PATH...]
}

// walk calls fn on c and every command below it.
func walk(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		walk(sub, fn)
	}
}

// runGuarded runs ctx with args where no command can do anything: each
// one fails with "ran" (exit 1) if its arguments and flags pass.
func runGuarded(args ...string) (int, string) {
	var out, errOut bytes.Buffer
	io := &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	g := &globalOptions{IO: io}
	root := newRootCmd(g)
	walk(root, func(c *cobra.Command) {
		c.Run = nil
		c.RunE = func(*cobra.Command, []string) error { return errors.New("ran") }
	})
	return execute(context.Background(), root, args, g), errOut.String()
}

// TestUsageErrorsOnEveryCommand: on every command and sub-command, cobra's
// help and completion commands included, an extra argument and an unknown
// flag are usage errors (exit 2) whose message names the problem and points
// to the command's --help. It walks the command tree, so a new command is
// covered without a new line here.
func TestUsageErrorsOnEveryCommand(t *testing.T) {
	var all []*cobra.Command
	walk(newRootCmd(&globalOptions{IO: &IOStreams{}}), func(c *cobra.Command) { all = append(all, c) })
	if len(all) < 20 {
		t.Fatalf("walked only %d commands", len(all))
	}
	for _, c := range all {
		path := c.CommandPath()
		words := strings.Fields(path)[1:]
		help := "'" + path + " --help'"
		t.Run(strings.Join(append([]string{"ctx"}, words...), "_"), func(t *testing.T) {
			if !variadic[path] {
				args := append(append(words, positional[path]...), "extra-arg")
				code, stderr := runGuarded(args...)
				if code != ExitUsage || !strings.Contains(stderr, "extra-arg") || !strings.Contains(stderr, help) {
					t.Errorf("ctx %s: exit %d, stderr %q; want exit 2 naming the argument and %s", strings.Join(args, " "), code, stderr, help)
				}
			}
			args := append(words, "--no-such-flag")
			code, stderr := runGuarded(args...)
			if code != ExitUsage || !strings.Contains(stderr, "unknown flag: --no-such-flag") || !strings.Contains(stderr, help) {
				t.Errorf("ctx %s: exit %d, stderr %q; want exit 2 naming the flag and %s", strings.Join(args, " "), code, stderr, help)
			}
		})
	}
}

// TestUsageErrorsD6: the cases of issue 10's D6, through the real commands.
func TestUsageErrorsD6(t *testing.T) {
	for _, args := range [][]string{
		{"mcp", "foo"},
		{"mcp", "config", "--client", "claude", "extra"},
		{"no-such-command"},
	} {
		code, _, stderr := runCtx("", append([]string{"-C", t.TempDir()}, args...)...)
		if code != ExitUsage || !strings.Contains(stderr, "--help") {
			t.Errorf("ctx %s: exit %d, stderr %q; want exit 2 pointing to --help", strings.Join(args, " "), code, stderr)
		}
	}
}
