package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCli18EveryCommandHasAnExample: cli18 finding 5. As gh, cargo and npm
// do, each runnable ctx command's --help ends with an example to paste;
// 13 of 30 had none (install, update, status, verify, ...). cobra's own
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
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "ctx ") && !strings.HasPrefix(line, "#") {
				t.Errorf("%s: example line %q does not start with `ctx `", c.CommandPath(), line)
			}
		}
	})
	if len(missing) > 0 {
		t.Errorf("commands whose --help has no example: %s", strings.Join(missing, ", "))
	}
}
