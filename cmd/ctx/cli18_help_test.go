package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCli18EveryCommandHasAnExample: cli18 finding 9. As gh, cargo and npm
// do, each runnable ctx command's --help ends with examples to paste,
// and each parses (21 commands had none: install, update, status, ...). cobra's own
// help and completion commands are not ctx's to write, and a hidden
// command (the git hook's) is not for users.
func TestCli18EveryCommandHasAnExample(t *testing.T) {
	root := newRootCmd(&globalOptions{IO: &IOStreams{}})
	var missing []string
	walk(root, func(c *cobra.Command) {
		if c == root || c.Hidden || !c.Runnable() {
			return
		}
		for p := c; p != nil; p = p.Parent() {
			if p.Name() == "help" || p.Name() == "completion" {
				return
			}
		}
		if strings.TrimSpace(c.Example) == "" {
			missing = append(missing, c.CommandPath())
			return
		}
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if !strings.HasPrefix(line, "ctx ") {
				t.Errorf("%s: example line %q does not start with `ctx `", c.CommandPath(), line)
				continue
			}
			// Pasted, its flags and arguments parse: the command runs.
			args := exampleArgs(strings.TrimPrefix(line, "ctx "))
			if code, stderr := runGuarded(args...); stderr != "ctx: ran\n" {
				t.Errorf("%s: example %q does not parse (exit %d): %s", c.CommandPath(), line, code, stderr)
			}
		}
	})
	if len(missing) > 0 {
		t.Errorf("commands whose --help has no example: %s", strings.Join(missing, ", "))
	}
}

// exampleArgs splits an example's words as a shell would for the simple
// quoting examples use ("…"), dropping a trailing # comment and a
// redirection.
func exampleArgs(line string) []string {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	if i := strings.Index(line, " >"); i >= 0 {
		line = line[:i]
	}
	var args []string
	var cur strings.Builder
	quoted, have := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, have = !quoted, true
		case r == ' ' && !quoted:
			if have {
				args = append(args, cur.String())
			}
			cur.Reset()
			have = false
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if have {
		args = append(args, cur.String())
	}
	return args
}
